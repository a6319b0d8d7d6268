/* Error values: a code and a human-readable message, filled by the failing function.
 * Codes are coarse categories; HTTP/Kubernetes mapping happens in src/meta/status. */
#ifndef KG_BASE_ERROR_H
#define KG_BASE_ERROR_H

#include <stdbool.h>

typedef enum kg_errcode {
    KG_OK = 0,
    KG_EINVAL,     /* bad input (parse errors, validation) */
    KG_ENOTFOUND,  /* object / file / key not found */
    KG_EEXIST,     /* already exists */
    KG_ECONFLICT,  /* optimistic concurrency conflict */
    KG_EGONE,      /* resource version too old (compacted) */
    KG_ETOOLARGE,  /* size limit exceeded */
    KG_ETIMEOUT,   /* deadline passed */
    KG_EIO,        /* I/O or storage failure */
    KG_EFORBIDDEN, /* denied (authz, admission) */
    KG_EUNSUPPORTED,
    KG_EINTERNAL,
} kg_errcode;

#define KG_ERR_MSG_MAX 1024

typedef struct kg_error {
    kg_errcode code;
    char msg[KG_ERR_MSG_MAX];
} kg_error;

/* Set err (if non-NULL) and return false, so callers can write `return kg_err_set(err, ...)`. */
bool kg_err_set(kg_error *err, kg_errcode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefix an existing message: "<prefix>: <old message>". */
bool kg_err_prefix(kg_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kg_err_clear(kg_error *err);
/* Declare an empty kg_error without zeroing its KG_ERR_MSG_MAX message buffer (`= {0}` writes all of it): for hot
 * paths. */
#define KG_ERROR_DECL(name)                                                                                            \
    kg_error name;                                                                                                     \
    name.code = KG_OK;                                                                                                 \
    name.msg[0] = 0
const char *kg_errcode_name(kg_errcode code);

#endif
