/* The kubelet keeps each provider's responses in an in-memory expiring store keyed by (baseKey, saKey). A command
 * runs many times, so kgate keeps that store on disk: one JSON file per entry, named by the sha256 of the
 * provider's identity (name, apiVersion, args, env) and the keys; files 0600 in a 0700 directory, written
 * atomically (temp file + rename). Corrupted files are ignored; expired ones are removed when met, and a full purge
 * runs at most every 15 minutes, as upstream's store does. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"

#define PURGE_INTERVAL_NS (INT64_C(15) * 60 * KG_CRED_SECOND)

static void lp(EVP_MD_CTX *h, const char *s)
{
    uint64_t n = strlen(s);
    unsigned char be[8];
    for (int i = 7; i >= 0; i--) {
        be[i] = (unsigned char)(n & 0xff);
        n >>= 8;
    }
    EVP_DigestUpdate(h, be, 8);
    EVP_DigestUpdate(h, s, strlen(s));
}

char *kg_credentialprovider_cache_file(kg_arena *a, const kg_cred_provider *p, const char *base_key, const char *sa_key)
{
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    EVP_DigestInit_ex(h, EVP_sha256(), NULL);
    lp(h, "kgate-credential-cache-v1");
    lp(h, p->name);
    lp(h, p->api_version);
    for (size_t i = 0; i < p->n_args; i++) {
        lp(h, "arg");
        lp(h, p->args[i]);
    }
    for (size_t i = 0; i < p->n_env; i++) {
        lp(h, "env");
        lp(h, p->env[i].name);
        lp(h, p->env[i].value);
    }
    lp(h, "key");
    lp(h, base_key);
    lp(h, sa_key ? sa_key : "");
    unsigned char md[32];
    unsigned int n = 0;
    EVP_DigestFinal_ex(h, md, &n);
    EVP_MD_CTX_free(h);
    char *hex = kg_arena_alloc(a, 2 * n + 6);
    for (unsigned i = 0; i < n; i++)
        sprintf(hex + 2 * i, "%02x", md[i]);
    strcpy(hex + 2 * n, ".json");
    return hex;
}

char *kg_credentialprovider_default_cache_dir(kg_arena *a)
{
    const char *x = getenv("XDG_CACHE_HOME");
    if (x && x[0] == '/')
        return kg_arena_sprintf(a, "%s/kgate/credentials", x);
    const char *home = getenv("HOME");
    if (home && *home)
        return kg_arena_sprintf(a, "%s/.cache/kgate/credentials", home);
    return NULL;
}

/* A valid entry's auth map, or NULL. */
static kg_json *entry_auth(const kg_json *doc, const kg_cred_provider *p, const char *base_key, const char *sa_key,
                           int64_t *expires)
{
    if (!kg_json_is(doc, KG_JSON_OBJECT))
        return NULL;
    const char *prov = kg_json_get_str(doc, "provider"), *bk = kg_json_get_str(doc, "baseKey"),
               *sk = kg_json_get_str(doc, "saKey");
    kg_json *exp = kg_json_get(doc, "expiresAt"), *auth = kg_json_get(doc, "auth");
    if (!prov || !bk || !sk || !kg_json_is(exp, KG_JSON_INT) || !kg_json_is(auth, KG_JSON_OBJECT))
        return NULL;
    if (p && (strcmp(prov, p->name) || strcmp(bk, base_key) || strcmp(sk, sa_key ? sa_key : "")))
        return NULL;
    for (uint32_t i = 0; i < auth->len; i++) {
        kg_json *e = auth->u.members[i].val;
        if (!kg_json_is(e, KG_JSON_OBJECT) || !kg_json_get_str(e, "username") || !kg_json_get_str(e, "password"))
            return NULL;
    }
    *expires = exp->u.i;
    return auth;
}

static void purge(kg_arena *a, const char *dir, int64_t now)
{
    char *marker = kg_arena_sprintf(a, "%s/.last-purge", dir);
    struct stat st;
    if (stat(marker, &st) == 0) {
        int64_t last = (int64_t)st.st_mtim.tv_sec * KG_CRED_SECOND + st.st_mtim.tv_nsec;
        if (now - last < PURGE_INTERVAL_NS && now >= last)
            return;
    }
    FILE *f = fopen(marker, "w");
    if (f)
        fclose(f);
    chmod(marker, 0600);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] != '.' && kg_str_has_suffix(de->d_name, ".lock")) {
            char *lpath = kg_arena_sprintf(a, "%s/%s", dir, de->d_name);
            struct stat lst;
            if (stat(lpath, &lst) == 0 &&
                now - ((int64_t)lst.st_mtim.tv_sec * KG_CRED_SECOND + lst.st_mtim.tv_nsec) > 4 * PURGE_INTERVAL_NS)
                unlink(lpath);
            continue;
        }
        if (de->d_name[0] == '.' || !kg_str_has_suffix(de->d_name, ".json"))
            continue;
        char *path = kg_arena_sprintf(a, "%s/%s", dir, de->d_name);
        size_t len;
        char *data = kg_read_file(path, &len);
        if (!data)
            continue;
        kg_arena t;
        kg_arena_init(&t, 0);
        kg_json *doc = kg_json_parse(&t, data, len, NULL);
        int64_t exp = 0;
        if (!doc || !entry_auth(doc, NULL, NULL, NULL, &exp) || now > exp)
            unlink(path);
        kg_arena_free(&t);
        free(data);
    }
    closedir(d);
}

