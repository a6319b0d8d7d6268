/* PodSecurity (k8s.io/pod-security-admission, Kubernetes v1.33): the Pod Security Standards as an admission plugin.
 *
 * The pieces, one file each under src/admission/plugins/podsecurity/:
 *   levels.c             levels, versions, LevelVersion strings and the namespace-label policy (api/helpers.go)
 *   text.c               the message helpers shared by the checks (joinQuote, pluralize, sorted sets)
 *   checks_baseline.c    the baseline checks (policy/check_*.go)
 *   checks_restricted.c  the restricted checks
 *   checks.c             the versioned check registry and the per-level/version check lists built from it
 *   evaluate.c           the pod view, evaluation and the aggregated reason / detail texts
 *   config.c             PodSecurityConfiguration (defaults, exemptions) and its validation
 *   admission.c          the plugin: pods, pod controllers, dispatch
 *   namespace.c          namespace label validation and the existing-pod scan on an enforce change
 *   metrics.c            pod_security_evaluations_total, pod_security_exemptions_total, pod_security_errors_total
 *
 * Versions: policy versions are v1.<minor>; this registry is v1.33's, so `latest` and every newer version evaluate
 * as v1.33 (PS_MAX_MINOR). Strings in results live in the request arena. */
#ifndef KG_ADMISSION_PODSECURITY_H
#define KG_ADMISSION_PODSECURITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/plugin.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/status.h"

/* Newest policy minor version the registry knows: what `latest` means. */
#define PS_MAX_MINOR 33

#define PS_LABEL_PREFIX "pod-security.kubernetes.io/"
#define PS_ANN_PREFIX "pod-security.kubernetes.io/"

/* ---- levels and versions (levels.c) ---------------------------------------------------------------------- */

typedef enum ps_level { PS_PRIVILEGED = 0, PS_BASELINE = 1, PS_RESTRICTED = 2 } ps_level;

/* A policy version: `latest` or v1.<minor> (minor may be larger than PS_MAX_MINOR). */
typedef struct ps_version {
    bool latest;
    int64_t minor;
} ps_version;

typedef struct ps_lv {
    ps_level level;
    ps_version version;
} ps_lv;

/* The three modes of a namespace. */
typedef struct ps_policy {
    ps_lv enforce, audit, warn;
} ps_policy;

#define PS_LEVEL_ERR "must be one of privileged, baseline, restricted"
#define PS_VERSION_ERR "must be \"latest\" or \"v1.x\""
#define PS_LV_MAX 48 /* room for "restricted:v1.<int64>" */

const char *ps_level_name(ps_level l);
/* ParseLevel / ParseVersion: false for anything else (exact, case-sensitive). */
bool ps_parse_level(const char *s, ps_level *out);
bool ps_parse_version(const char *s, ps_version *out);
/* LevelVersion.String() into buf (PS_LV_MAX bytes): "restricted:latest", "baseline:v1.22". Returns buf. */
char *ps_lv_format(char *buf, ps_lv lv);
char *ps_lv_string(kg_arena *a, ps_lv lv);
/* The minor version evaluated for v: latest and anything newer than PS_MAX_MINOR → PS_MAX_MINOR. */
int ps_effective_minor(ps_version v);
bool ps_lv_equal(ps_lv x, ps_lv y);
/* Equivalent: both privileged, or level and version equal. */
bool ps_lv_equivalent(ps_lv x, ps_lv y);
bool ps_policy_fully_privileged(const ps_policy *p);
bool ps_policy_equivalent(const ps_policy *x, const ps_policy *y);
/* api.PolicyToEvaluate: the policy of a namespace with these labels (an object or NULL), starting from defaults.
 * Label errors are appended to errs (field.Invalid on metadata.labels[<key>]) in upstream order; the faulty mode
 * falls back as upstream (enforce → restricted, audit/warn → privileged, versions → latest). */
ps_policy ps_policy_from_labels(kg_arena *a, const kg_json *labels, const ps_policy *defaults, kg_field_errors *errs);

/* ---- the pod as the checks see it (evaluate.c) ------------------------------------------------------------- */

typedef struct ps_container {
    const char *name;  /* "" when absent */
    const kg_json *c;  /* the container object */
    const kg_json *sc; /* its securityContext object, NULL when absent or null */
} ps_container;

typedef struct ps_pod {
    const kg_json *annotations; /* metadata.annotations object or NULL */
    const kg_json *spec;        /* spec object or NULL */
    const kg_json *sc;          /* spec.securityContext object or NULL */
    ps_container *containers;   /* visit order: initContainers, containers, ephemeralContainers */
    size_t ncontainers;
    bool windows; /* spec.os.name == "windows" */
} ps_pod;

/* Build the view of a pod from its metadata and spec (either may be NULL or not an object: then empty). */
void ps_pod_view(kg_arena *a, const kg_json *metadata, const kg_json *spec, ps_pod *out);

