/* The audit log backend (kube-apiserver's --audit-log-path with --audit-log-maxsize/-maxbackup/-maxage; lumberjack's
 * rotation).
 *
 * Mode "blocking" (upstream's default for the log backend): the request's thread appends its event line itself,
 * under a per-log mutex held only for one write(2) (and, when the file is full, for the rotation). "-" writes to
 * standard output.
 *
 * Rotation as lumberjack (UTC): before a write that would take the file past maxsize MB (0: 100 MB), the file is
 * renamed to <name>-<2006-01-02T15-04-05.000>.<ext> beside it and a new one opened (mode 0600); then backups beyond
 * maxbackup (0: keep all) are removed oldest first, and backups older than maxage days (0: keep) by the timestamp in
 * their name. */
#ifndef KG_SERVER_AUDIT_LOG_H
#define KG_SERVER_AUDIT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct kg_audit_log kg_audit_log;

typedef struct kg_audit_log_config {
    const char *path;  /* "-": stdout */
    int max_size_mb;   /* 0: 100 */
    int max_backups;   /* 0: no limit */
    int max_age_days;  /* 0: no limit */
    int64_t max_bytes; /* tests: overrides max_size_mb when > 0 */
} kg_audit_log_config;

/* Opens (creates 0600) the file; errors name it. */
kg_audit_log *kg_audit_log_open(const kg_audit_log_config *cfg, kg_error *err);
void kg_audit_log_close(kg_audit_log *l);
/* Append one line (a complete event, newline included). Thread-safe. */
void kg_audit_log_write(kg_audit_log *l, const char *line, size_t len);

#endif
