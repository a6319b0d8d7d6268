/* formats.h - the named formats of the Kubernetes format CEL library (k8s.io/apiserver library/format.go):
 * format.dns1123Label() ... format.datetime(), format.named(name), <Format>.validate(s). Validation messages are
 * apimachinery's (util/validation) and kube-openapi strfmt's. */
#ifndef KG_CEL_K8S_FORMATS_H
#define KG_CEL_K8S_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"

typedef struct cel_k8s_format {
    const char *key;    /* CEL name: "dns1123Label" (format.dns1123Label(), format.named("dns1123Label")) */
    const char *name;   /* upstream Format.Name: "DNS1123Label" */
    int max_regex_size; /* for the cost of validate() */
    /* Appends error strings (arena) to errs (capacity 4); returns their count, 0 = valid. */
    size_t (*validate)(kg_arena *a, const char *s, size_t n, const char **errs);
} cel_k8s_format;

extern const cel_k8s_format cel_k8s_formats[];
extern const size_t cel_k8s_nformats;
const cel_k8s_format *cel_k8s_format_lookup(const char *key, size_t n);

/* apimachinery validators (exposed for tests and reuse). */
size_t cel_k8s_is_dns1123_label(kg_arena *a, const char *s, size_t n, const char **errs);
size_t cel_k8s_is_dns1123_subdomain(kg_arena *a, const char *s, size_t n, const char **errs);
size_t cel_k8s_is_dns1035_label(kg_arena *a, const char *s, size_t n, const char **errs);
size_t cel_k8s_is_qualified_name(kg_arena *a, const char *s, size_t n, const char **errs);
size_t cel_k8s_is_valid_label_value(kg_arena *a, const char *s, size_t n, const char **errs);

#endif