/* JSON accessors with Go's nil semantics: absent, null and wrongly typed values are "unset". Inline so that the
 * length of a literal key is a compile-time constant, as in kg_json_get. */
static inline const kg_json *ps_member(const kg_json *o, const char *key, size_t n)
{
    return kg_json_is(o, KG_JSON_OBJECT) ? kg_json_getn(o, key, n) : NULL;
}
static inline const kg_json *ps_obj(const kg_json *o, const char *key)
{
    const kg_json *v = ps_member(o, key, __builtin_strlen(key));
    return kg_json_is(v, KG_JSON_OBJECT) ? v : NULL;
}
static inline const kg_json *ps_arr(const kg_json *o, const char *key)
{
    const kg_json *v = ps_member(o, key, __builtin_strlen(key));
    return kg_json_is(v, KG_JSON_ARRAY) ? v : NULL;
}
/* NULL when unset */
static inline const char *ps_str(const kg_json *o, const char *key)
{
    const kg_json *v = ps_member(o, key, __builtin_strlen(key));
    return kg_json_is(v, KG_JSON_STRING) ? v->u.s : NULL;
}
/* false when unset */
static inline bool ps_bool(const kg_json *o, const char *key, bool *out)
{
    const kg_json *v = ps_member(o, key, __builtin_strlen(key));
    if (!kg_json_is(v, KG_JSON_BOOL))
        return false;
    *out = v->b;
    return true;
}
static inline bool ps_int(const kg_json *o, const char *key, int64_t *out)
{
    const kg_json *v = ps_member(o, key, __builtin_strlen(key));
    if (!kg_json_is(v, KG_JSON_INT))
        return false;
    *out = v->u.i;
    return true;
}

/* ---- message helpers (text.c) ---------------------------------------------------------------------------- */

/* A list of strings in the arena. */
typedef struct ps_strs {
    const char **v;
    size_t n, cap;
} ps_strs;

void ps_strs_add(kg_arena *a, ps_strs *l, const char *s);
/* Sort bytewise and drop duplicates (Go's sets.String.List()). */
void ps_strs_sort_unique(ps_strs *l);
/* `"a", "b"` (empty list → ""). */
char *ps_join_quote(kg_arena *a, const ps_strs *l);
char *ps_join(kg_arena *a, const ps_strs *l, const char *sep);
static inline const char *ps_plural(const char *one, const char *many, size_t n)
{
    return n == 1 ? one : many;
}
/* `<container|containers> "a", "b"` */
char *ps_containers_phrase(kg_arena *a, const ps_strs *names);

/* ---- checks and the registry (checks*.c) ------------------------------------------------------------------- */

typedef struct ps_result {
    bool allowed;
    const char *reason;
    const char *detail;
} ps_result;

typedef ps_result (*ps_check_fn)(kg_arena *a, const ps_pod *pod);

#define PS_ALLOWED ((ps_result){true, NULL, NULL})

typedef struct ps_versioned_check {
    int min_minor; /* applies from v1.<min_minor> until the next entry; -1 stands for an undefined version and
                    * anything below for `latest`, both rejected by ps_evaluator_init */
    ps_check_fn fn;
    const char *const *overrides; /* NULL-terminated baseline check IDs this restricted check replaces, or NULL */
} ps_versioned_check;

typedef struct ps_check {
    const char *id;
    ps_level level; /* PS_BASELINE or PS_RESTRICTED */
    const ps_versioned_check *versions;
    size_t nversions;
} ps_check;

/* The v1.33 registry (DefaultChecks), in any order. */
const ps_check *ps_default_checks(size_t *n);

/* The check list of one level at one version, in evaluation order. */
#define PS_MAX_CHECKS 32
typedef struct ps_check_list {
    const char *ids[PS_MAX_CHECKS];
    ps_check_fn fns[PS_MAX_CHECKS];
    size_t n;
} ps_check_list;

/* Every level × version list, computed once (NewEvaluator). Index [0] baseline, [1] restricted. */
typedef struct ps_evaluator {
    ps_check_list lists[2][PS_MAX_MINOR + 1];
} ps_evaluator;

/* Validate the registry with upstream's error texts, then build the lists. */
bool ps_evaluator_init(ps_evaluator *ev, const ps_check *checks, size_t n, kg_error *err);
const ps_check_list *ps_evaluator_list(const ps_evaluator *ev, ps_lv lv); /* NULL for privileged */

/* seccompProfile.type is RuntimeDefault or Localhost (prof is the seccompProfile object). */
bool ps_seccomp_type_ok(const kg_json *prof);

