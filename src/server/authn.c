/* Bearer-token and anonymous authentication (see authn.h). */
#include "server/authn.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/str.h"

/* ---- Go encoding/csv reader (Comma ',', no comments, FieldsPerRecord -1, LazyQuotes false) ---- */

typedef struct csv_reader {
    const char *data;
    size_t len, off;
    int num_line;
    kg_buf line; /* current line, "\r\n" normalized to "\n", always ends with "\n" when non-empty */
} csv_reader;

/* Reads the next line into r->line; returns false at EOF (no data). */
static bool csv_read_line(csv_reader *r)
{
    kg_buf_reset(&r->line);
    if (r->off >= r->len)
        return false;
    const char *s = r->data + r->off;
    const char *nl = memchr(s, '\n', r->len - r->off);
    size_t n = nl ? (size_t)(nl - s) + 1 : r->len - r->off;
    r->off += n;
    r->num_line++;
    kg_buf_append(&r->line, s, n);
    /* normalize \r\n to \n; add a final \n when missing */
    if (r->line.len >= 2 && r->line.data[r->line.len - 2] == '\r' && r->line.data[r->line.len - 1] == '\n') {
        r->line.len--;
        r->line.data[r->line.len - 1] = '\n';
    }
    if (r->line.len == 0 || r->line.data[r->line.len - 1] != '\n') {
        /* last line without a newline: Go drops a trailing \r before EOF */
        if (r->line.len && r->line.data[r->line.len - 1] == '\r')
            r->line.len--;
        kg_buf_putc(&r->line, '\n');
    }
    return true;
}

typedef struct csv_record {
    kg_buf buf;        /* fields, NUL-separated */
    size_t starts[64]; /* offsets into buf */
    size_t nfields;
    size_t nfields_total; /* may exceed 64: only the first 64 are kept (a token row uses 4) */
} csv_record;

static void rec_end_field(csv_record *rec)
{
    kg_buf_putc(&rec->buf, '\0');
}

static void rec_start_field(csv_record *rec)
{
    if (rec->nfields < sizeof(rec->starts) / sizeof(rec->starts[0]))
        rec->starts[rec->nfields++] = rec->buf.len;
    rec->nfields_total++;
}

static char *csv_error(int rec_line, int line, int col, const char *what)
{
    char *m = NULL;
    int rc = rec_line != line
                 ? asprintf(&m, "record on line %d; parse error on line %d, column %d: %s", rec_line, line, col, what)
                 : asprintf(&m, "parse error on line %d, column %d: %s", line, col, what);
    return rc < 0 ? NULL : m;
}

#define ERR_BARE_QUOTE "bare \" in non-quoted-field"
#define ERR_QUOTE "extraneous or missing \" in quoted-field"

