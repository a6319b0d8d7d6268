/* Name and label validation with upstream messages (k8s.io/apimachinery/pkg/util/validation,
 * pkg/api/validation, pkg/api/validation/path, apiserver storage/names).
 *
 * The Is* functions fill a kg_name_errs with the upstream message strings (static, never freed) and return true
 * when the value is valid. Pass NULL for errs when only the verdict matters. */
#ifndef KG_META_NAMES_H
#define KG_META_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "json/json.h"
#include "meta/status.h"

#define KG_NAME_MAX_ERRS 6

typedef struct kg_name_errs {
    size_t n;
    const char *msg[KG_NAME_MAX_ERRS];
} kg_name_errs;

#define KG_DNS1123_LABEL_MAX 63
#define KG_DNS1123_SUBDOMAIN_MAX 253
#define KG_DNS1035_LABEL_MAX 63
#define KG_QUALIFIED_NAME_MAX 63
#define KG_LABEL_VALUE_MAX 63
#define KG_TOTAL_ANNOTATION_SIZE_LIMIT (256 * 1024)
#define KG_MAX_GENERATED_NAME_LENGTH 58

/* Upstream messages. */
#define KG_MSG_EMPTY "must be non-empty"
#define KG_MSG_NEGATIVE "must be greater than or equal to 0"
#define KG_MSG_PORT_NUM "must be between 1 and 65535, inclusive"
#define KG_MSG_DNS1123_LABEL                                                                                           \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "    \
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "                     \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define KG_MSG_DNS1123_SUBDOMAIN                                                                                       \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "         \
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "                  \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define KG_MSG_DNS1035_LABEL                                                                                           \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "            \
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "                \
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define KG_MSG_QUALIFIED_NAME                                                                                          \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "           \
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "                            \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define KG_MSG_LABEL_VALUE                                                                                             \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "          \
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "       \
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

/* IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName (label/annotation keys, finalizers:
 * "[prefix/]name"), IsValidLabelValue. The _n forms take a length (the value may contain NUL bytes, as a CEL
 * string can); they are the one implementation, also behind the CEL format library (cel/k8s/formats.c). */
bool kg_is_dns1123_label_n(const char *s, size_t n, kg_name_errs *errs);
bool kg_is_dns1123_subdomain_n(const char *s, size_t n, kg_name_errs *errs);
bool kg_is_dns1035_label_n(const char *s, size_t n, kg_name_errs *errs);
bool kg_is_qualified_name_n(const char *s, size_t n, kg_name_errs *errs);
bool kg_is_valid_label_value_n(const char *s, size_t n, kg_name_errs *errs);
static inline bool kg_is_dns1123_label(const char *s, kg_name_errs *errs)
{
    return kg_is_dns1123_label_n(s, __builtin_strlen(s), errs);
}
static inline bool kg_is_dns1123_subdomain(const char *s, kg_name_errs *errs)
{
    return kg_is_dns1123_subdomain_n(s, __builtin_strlen(s), errs);
}
static inline bool kg_is_dns1035_label(const char *s, kg_name_errs *errs)
{
    return kg_is_dns1035_label_n(s, __builtin_strlen(s), errs);
}
static inline bool kg_is_qualified_name(const char *s, kg_name_errs *errs)
{
    return kg_is_qualified_name_n(s, __builtin_strlen(s), errs);
}
static inline bool kg_is_valid_label_value(const char *s, kg_name_errs *errs)
{
    return kg_is_valid_label_value_n(s, __builtin_strlen(s), errs);
}
/* path.IsValidPathSegmentName ("may not be '.'", "may not contain '/'", ...) and the prefix form. */
bool kg_is_valid_path_segment_name(const char *s, bool prefix, kg_name_errs *errs);