/* the check functions (exposed for the registry table) */
ps_result ps_check_privileged(kg_arena *a, const ps_pod *p);
ps_result ps_check_host_namespaces(kg_arena *a, const ps_pod *p);
ps_result ps_check_host_path_volumes(kg_arena *a, const ps_pod *p);
ps_result ps_check_host_ports(kg_arena *a, const ps_pod *p);
ps_result ps_check_apparmor(kg_arena *a, const ps_pod *p);
ps_result ps_check_capabilities_baseline(kg_arena *a, const ps_pod *p);
ps_result ps_check_proc_mount(kg_arena *a, const ps_pod *p);
ps_result ps_check_selinux_1_0(kg_arena *a, const ps_pod *p);
ps_result ps_check_selinux_1_31(kg_arena *a, const ps_pod *p);
ps_result ps_check_seccomp_baseline_1_0(kg_arena *a, const ps_pod *p);
ps_result ps_check_seccomp_baseline_1_19(kg_arena *a, const ps_pod *p);
ps_result ps_check_sysctls_1_0(kg_arena *a, const ps_pod *p);
ps_result ps_check_sysctls_1_27(kg_arena *a, const ps_pod *p);
ps_result ps_check_sysctls_1_29(kg_arena *a, const ps_pod *p);
ps_result ps_check_sysctls_1_32(kg_arena *a, const ps_pod *p);
ps_result ps_check_windows_host_process(kg_arena *a, const ps_pod *p);
ps_result ps_check_allow_privilege_escalation_1_8(kg_arena *a, const ps_pod *p);
ps_result ps_check_allow_privilege_escalation_1_25(kg_arena *a, const ps_pod *p);
ps_result ps_check_capabilities_restricted_1_22(kg_arena *a, const ps_pod *p);
ps_result ps_check_capabilities_restricted_1_25(kg_arena *a, const ps_pod *p);
ps_result ps_check_restricted_volumes(kg_arena *a, const ps_pod *p);
ps_result ps_check_run_as_non_root(kg_arena *a, const ps_pod *p);
ps_result ps_check_run_as_user(kg_arena *a, const ps_pod *p);
ps_result ps_check_seccomp_restricted_1_19(kg_arena *a, const ps_pod *p);
ps_result ps_check_seccomp_restricted_1_25(kg_arena *a, const ps_pod *p);

/* ---- evaluation and messages (evaluate.c) ---------------------------------------------------------------- */

/* AggregateCheckResult: the failed checks' reasons and details, in evaluation order. */
typedef struct ps_agg {
    bool allowed;
    size_t n;
    const char **reasons;
    const char **details;
} ps_agg;

/* Evaluate pod at lv (privileged: always allowed). */
void ps_evaluate(const ps_evaluator *ev, kg_arena *a, ps_lv lv, const ps_pod *pod, ps_agg *out);
/* ForbiddenReason(): reasons joined ", ". ForbiddenDetail(): `reason (detail)` joined ", ". */
char *ps_forbidden_reason(kg_arena *a, const ps_agg *r);
char *ps_forbidden_detail(kg_arena *a, const ps_agg *r);

/* ---- configuration (config.c) ---------------------------------------------------------------------------- */

typedef struct ps_config {
    ps_policy defaults;
    const char **usernames, **runtime_classes, **namespaces; /* as configured */
    size_t nusernames, nruntime_classes, nnamespaces;
} ps_config;

/* Decode and validate a PodSecurityConfiguration (NULL: all privileged:latest, no exemptions); strings live in a. */
bool ps_config_parse(kg_arena *a, const kg_json *config, ps_config *out, kg_error *err);
/* Exact-match exemption lookups (empty strings never match). */
bool ps_exempt_user(const ps_config *c, const char *name);
bool ps_exempt_runtime_class(const ps_config *c, const char *name);
bool ps_exempt_namespace(const ps_config *c, const char *name);

/* ---- metrics (metrics.c) ---------------------------------------------------------------------------------- */

typedef struct ps_metrics {
    kg_metric *evaluations, *exemptions, *errors; /* NULL without a registry */
} ps_metrics;

/* Register the three counters in the services' registry (no-op without one). */
void ps_metrics_init(ps_metrics *m, const kg_admission_services *svc);
/* mode: "enforce", "audit" or "warn" */
void ps_record_evaluation(const ps_metrics *m, bool allow, ps_lv lv, const char *mode,
                          const kg_admission_attributes *a);
void ps_record_exemption(const ps_metrics *m, const kg_admission_attributes *a);
void ps_record_error(const ps_metrics *m, bool fatal, const kg_admission_attributes *a);

/* ---- the plugin (admission.c, namespace.c) ---------------------------------------------------------------- */

typedef struct ps_state {
    kg_arena arena; /* config strings */
    ps_config config;
    ps_evaluator ev;
    ps_metrics metrics;
    int64_t ns_pod_check_timeout_ns; /* 1 s */
    size_t ns_max_pods_to_check;     /* 3000 */
} ps_state;

/* ValidateNamespace. */
kg_status *ps_validate_namespace(const ps_state *st, const kg_admission_attributes *a,
                                 const kg_admission_services *svc);
/* Add an audit annotation; key is the full key (PS_ANN_PREFIX "exempt", ...). */
void ps_annotate(const kg_admission_attributes *a, const char *key, const char *value);

#endif
