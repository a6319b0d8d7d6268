/* libsqlite3, loaded on first use: only `kgate serve` stores in SQLite (check and webhook use the in-memory
 * store), yet linking it made every kgate command map and relocate it at exec (2.5–5 ms of CPU per start on the
 * bench VM, bench/results/check.md). The functions sqlite.c uses are defined here with SQLite's own declarations
 * (sqlite3.h) and forward to the library, opened with dlopen on the first call and kept for the process's life.
 * If the library is missing, sqlite3_open_v2 fails with SQLITE_CANTOPEN and the error texts say why; the other
 * functions are only reachable through an open database. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "base/lazylib.h"

static kg_lazylib lib = KG_LAZYLIB("libsqlite3", false, "libsqlite3.so.0", "libsqlite3.so");

/* The address of name in the library (NULL when it cannot be loaded and !required), looked up once per function. */
static void *sym(void **cache, const char *name, bool required)
{
    return kg_lazylib_sym(&lib, cache, name, required);
}

/* ret name(params) { return real(args); } with the real function looked up once */
#define FORWARD(ret, name, params, args)                                                                               \
    ret name params                                                                                                    \
    {                                                                                                                  \
        static void *p;                                                                                                \
        ret(*fn) params = sym(&p, #name, true);                                                                        \
        return fn args;                                                                                                \
    }
#define FORWARD_VOID(name, params, args)                                                                               \
    void name params                                                                                                   \
    {                                                                                                                  \
        static void *p;                                                                                                \
        void(*fn) params = sym(&p, #name, true);                                                                       \
        fn args;                                                                                                       \
    }

#define MISSING "libsqlite3 could not be loaded"

int sqlite3_open_v2(const char *filename, sqlite3 **ppDb, int flags, const char *zVfs)
{
    static void *p;
    int (*fn)(const char *, sqlite3 **, int, const char *) = sym(&p, "sqlite3_open_v2", false);
    if (!fn) {
        *ppDb = NULL;
        return SQLITE_CANTOPEN;
    }
    return fn(filename, ppDb, flags, zVfs);
}

const char *sqlite3_errmsg(sqlite3 *db)
{
    static void *p;
    const char *(*fn)(sqlite3 *) = sym(&p, "sqlite3_errmsg", false);
    return fn ? fn(db) : MISSING;
}

int sqlite3_errcode(sqlite3 *db)
{
    static void *p;
    int (*fn)(sqlite3 *) = sym(&p, "sqlite3_errcode", false);
    return fn ? fn(db) : SQLITE_ERROR;
}

const char *sqlite3_errstr(int rc)
{
    static void *p;
    const char *(*fn)(int) = sym(&p, "sqlite3_errstr", false);
    return fn ? fn(rc) : MISSING;
}

int sqlite3_close(sqlite3 *db)
{
    static void *p;
    int (*fn)(sqlite3 *) = sym(&p, "sqlite3_close", false);
    return fn ? fn(db) : SQLITE_OK;
}

FORWARD(int, sqlite3_bind_blob, (sqlite3_stmt * s, int i, const void *v, int n, void (*d)(void *)), (s, i, v, n, d))
FORWARD(int, sqlite3_bind_int, (sqlite3_stmt * s, int i, int v), (s, i, v))
FORWARD(int, sqlite3_bind_int64, (sqlite3_stmt * s, int i, sqlite3_int64 v), (s, i, v))
FORWARD(int, sqlite3_bind_null, (sqlite3_stmt * s, int i), (s, i))
FORWARD(int, sqlite3_bind_text, (sqlite3_stmt * s, int i, const char *v, int n, void (*d)(void *)), (s, i, v, n, d))
FORWARD(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))
FORWARD(int, sqlite3_file_control, (sqlite3 * db, const char *name, int op, void *arg), (db, name, op, arg))
FORWARD(int, sqlite3_clear_bindings, (sqlite3_stmt * s), (s))
FORWARD(const void *, sqlite3_column_blob, (sqlite3_stmt * s, int i), (s, i))
FORWARD(int, sqlite3_column_bytes, (sqlite3_stmt * s, int i), (s, i))
FORWARD(int, sqlite3_column_int, (sqlite3_stmt * s, int i), (s, i))
FORWARD(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * s, int i), (s, i))
FORWARD(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * s, int i), (s, i))
FORWARD(int, sqlite3_column_type, (sqlite3_stmt * s, int i), (s, i))
FORWARD(int, sqlite3_exec, (sqlite3 * db, const char *sql, int (*cb)(void *, int, char **, char **), void *a, char **e),
        (db, sql, cb, a, e))
FORWARD(int, sqlite3_extended_result_codes, (sqlite3 * db, int on), (db, on))
FORWARD(int, sqlite3_finalize, (sqlite3_stmt * s), (s))
FORWARD_VOID(sqlite3_free, (void *v), (v))
FORWARD(int, sqlite3_get_autocommit, (sqlite3 * db), (db))
FORWARD(int, sqlite3_prepare_v2, (sqlite3 * db, const char *sql, int n, sqlite3_stmt **s, const char **tail),
        (db, sql, n, s, tail))
FORWARD(int, sqlite3_prepare_v3,
        (sqlite3 * db, const char *sql, int n, unsigned int f, sqlite3_stmt **s, const char **tail),
        (db, sql, n, f, s, tail))
FORWARD(int, sqlite3_reset, (sqlite3_stmt * s), (s))
FORWARD(int, sqlite3_step, (sqlite3_stmt * s), (s))
