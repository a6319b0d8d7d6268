/* ResourceQuota (k8s.io/apiserver pkg/admission/plugin/resourcequota + k8s.io/kubernetes pkg/quota/v1/evaluator/core),
 * kube-apiserver v1.33: validating phase, CREATE/UPDATE, default-on.
 *
 * Evaluators: pods (count/pods, pods, cpu, memory, ephemeral-storage, requests.* / limits.* of those, hugepages-*,
 * requests.hugepages-*, requests.<extended>; scopes Terminating, NotTerminating, BestEffort, NotBestEffort,
 * PriorityClass, CrossNamespacePodAffinity), services (count/services, services, services.nodeports,
 * services.loadbalancers), persistentvolumeclaims (count/persistentvolumeclaims, persistentvolumeclaims,
 * requests.storage and their `<class>.storageclass.storage.k8s.io/` forms), and an object-count evaluator
 * (`count/<resource>[.<group>]`, plus the legacy names configmaps, secrets, resourcequotas, replicationcontrollers)
 * for every other resource. Quotas are matched on status.hard and spec.scopes / spec.scopeSelector.
 *
 * Configuration (optional): apiserver.config.k8s.io/v1 kind ResourceQuotaConfiguration, or the legacy
 * resourcequota.admission.k8s.io/v1beta1|v1alpha1 kind Configuration, with limitedResources[] {apiGroup, resource
 * (required), matchContains[], matchScopes[]}. Unknown fields are ignored (upstream's non-strict decoder). A bad
 * configuration fails init with upstream's texts: `limitedResources[0].resource: Required value` (aggregated as
 * "[e1, e2]"), `no kind "X" is registered for version "V"`, `Object 'Kind' is missing in '<json>'`, or Go's
 * `json: cannot unmarshal string into Go struct field LimitedResource.limitedResources.matchContains of type
 * []string`; the chain prefixes `couldn't init admission plugin "ResourceQuota": `.
 *
 * Usage is charged by rewriting status.used of every matching quota through the services' update before the
 * object is persisted (never on dry-run); an UPDATE is charged max(0, new - old) on the quotas that matched the old
 * object and the full usage on the others; the `status` subresource is charged but never refused. A conflict
 * re-reads the failed quotas live and re-checks the request against them (3 retries, as upstream), then fails with
 * the 409. Requests of one namespace are serialized on a striped lock (upstream: one worker per namespace), the
 * quotas are read under it, and the copies this plugin wrote are preferred over older cached ones (upstream's
 * updatedQuotas look-aside), so one apiserver does not conflict with itself. Namespaces whose cache holds no quota
 * are re-checked with a live list whose result is kept for 30 s (upstream's LRU).
 *
 * Subresources: upstream's evaluators decide (pods: only pods/resize UPDATEs besides CREATE; services and PVCs:
 * CREATE/UPDATE including /status; object counts: CREATE without subresource). */
#ifndef KG_ADMISSION_PLUGINS_RESOURCEQUOTA_H
#define KG_ADMISSION_PLUGINS_RESOURCEQUOTA_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/plugin.h"
#include "admission/services.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

/* The plugin descriptor: the impl of plugins.def's "ResourceQuota" line (default on; its place in the fixed order). */
extern const kg_admission_plugin kg_admission_plugin_resource_quota;

/* ---- usage evaluation shared with the quota controller (src/controllers/quota.h; upstream quota.CalculateUsage) ----
 *
 * kg_quota_recalculate: compute the true status of one ResourceQuota from the current objects of its namespace,
 * read through svc->list (list_flags, e.g. KG_ADMISSION_GET_LIVE to bypass the cache): status.hard = spec.hard;
 * status.used = previous used masked to the hard resources, overwritten by the freshly computed usage of every
 * hard resource an evaluator tracks (pods, services, PVCs, count/<resource>[.<group>] for any resource, listed by
 * its plural); objects are counted only when they match the quota's scopes / scopeSelector; pods in a terminal
 * phase or past deletionTimestamp + grace are not charged compute resources (svc clock; gates from svc).
 * *new_status is a fresh {"hard":..., "used":...} object in a (keys sorted). *changed (may be NULL) tells whether
 * it differs from quota.status (by value). Fails only when a list fails (err names the resource). */
bool kg_quota_recalculate(kg_arena *a, const kg_admission_services *svc, const kg_json *quota, unsigned list_flags,
                          kg_json **new_status, bool *changed, kg_error *err);

/* Whether a change to an object of resource (plural) in a namespace can change some quota's usage: true for every
 * namespaced resource except the ignored ones (events, bindings, reviews...). Lets the controller filter its watch. */
bool kg_quota_resource_tracked(const char *group, const char *resource);

/* ---- internal to resourcequota*.c (define KG_RESOURCEQUOTA_INTERNAL before including) ---- */
#ifdef KG_RESOURCEQUOTA_INTERNAL
#include "meta/quantity.h"
#include "meta/resourcelist.h"

char *kg_admission_rq_pretty_names(kg_arena *ar, const char **names, size_t n); /* sorts names in place, dedups */

typedef enum { RQ_EV_POD, RQ_EV_SERVICE, RQ_EV_PVC, RQ_EV_COUNT } rq_ev_kind;

typedef struct rq_evaluator {
    rq_ev_kind kind;
    const char *group, *resource;
    const char *count_name;  /* count/<resource>[.<group>] */
    const char *legacy_name; /* configmaps, secrets, resourcequotas, replicationcontrollers; else NULL */
} rq_evaluator;

/* Per-request memo of parsed container resources (objects are not modified while the plugin runs, so a container
 * is parsed once however many quotas and checks look at it). */
#define RQ_CRES_MEMO 16
typedef struct rq_cres_memo {
    struct {
        const kg_json *c;
        kg_rlist req, lim; /* requests (defaulted from limits) and limits */
    } e[RQ_CRES_MEMO];
    size_t n;
} rq_cres_memo;

/* Environment of an evaluation: feature gates, the clock, and the request's memo (may be NULL). */
typedef struct rq_env {
    bool ippvs;     /* InPlacePodVerticalScaling */
    bool pod_level; /* PodLevelResources */
    bool recover;   /* RecoverVolumeExpansionFailure */
    int64_t now_ns;
    rq_cres_memo *cres;
} rq_env;

/* ScopedResourceSelectorRequirement */
typedef struct rq_scope {
    const char *name, *op;
    const char **values;
    size_t nvalues;
} rq_scope;

void kg_admission_rq_evaluator_for(kg_arena *ar, const char *group, const char *resource, rq_evaluator *out);
bool kg_admission_rq_matching_resource(const rq_evaluator *ev, const char *name);
bool kg_admission_rq_evaluator_handles(const rq_evaluator *ev, kg_admission_op op, const char *subresource);
void kg_admission_rq_usage(kg_arena *ar, const rq_evaluator *ev, const kg_json *obj, const rq_env *env, kg_rlist *out);
/* 1 match, 0 no match, -1 error (*errmsg) */
int kg_admission_rq_match_scope(kg_arena *ar, const rq_evaluator *ev, const rq_scope *s, const kg_json *obj,
                                const rq_env *env, const char **errmsg);
char *kg_admission_rq_scope_string(kg_arena *ar, const rq_scope *s);
/* Pod constraints: NULL when satisfied, else "must specify ..." */
const char *kg_admission_rq_constraints(kg_arena *ar, const rq_evaluator *ev, const char **required, size_t nrequired,
                                        const kg_json *obj, const rq_env *env);
#endif

#endif