/* Returns 1 with a record, 0 at EOF, -1 with *errmsg set (malloc'd). */
static int csv_read_record(csv_reader *r, csv_record *rec, char **errmsg)
{
    kg_buf_reset(&rec->buf);
    rec->nfields = rec->nfields_total = 0;
    /* skip empty lines */
    for (;;) {
        if (!csv_read_line(r))
            return 0;
        if (!(r->line.len == 1 && r->line.data[0] == '\n'))
            break;
    }
    int rec_line = r->num_line;
    const char *line = r->line.data;
    size_t llen = r->line.len;
    size_t pos = 0; /* into line */
    int col = 1;    /* 1-based column of line[pos] */
    int cur_line = r->num_line;
    for (;;) {
        rec_start_field(rec);
        if (pos >= llen || line[pos] != '"') {
            /* non-quoted field */
            const char *f = line + pos;
            size_t rem = llen - pos;
            const char *comma = memchr(f, ',', rem);
            size_t flen = comma ? (size_t)(comma - f) : rem - 1; /* drop the \n */
            const char *q = memchr(f, '"', flen);
            if (q) {
                *errmsg = csv_error(rec_line, cur_line, col + (int)(q - f), ERR_BARE_QUOTE);
                return -1;
            }
            kg_buf_append(&rec->buf, f, flen);
            rec_end_field(rec);
            if (comma) {
                pos += flen + 1;
                col += (int)flen + 1;
                continue;
            }
            return 1;
        }
        /* quoted field */
        pos++;
        col++;
        for (;;) {
            const char *f = line + pos;
            size_t rem = llen - pos;
            const char *q = memchr(f, '"', rem);
            if (q) {
                size_t i = (size_t)(q - f);
                kg_buf_append(&rec->buf, f, i);
                pos += i + 1;
                col += (int)i + 1;
                char nx = pos < llen ? line[pos] : '\0';
                if (nx == '"') {
                    kg_buf_putc(&rec->buf, '"');
                    pos++;
                    col++;
                } else if (nx == ',') {
                    pos++;
                    col++;
                    rec_end_field(rec);
                    break; /* next field */
                } else if (pos < llen && line[pos] == '\n' && pos + 1 == llen) {
                    rec_end_field(rec);
                    return 1;
                } else {
                    *errmsg = csv_error(rec_line, cur_line, col - 1, ERR_QUOTE);
                    return -1;
                }
            } else if (rem > 0) {
                /* the field continues on the next line */
                kg_buf_append(&rec->buf, f, rem);
                col += (int)rem;
                /* keep the already collected record while reading the next line */
                if (!csv_read_line(r)) {
                    *errmsg = csv_error(rec_line, cur_line, col, ERR_QUOTE);
                    return -1;
                }
                line = r->line.data;
                llen = r->line.len;
                pos = 0;
                col = 1;
                cur_line = r->num_line;
            }
        }
    }
}

/* Go prints OS errors in lower case ("open x: no such file or directory"). */
static const char *go_strerror(int e, char *buf, size_t n)
{
    snprintf(buf, n, "%s", strerror(e));
    if (buf[0] >= 'A' && buf[0] <= 'Z')
        buf[0] = (char)(buf[0] - 'A' + 'a');
    return buf;
}

bool kg_authn_parse_token_file(const char *path, kg_authn_token_fn fn, void *ud, kg_error *err)
{
    size_t len = 0;
    char *data = kg_read_file(path, &len);
    char eb[128];
    if (!data)
        return kg_err_set(err, errno == ENOENT ? KG_ENOTFOUND : KG_EIO, "open %s: %s", path,
                          go_strerror(errno, eb, sizeof(eb)));
    csv_reader r = {.data = data, .len = len};
    kg_buf_init(&r.line);
    csv_record rec;
    memset(&rec, 0, sizeof(rec));
    kg_buf_init(&rec.buf);
    bool ok = true;
    int record_num = 0;
    for (;;) {
        char *msg = NULL;
        int rc = csv_read_record(&r, &rec, &msg);
        if (rc == 0)
            break;
        if (rc < 0) {
            ok = kg_err_set(err, KG_EINVAL, "token file '%s': %s", path, msg ? msg : "parse error");
            free(msg);
            break;
        }
        if (rec.nfields_total < 3) {
            ok = kg_err_set(err, KG_EINVAL,
                            "token file '%s' must have at least 3 columns (token, user name, user uid), found %zu",
                            path, rec.nfields_total);
            break;
        }
        record_num++;
        const char *f[4] = {NULL, NULL, NULL, NULL};
        for (size_t i = 0; i < 4 && i < rec.nfields; i++)
            f[i] = rec.buf.data + rec.starts[i];
        if (!*f[0]) {
            KG_WARN("empty token has been found in token file '%s', record number '%d'", path, record_num);
            continue;
        }
        const char *groups[256];
        size_t ng = 0;
        char *gcopy = NULL;
        if (rec.nfields >= 4) {
            /* strings.Split(record[3], ","): "" gives one empty group, like upstream */
            gcopy = strdup(f[3]);
            char *s = gcopy;
            for (;;) {
                char *c = strchr(s, ',');
                if (ng < sizeof(groups) / sizeof(groups[0]))
                    groups[ng++] = s;
                if (!c)
                    break;
                *c = '\0';
                s = c + 1;
            }
        }
        fn(ud, f[0], f[1], f[2], ng ? groups : NULL, ng);
        free(gcopy);
    }
    kg_buf_free(&r.line);
    kg_buf_free(&rec.buf);
    free(data);
    return ok;
}