/* Only a directory of ours that nobody else can write is trusted: another user could plant credentials there. */
static bool dir_trusted(const char *dir)
{
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

bool kg_credentialprovider_cache_get(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *base_key,
                                     const char *sa_key, int64_t now, kg_json **auth)
{
    *auth = NULL;
    if (!dir || !dir_trusted(dir))
        return false;
    purge(a, dir, now);
    char *path = kg_arena_sprintf(a, "%s/%s", dir, kg_credentialprovider_cache_file(a, p, base_key, sa_key));
    size_t len;
    char *data = kg_read_file(path, &len);
    if (!data)
        return false;
    kg_json *doc = kg_json_parse(a, data, len, NULL);
    free(data);
    int64_t exp = 0;
    kg_json *au = doc ? entry_auth(doc, p, base_key, sa_key, &exp) : NULL;
    if (!au) {
        KG_V(4, "ignoring corrupted credential cache file %s", path);
        return false;
    }
    if (now > exp) {
        unlink(path);
        return false;
    }
    *auth = au;
    return true;
}

static void remove_entries(kg_arena *a, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (kg_str_has_suffix(de->d_name, ".json") || !strncmp(de->d_name, ".tmp-", 5))
            unlink(kg_arena_sprintf(a, "%s/%s", dir, de->d_name));
    closedir(d);
}

static bool mkdirs(char *path)
{
    for (char *c = path + 1; *c; c++) {
        if (*c != '/')
            continue;
        *c = 0;
        int r = mkdir(path, 0700);
        *c = '/';
        if (r != 0 && errno != EEXIST)
            return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

bool kg_credentialprovider_cache_put(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *base_key,
                                     const char *sa_key, int64_t expires_ns, const kg_json *auth, kg_error *err)
{
    char *d = kg_arena_strdup(a, dir);
    if (!mkdirs(d))
        return kg_err_set(err, KG_EIO, "creating cache directory %s: %s", dir, strerror(errno));
    struct stat st;
    if (stat(dir, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0077)) {
        /* tighten our own directory; entries written while others could write there are not kept */
        bool loose = st.st_mode & 022;
        chmod(dir, 0700);
        if (loose)
            remove_entries(a, dir);
    }
    if (!dir_trusted(dir))
        return kg_err_set(err, KG_EFORBIDDEN, "cache directory %s is not owned by this user or is writable by others",
                          dir);
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "provider", kg_json_new_str(a, p->name));
    kg_json_set(a, doc, "baseKey", kg_json_new_str(a, base_key));
    kg_json_set(a, doc, "saKey", kg_json_new_str(a, sa_key ? sa_key : ""));
    kg_json_set(a, doc, "expiresAt", kg_json_new_int(a, expires_ns));
    kg_json_set(a, doc, "auth", kg_json_clone(a, auth));
    size_t len;
    char *text = kg_json_to_string(a, doc, 0, &len);
    char *tmp = kg_arena_sprintf(a, "%s/.tmp-XXXXXX", dir);
    int fd = mkstemp(tmp); /* 0600 */
    if (fd < 0)
        return kg_err_set(err, KG_EIO, "creating cache file in %s: %s", dir, strerror(errno));
    fchmod(fd, 0600);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return kg_err_set(err, KG_EIO, "writing cache file %s: %s", tmp, strerror(e));
        }
        off += (size_t)w;
    }
    close(fd);
    char *final = kg_arena_sprintf(a, "%s/%s", dir, kg_credentialprovider_cache_file(a, p, base_key, sa_key));
    if (rename(tmp, final) != 0) {
        int e = errno;
        unlink(tmp);
        return kg_err_set(err, KG_EIO, "renaming cache file to %s: %s", final, strerror(e));
    }
    return true;
}

int kg_credentialprovider_cache_lock(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *image,
                                     const char *sa_key, int64_t timeout_ms)
{
    if (!dir)
        return -1;
    char *d = kg_arena_strdup(a, dir);
    if (!dir_trusted(dir) && (!mkdirs(d) || !dir_trusted(dir)))
        return -1;
    char *name = kg_credentialprovider_cache_file(a, p, kg_arena_sprintf(a, "singleflight\n%s", image), sa_key);
    strcpy(name + strlen(name) - 5, ".lock");
    int fd = open(kg_arena_sprintf(a, "%s/%s", dir, name), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t waited = (int64_t)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited >= timeout_ms)
            break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    close(fd);
    return -1;
}

void kg_credentialprovider_cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}
