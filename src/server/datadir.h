/* The data directory's owner: one `kgate serve` per data dir (issue 20).
 *
 * kg_datadir_acquire creates the directory (0700, and sets 0700 on an existing one whatever its mode: it holds
 * keys, the admin token and Secrets), then takes an exclusive flock on <dir>/kgate.lock and writes its pid
 * there. A second server on the same directory fails at once with
 *   data dir <dir> is in use by another kgate serve (pid N)
 * before it touches any file, so certificates, the token and admin.kubeconfig are written by the owner only.
 * The lock is released by kg_datadir_release or when the process dies (kill -9 included): no stale lock. */
#ifndef KG_SERVER_DATADIR_H
#define KG_SERVER_DATADIR_H

#include "base/error.h"

/* Returns the lock's file descriptor (keep it open while serving), or -1 with err set. */
int kg_datadir_acquire(const char *dir, kg_error *err);
void kg_datadir_release(int fd);

#endif