/* ---- the authenticator ---- */

typedef struct tok_entry {
    uint64_t hash; /* keyed SipHash of the token */
    const char *token;
    size_t token_len;
    bool used;
    kg_user user;
} tok_entry;

struct kg_authn {
    kg_arena arena;
    tok_entry *tab;
    size_t cap; /* power of two */
    size_t count;
    bool anonymous;
    char *admin_token;
    const char *path;
    int record_num;
    uint64_t k0, k1; /* random SipHash key: bucket positions reveal nothing and cannot be aimed at */
    kg_token_authenticator more[KG_AUTHN_MAX_TOKEN_AUTHENTICATORS]; /* after the static tokens */
    size_t nmore;
};

/* SipHash-2-4 (Aumasson & Bernstein). A keyed hash costs ~20 ns; a SHA-256 through OpenSSL 3's EVP with the
 * implicit fetch cost ~3 us per request under two threads. */
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                                       \
    do {                                                                                                               \
        v0 += v1;                                                                                                      \
        v1 = ROTL(v1, 13);                                                                                             \
        v1 ^= v0;                                                                                                      \
        v0 = ROTL(v0, 32);                                                                                             \
        v2 += v3;                                                                                                      \
        v3 = ROTL(v3, 16);                                                                                             \
        v3 ^= v2;                                                                                                      \
        v0 += v3;                                                                                                      \
        v3 = ROTL(v3, 21);                                                                                             \
        v3 ^= v0;                                                                                                      \
        v2 += v1;                                                                                                      \
        v1 = ROTL(v1, 17);                                                                                             \
        v1 ^= v2;                                                                                                      \
        v2 = ROTL(v2, 32);                                                                                             \
    } while (0)

static uint64_t siphash24(uint64_t k0, uint64_t k1, const void *data, size_t len)
{
    const unsigned char *in = data;
    uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
    uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
    size_t end = len - (len % 8);
    for (size_t i = 0; i < end; i += 8) {
        uint64_t m = 0;
        for (int j = 7; j >= 0; j--)
            m = (m << 8) | in[i + (size_t)j];
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t j = 0; j < len % 8; j++)
        b |= (uint64_t)in[end + j] << (8 * j);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

/* Slot holding token, or the empty slot where it belongs. */
static tok_entry *tab_slot(tok_entry *tab, size_t cap, uint64_t h, const char *token, size_t len)
{
    size_t mask = cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        tok_entry *e = &tab[i];
        if (!e->used)
            return e;
        if (e->hash == h && e->token_len == len && CRYPTO_memcmp(e->token, token, len) == 0)
            return e;
    }
}

static void tab_grow(kg_authn *a)
{
    size_t ncap = a->cap ? a->cap * 2 : 64;
    tok_entry *nt = calloc(ncap, sizeof(*nt));
    if (!nt)
        abort();
    for (size_t i = 0; i < a->cap; i++)
        if (a->tab[i].used)
            *tab_slot(nt, ncap, a->tab[i].hash, a->tab[i].token, a->tab[i].token_len) = a->tab[i];
    free(a->tab);
    a->tab = nt;
    a->cap = ncap;
}

static const char *const anonymous_groups[] = {KG_GROUP_UNAUTHENTICATED};

