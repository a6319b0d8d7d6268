/* Shared libraries opened on first use (dlopen), so that commands which never reach them do not map and relocate
 * them at every start (docs/check.md, Performance): libmicrohttpd (server/mhd_lazy.c), GnuTLS
 * (server/gnutls_lazy.c) and SQLite (storage/sqlite_lazy.c) define the functions kgate calls with the libraries' own
 * declarations and forward through kg_lazylib_sym.
 *
 * A kg_lazylib is a static object: the sonames are tried in order (the ABI Debian bookworm ships first, then the
 * development link) once, on the first lookup, and the library stays loaded for the process's life. */
#ifndef KG_BASE_LAZYLIB_H
#define KG_BASE_LAZYLIB_H

#include <pthread.h>
#include <stdbool.h>

typedef struct kg_lazylib {
    const char *label;      /* "libsqlite3": for messages */
    const char *sonames[3]; /* NULL-terminated */
    bool quiet;             /* no message when the library cannot be loaded */
    pthread_mutex_t mu;
    bool tried;
    void *handle;
} kg_lazylib;

#define KG_LAZYLIB(label_, quiet_, ...)                                                                                \
    {                                                                                                                  \
        label_, {__VA_ARGS__, NULL}, quiet_, PTHREAD_MUTEX_INITIALIZER, false, NULL                                    \
    }

/* The library's handle, opened on the first call (NULL when it cannot be loaded; a message on stderr names the
 * dlerror unless quiet). Thread-safe. */
void *kg_lazylib_handle(kg_lazylib *lib);

/* The address of name, cached in *cache (one cache per function; NULL-initialised). When it cannot be found: abort
 * with a message if required, else NULL. */
void *kg_lazylib_sym(kg_lazylib *lib, void **cache, const char *name, bool required);

#endif