/* More util/validation checks used by API validation. */
bool kg_is_wildcard_dns1123_subdomain(const char *s, kg_name_errs *errs); /* "*.example.com" */
bool kg_is_c_identifier(const char *s, kg_name_errs *errs);
bool kg_is_env_var_name(const char *s, kg_name_errs *errs);
bool kg_is_config_map_key(const char *s, kg_name_errs *errs);  /* ConfigMap/Secret data keys */
bool kg_is_valid_port_name(const char *s, kg_name_errs *errs); /* IANA_SVC_NAME, at most 15 chars */
bool kg_is_valid_port_num(long long port, kg_name_errs *errs); /* 1..65535 */
bool kg_is_valid_percent(const char *s, kg_name_errs *errs);   /* "[0-9]+%" */
bool kg_is_http_header_name(const char *s, kg_name_errs *errs);

/* ValidateNameFunc implementations (prefix: the value is a generateName prefix; a trailing '-' is masked as
 * upstream's maskTrailingDash does). */
typedef bool (*kg_name_validator)(const char *name, bool prefix, kg_name_errs *errs);
bool kg_name_is_dns_label(const char *name, bool prefix, kg_name_errs *errs);     /* ValidateNamespaceName etc. */
bool kg_name_is_dns_subdomain(const char *name, bool prefix, kg_name_errs *errs); /* most resources */
bool kg_name_is_dns1035_label(const char *name, bool prefix, kg_name_errs *errs); /* services */
bool kg_name_is_path_segment(const char *name, bool prefix, kg_name_errs *errs);  /* ValidatePathSegmentName */
#define kg_validate_namespace_name kg_name_is_dns_label

/* Messages joined with sep (e.g. "; " as labels.NewRequirement does). */
char *kg_name_errs_join(kg_arena *a, const kg_name_errs *errs, const char *sep);

/* SimpleNameGenerator: base truncated to 58 bytes + 5 random chars from "bcdfghjklmnpqrstvwxz2456789". */
char *kg_generate_name(kg_arena *a, const char *base);

/* ---- ObjectMeta validation (apimachinery pkg/api/validation ValidateObjectMetaAccessor) ----
 * meta is the object's "metadata" (may be NULL); fld_path is the path prefix ("metadata"). Appends to errs. */
void kg_validate_object_meta(kg_arena *a, const kg_json *meta, bool requires_namespace, kg_name_validator name_fn,
                             const char *fld_path, kg_field_errors *errs);
/* ValidateObjectMetaAccessorUpdate: resourceVersion must be set, generation not decremented, name/namespace/uid/
 * creationTimestamp/deletionTimestamp/deletionGracePeriodSeconds immutable ("field is immutable"), no new
 * finalizers once deletionTimestamp is set, plus labels/annotations/ownerReferences of the new object. */
void kg_validate_object_meta_update(kg_arena *a, const kg_json *new_meta, const kg_json *old_meta, const char *fld_path,
                                    kg_field_errors *errs);
/* ValidateLabels (keys: IsQualifiedName, values: IsValidLabelValue); labels is a JSON object or NULL. */
void kg_validate_labels(kg_arena *a, const kg_json *labels, const char *fld_path, kg_field_errors *errs);
/* ValidateAnnotations: lower-cased keys must be qualified names; total size of keys+values <= 256 KiB
 * (else "Too long: may not be more than 262144 bytes"). */
void kg_validate_annotations(kg_arena *a, const kg_json *annotations, const char *fld_path, kg_field_errors *errs);
/* Total size of annotation keys and values. */
size_t kg_annotations_size(const kg_json *annotations);
/* ValidateFinalizers: qualified names; "orphan" together with "foregroundDeletion" is invalid. */
void kg_validate_finalizers(kg_arena *a, const kg_json *finalizers, const char *fld_path, kg_field_errors *errs);
/* ValidateOwnerReferences: apiVersion/kind/name/uid non-empty, at most one controller. */
void kg_validate_owner_references(kg_arena *a, const kg_json *refs, const char *fld_path, kg_field_errors *errs);

#endif