static void add_user(kg_authn *a, const char *token, const char *name, const char *uid, const char *const *groups,
                     size_t ngroups, int record_num)
{
    if ((a->count + 1) * 2 > a->cap)
        tab_grow(a);
    size_t len = strlen(token);
    uint64_t h = siphash24(a->k0, a->k1, token, len);
    tok_entry *e = tab_slot(a->tab, a->cap, h, token, len);
    if (e->used) {
        if (record_num > 0)
            KG_WARN("duplicate token has been found in token file '%s', record number '%d'", a->path, record_num);
    } else {
        a->count++;
    }
    e->used = true;
    e->hash = h;
    e->token = kg_arena_strndup(&a->arena, token, len);
    e->token_len = len;
    e->user.name = kg_arena_strdup(&a->arena, name);
    e->user.uid = kg_arena_strdup(&a->arena, uid);
    /* AuthenticatedGroupAdder: append system:authenticated unless already authenticated/unauthenticated */
    bool has = false;
    for (size_t i = 0; i < ngroups; i++)
        if (!strcmp(groups[i], KG_GROUP_AUTHENTICATED) || !strcmp(groups[i], KG_GROUP_UNAUTHENTICATED))
            has = true;
    size_t n = ngroups + (has ? 0 : 1);
    const char **g = kg_arena_alloc(&a->arena, n * sizeof(*g));
    for (size_t i = 0; i < ngroups; i++)
        g[i] = kg_arena_strdup(&a->arena, groups[i]);
    if (!has)
        g[ngroups] = KG_GROUP_AUTHENTICATED;
    e->user.groups = g;
    e->user.ngroups = n;
}

static void on_token_row(void *ud, const char *token, const char *user, const char *uid, const char *const *groups,
                         size_t ngroups)
{
    kg_authn *a = ud;
    a->record_num++;
    add_user(a, token, user, uid, groups, ngroups, a->record_num);
}

static bool load_admin_token(kg_authn *a, const char *data_dir, kg_error *err)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/admin.token", data_dir);
    size_t len = 0;
    char *data = kg_read_file(path, &len);
    if (data) {
        kg_str t = kg_str_trim((kg_str){data, len});
        if (t.n == 0 || memchr(t.p, '\n', t.n) || memchr(t.p, ' ', t.n)) {
            free(data);
            return kg_err_set(err, KG_EINVAL, "admin token file %s is malformed (expected one token)", path);
        }
        a->admin_token = strndup(t.p, t.n);
        free(data);
        return true;
    }
    if (errno != ENOENT)
        return kg_err_set(err, KG_EIO, "read %s: %s", path, strerror(errno));
    unsigned char rnd[32];
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        return kg_err_set(err, KG_EINTERNAL, "generating the admin token: no randomness");
    char hex[65];
    for (size_t i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    OPENSSL_cleanse(rnd, sizeof(rnd));
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return kg_err_set(err, KG_EIO, "open %s: %s", tmp, strerror(errno));
    char line[66];
    memcpy(line, hex, 64);
    line[64] = '\n';
    bool ok = write(fd, line, 65) == 65 && fsync(fd) == 0;
    int e = errno;
    close(fd);
    if (!ok || rename(tmp, path) != 0) {
        e = ok ? errno : e;
        unlink(tmp);
        return kg_err_set(err, KG_EIO, "write %s: %s", path, strerror(e));
    }
    a->admin_token = strdup(hex);
    return true;
}

kg_authn *kg_authn_new(const kg_authn_config *cfg, kg_error *err)
{
    kg_authn *a = calloc(1, sizeof(*a));
    if (!a)
        abort();
    kg_arena_init(&a->arena, 0);
    a->anonymous = cfg->anonymous_auth;
    assert(cfg->ntoken_authenticators <= KG_AUTHN_MAX_TOKEN_AUTHENTICATORS);
    memcpy(a->more, cfg->token_authenticators, sizeof(a->more));
    a->nmore = cfg->ntoken_authenticators;
    unsigned char key[16];
    if (RAND_bytes(key, sizeof(key)) != 1) {
        kg_authn_free(a);
        kg_err_set(err, KG_EINTERNAL, "seeding the token table: no randomness");
        return NULL;
    }
    memcpy(&a->k0, key, 8);
    memcpy(&a->k1, key + 8, 8);
    if (cfg->token_auth_file) {
        a->path = cfg->token_auth_file;
        if (!kg_authn_parse_token_file(cfg->token_auth_file, on_token_row, a, err)) {
            kg_authn_free(a);
            return NULL;
        }
        a->path = NULL;
    }
    if (cfg->data_dir) {
        if (!load_admin_token(a, cfg->data_dir, err)) {
            kg_authn_free(a);
            return NULL;
        }
        static const char *const admin_groups[] = {KG_GROUP_MASTERS};
        size_t before = a->count;
        add_user(a, a->admin_token, KG_ADMIN_USER, "", admin_groups, 1, 0);
        /* the admin token is not counted among the static tokens (unless a file row used it too) */
        if (a->count > before)
            a->count--;
    }
    return a;
}

