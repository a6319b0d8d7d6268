/* The audit log backend (see audit_log.h). */
#include "server/audit_log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

struct kg_audit_log {
    pthread_mutex_t mu;
    int fd;
    bool is_stdout;
    char *path;
    char *dir, *prefix, *ext; /* <dir>/<prefix>-<timestamp><ext> */
    int64_t size, max_bytes;
    int max_backups, max_age_days;
};

static int open_file(const char *path)
{
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

kg_audit_log *kg_audit_log_open(const kg_audit_log_config *cfg, kg_error *err)
{
    kg_audit_log *l = calloc(1, sizeof(*l));
    if (!l)
        abort();
    pthread_mutex_init(&l->mu, NULL);
    l->max_backups = cfg->max_backups;
    l->max_age_days = cfg->max_age_days;
    l->max_bytes = cfg->max_bytes > 0 ? cfg->max_bytes : (int64_t)(cfg->max_size_mb ? cfg->max_size_mb : 100) << 20;
    if (!strcmp(cfg->path, "-")) {
        l->is_stdout = true;
        l->fd = STDOUT_FILENO;
        return l;
    }
    l->path = strdup(cfg->path);
    l->fd = open_file(l->path);
    if (l->fd < 0) {
        kg_err_set(err, KG_EIO, "could not open audit log file %s: %s", cfg->path, strerror(errno));
        free(l->path);
        free(l);
        return NULL;
    }
    struct stat st;
    l->size = fstat(l->fd, &st) == 0 ? st.st_size : 0;
    const char *slash = strrchr(l->path, '/');
    l->dir = slash ? strndup(l->path, (size_t)(slash - l->path) + (slash == l->path)) : strdup(".");
    const char *base = slash ? slash + 1 : l->path;
    const char *dot = strrchr(base, '.');
    l->prefix = dot ? strndup(base, (size_t)(dot - base)) : strdup(base);
    l->ext = strdup(dot ? dot : "");
    return l;
}

void kg_audit_log_close(kg_audit_log *l)
{
    if (!l)
        return;
    if (!l->is_stdout && l->fd >= 0)
        close(l->fd);
    pthread_mutex_destroy(&l->mu);
    free(l->path);
    free(l->dir);
    free(l->prefix);
    free(l->ext);
    free(l);
}

/* The backup timestamp of name (<prefix>-<2006-01-02T15-04-05.000><ext>) in ms, or -1 when name is not a backup. */
static int64_t backup_time(const kg_audit_log *l, const char *name)
{
    size_t pl = strlen(l->prefix), el = strlen(l->ext), n = strlen(name);
    if (n != pl + 1 + 23 + el || strncmp(name, l->prefix, pl) || name[pl] != '-' || strcmp(name + n - el, l->ext))
        return -1;
    struct tm tm = {0};
    int ms = 0;
    char ts[24];
    memcpy(ts, name + pl + 1, 23);
    ts[23] = 0;
    if (sscanf(ts, "%4d-%2d-%2dT%2d-%2d-%2d.%3d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &ms) != 7)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm) * 1000 + ms;
}

typedef struct backup {
    int64_t t;
    char *name;
} backup;

static int newest_first(const void *x, const void *y)
{
    int64_t a = ((const backup *)x)->t, b = ((const backup *)y)->t;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* lumberjack's millRunOnce: keep max_backups newest, drop those older than max_age_days. */
static void prune(kg_audit_log *l, int64_t now_ms)
{
    if (!l->max_backups && !l->max_age_days)
        return;
    DIR *d = opendir(l->dir);
    if (!d)
        return;
    backup *bs = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        int64_t t = backup_time(l, de->d_name);
        if (t < 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            bs = realloc(bs, cap * sizeof(*bs));
            if (!bs)
                abort();
        }
        bs[n++] = (backup){t, strdup(de->d_name)};
    }
    closedir(d);
    qsort(bs, n, sizeof(*bs), newest_first);
    int64_t cutoff = l->max_age_days ? now_ms - (int64_t)l->max_age_days * 86400000 : INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if ((l->max_backups && i >= (size_t)l->max_backups) || bs[i].t < cutoff) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", l->dir, bs[i].name);
            unlink(p);
        }
        free(bs[i].name);
    }
    free(bs);
}

static void rotate_locked(kg_audit_log *l)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[32], dst[4200];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H-%M-%S", &tm);
    snprintf(dst, sizeof dst, "%s/%s-%s.%03d%s", l->dir, l->prefix, ts, (int)(tv.tv_usec / 1000), l->ext);
    close(l->fd);
    if (rename(l->path, dst) != 0)
        KG_WARN("audit log: rename %s to %s: %s", l->path, dst, strerror(errno));
    l->fd = open_file(l->path);
    if (l->fd < 0)
        KG_WARN("audit log: open %s: %s", l->path, strerror(errno));
    l->size = 0;
    prune(l, (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000);
}

void kg_audit_log_write(kg_audit_log *l, const char *line, size_t len)
{
    pthread_mutex_lock(&l->mu);
    if (!l->is_stdout && l->size > 0 && l->size + (int64_t)len > l->max_bytes)
        rotate_locked(l);
    for (size_t off = 0; l->fd >= 0 && off < len;) {
        ssize_t w = write(l->fd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            KG_WARN("audit log: write: %s", strerror(errno)); /* upstream logs the error and drops the event */
            break;
        }
        off += (size_t)w;
        l->size += w;
    }
    pthread_mutex_unlock(&l->mu);
}
