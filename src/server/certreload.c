/* Serving certificate reload (see certreload.h). */
#include "server/certreload.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/log.h"
#include "base/str.h"

typedef struct fstamp {
    bool ok;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
} fstamp;

struct kg_cert_reloader {
    kg_tls_creds *creds;
    char *cert_file, *key_file;
    int interval_ms;
    fstamp cert_st, key_st;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    uint64_t reloaded, failed;
};

static fstamp stamp(const char *path)
{
    struct stat st;
    fstamp f = {0};
    if (stat(path, &st))
        return f;
    f = (fstamp){true, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
    return f;
}

static bool same(const fstamp *a, const fstamp *b)
{
    return a->ok == b->ok && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void check(kg_cert_reloader *r)
{
    fstamp c = stamp(r->cert_file), k = stamp(r->key_file);
    if (same(&c, &r->cert_st) && same(&k, &r->key_st))
        return;
    r->cert_st = c;
    r->key_st = k;
    size_t n;
    char *cert = kg_read_file(r->cert_file, &n);
    int cert_errno = errno;
    char *key = kg_read_file(r->key_file, &n);
    int key_errno = errno;
    KG_ERROR_DECL(err);
    bool ok = false;
    if (!cert)
        kg_err_set(&err, KG_EIO, "reading %s: %s", r->cert_file, strerror(cert_errno));
    else if (!key)
        kg_err_set(&err, KG_EIO, "reading %s: %s", r->key_file, strerror(key_errno));
    else
        ok = kg_tls_creds_set(r->creds, cert, key, &err);
    if (key) {
        memset(key, 0, strlen(key));
        free(key);
    }
    free(cert);
    pthread_mutex_lock(&r->mu);
    if (ok)
        r->reloaded++;
    else
        r->failed++;
    pthread_mutex_unlock(&r->mu);
    if (ok)
        KG_INFO("serving certificate reloaded from %s and %s", r->cert_file, r->key_file);
    else
        KG_WARN("serving certificate not reloaded, keeping the current one: %s", err.msg);
}

static void *run(void *arg)
{
    kg_cert_reloader *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += r->interval_ms / 1000;
        ts.tv_nsec += (long)(r->interval_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
        if (r->stop)
            break;
        pthread_mutex_unlock(&r->mu);
        check(r);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

kg_cert_reloader *kg_cert_reloader_start(kg_tls_creds *creds, const char *cert_file, const char *key_file,
                                         int interval_ms)
{
    kg_cert_reloader *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    r->creds = creds;
    r->cert_file = strdup(cert_file);
    r->key_file = strdup(key_file);
    r->interval_ms = interval_ms > 0 ? interval_ms : 1000;
    r->cert_st = stamp(cert_file); /* the pair the server started with */
    r->key_st = stamp(key_file);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    if (pthread_create(&r->thread, NULL, run, r)) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        free(r->cert_file);
        free(r->key_file);
        free(r);
        return NULL;
    }
    return r;
}

void kg_cert_reloader_counts(kg_cert_reloader *r, uint64_t *reloaded, uint64_t *failed)
{
    pthread_mutex_lock(&r->mu);
    *reloaded = r->reloaded;
    *failed = r->failed;
    pthread_mutex_unlock(&r->mu);
}

void kg_cert_reloader_stop(kg_cert_reloader *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r->cert_file);
    free(r->key_file);
    free(r);
}