void kg_authn_free(kg_authn *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->cap; i++)
        if (a->tab[i].used)
            OPENSSL_cleanse((void *)a->tab[i].token, a->tab[i].token_len);
    free(a->tab);
    if (a->admin_token) {
        OPENSSL_cleanse(a->admin_token, strlen(a->admin_token));
        free(a->admin_token);
    }
    kg_arena_free(&a->arena);
    free(a);
}

const char *kg_authn_admin_token(const kg_authn *a)
{
    return a->admin_token;
}
size_t kg_authn_token_count(const kg_authn *a)
{
    return a->count;
}

static void set_anonymous(kg_user *out)
{
    memset(out, 0, sizeof(*out));
    out->name = KG_USER_ANONYMOUS;
    out->uid = "";
    out->groups = anonymous_groups;
    out->ngroups = 1;
}

/* The token authenticators after the static tokens; system:authenticated appended as for every user. */
static kg_authn_result authenticate_more(const kg_authn *an, const char *token, size_t len, kg_arena *ar, kg_user *out)
{
    for (size_t i = 0; i < an->nmore; i++) {
        if (!an->more[i].fn) /* an unused slot */
            continue;
        const char *reason = NULL;
        kg_user u = {0};
        kg_token_verdict v = an->more[i].fn(an->more[i].ud, token, len, ar, &u, &reason);
        if (v == KG_TOKEN_NOT_MINE)
            continue;
        if (v == KG_TOKEN_INVALID) {
            if (reason)
                KG_V(2, "authn: token rejected: %s", reason);
            return KG_AUTHN_UNAUTHORIZED;
        }
        if (!kg_user_in_group(&u, KG_GROUP_AUTHENTICATED) && !kg_user_in_group(&u, KG_GROUP_UNAUTHENTICATED)) {
            const char **g = kg_arena_alloc(ar, (u.ngroups + 1) * sizeof(*g));
            for (size_t j = 0; j < u.ngroups; j++)
                g[j] = u.groups[j];
            g[u.ngroups] = KG_GROUP_AUTHENTICATED;
            u.groups = g;
            u.ngroups++;
        }
        *out = u;
        return KG_AUTHN_OK;
    }
    return KG_AUTHN_UNAUTHORIZED;
}

kg_authn_result kg_authn_authenticate(const kg_authn *an, const char *authorization, kg_arena *ar, kg_user *out)
{
    /* bearertoken.go: TrimSpace, SplitN(" ", 3), scheme "bearer" case-insensitively, non-empty token */
    const char *token = NULL;
    size_t tlen = 0;
    if (authorization) {
        kg_str h = kg_str_trim(kg_str_c(authorization));
        const char *sp = h.n ? memchr(h.p, ' ', h.n) : NULL;
        if (sp && (size_t)(sp - h.p) == 6 && strncasecmp(h.p, "bearer", 6) == 0) {
            const char *t = sp + 1;
            const char *end = h.p + h.n;
            const char *sp2 = memchr(t, ' ', (size_t)(end - t));
            tlen = (size_t)((sp2 ? sp2 : end) - t);
            if (tlen > 0)
                token = t;
        }
    }
    if (!token) {
        if (an->anonymous) {
            set_anonymous(out);
            return KG_AUTHN_ANONYMOUS;
        }
        return KG_AUTHN_UNAUTHORIZED;
    }
    if (!an->cap)
        return authenticate_more(an, token, tlen, ar, out);
    uint64_t h = siphash24(an->k0, an->k1, token, tlen);
    const tok_entry *e = tab_slot(an->tab, an->cap, h, token, tlen);
    if (!e->used)
        return authenticate_more(an, token, tlen, ar, out);
    *out = e->user;
    return KG_AUTHN_OK;
}
