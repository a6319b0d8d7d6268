/* Disk space reserve (see reserve.h). */
#include "storage/reserve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/log.h"

static bool allocate(kg_reserve *r)
{
    int fd = open(r->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && st.st_size == r->size && (int64_t)st.st_blocks * 512 >= r->size;
    if (!ok) {
        int rc = posix_fallocate(fd, 0, (off_t)r->size);
        ok = rc == 0 && ftruncate(fd, (off_t)r->size) == 0;
        if (!ok)
            KG_V(2, "storage: cannot allocate the %lld-byte reserve %s: %s", (long long)r->size, r->path,
                 strerror(rc ? rc : errno));
    }
    close(fd);
    if (!ok)
        unlink(r->path); /* a partial reserve would only hold space nobody can use */
    return ok;
}

void kg_reserve_init(kg_reserve *r, const char *dir, int64_t size)
{
    memset(r, 0, sizeof *r);
    if (size < 0 || !dir)
        return;
    r->size = size ? size : KG_RESERVE_DEFAULT_BYTES;
    size_t n = strlen(dir) + sizeof "/kgate.reserve";
    r->path = malloc(n);
    if (!r->path)
        abort();
    snprintf(r->path, n, "%s/kgate.reserve", dir);
    r->present = allocate(r);
    if (!r->present)
        KG_WARN("storage: no room for the %lld-byte disk reserve %s: deletes may fail while the disk is full",
                (long long)r->size, r->path);
}

void kg_reserve_release(kg_reserve *r)
{
    if (!r->path || !r->present)
        return;
    unlink(r->path);
    r->present = false;
    r->released = true;
}

bool kg_reserve_refill(kg_reserve *r)
{
    if (!r->path)
        return false;
    if (r->present)
        return true;
    struct statvfs vfs;
    if (statvfs(r->path, &vfs) != 0) {
        /* the file is gone: ask about its directory */
        char *slash = strrchr(r->path, '/');
        *slash = 0;
        int rc = statvfs(r->path, &vfs);
        *slash = '/';
        if (rc != 0)
            return false;
    }
    if ((int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize < r->size + KG_RESERVE_MARGIN_BYTES)
        return false;
    r->present = allocate(r);
    if (r->present && r->released)
        KG_INFO("storage: disk space is back: the %lld-byte reserve %s is allocated again, all writes accepted",
                (long long)r->size, r->path);
    if (r->present)
        r->released = false;
    return r->present;
}

void kg_reserve_free(kg_reserve *r)
{
    free(r->path);
    memset(r, 0, sizeof *r);
}
