/* Data directory ownership (see datadir.h). */
#include "server/datadir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkdir_p(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0700) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    if (mkdir(tmp, 0700) && errno != EEXIST)
        return -1;
    return 0;
}

int kg_datadir_acquire(const char *dir, kg_error *err)
{
    if (mkdir_p(dir)) {
        kg_err_set(err, KG_EIO, "cannot create data dir %s: %s", dir, strerror(errno));
        return -1;
    }
    if (chmod(dir, 0700) != 0) {
        kg_err_set(err, KG_EIO, "data dir %s: chmod 0700: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/kgate.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        kg_err_set(err, KG_EIO, "data dir %s: open %s: %s", dir, path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            char buf[32] = {0};
            ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
            long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
            if (pid > 0)
                kg_err_set(err, KG_EIO, "data dir %s is in use by another kgate serve (pid %ld)", dir, pid);
            else
                kg_err_set(err, KG_EIO, "data dir %s is in use by another kgate serve", dir);
        } else {
            kg_err_set(err, KG_EIO, "data dir %s: flock %s: %s", dir, path, strerror(e));
        }
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    /* best effort: the pid only makes the message of a second server more useful (a full disk must not stop
     * the owner from starting) */
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        (void)0;
    return fd;
}

void kg_datadir_release(int fd)
{
    if (fd >= 0)
        close(fd); /* drops the flock */
}
