/* k8s_util.h - small helpers shared by the Kubernetes CEL libraries: Go-compatible string quoting (%q) and
 * arena-allocated error texts. */
#ifndef KG_CEL_K8S_UTIL_H
#define KG_CEL_K8S_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"

/* Appends s quoted as Go's strconv.Quote does (printable runes kept, \a\b\f\n\r\t\v, \xNN, \uNNNN escapes). */
void cel_k8s_goquote_buf(kg_buf *b, const char *s, size_t n);
/* The same, NUL-terminated in the arena. */
char *cel_k8s_goquote(kg_arena *a, const char *s, size_t n);
/* printf into the arena and store in *err (when err != NULL); returns false for `return cel_k8s_fail(...)`. */
bool cel_k8s_fail(kg_arena *a, const char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
