/* The in-memory cluster of `kgate check`: the very pipeline `kgate serve` runs (registry/pipeline.h) over the
 * in-memory store, with an admission chain built from the same flags by the same function serve calls
 * (kg_admission_chain_new over registry/storeservices.h), the objects serve bootstraps (registry/bootstrap.h), and
 * the controllers admission depends on, run synchronously after the writes that would wake them in serve:
 *   - a Namespace created (or loaded as context) gets its "default" ServiceAccount and kube-root-ca.crt ConfigMap
 *     (controllers/serviceaccount.h), so the ServiceAccount plugin admits pods in it as in serve;
 *   - a ResourceQuota created gets its status (hard and used) from the quota controller's sync
 *     (controllers/quota.h), as serve's controller writes it moments after the create.
 *
 * Submissions persist (the store is in memory and thrown away at exit), so later objects see earlier ones: a pod
 * counts against its namespace's quota, a namespace exists for the objects after it. */
#ifndef KG_CHECK_CLUSTER_H
#define KG_CHECK_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/options.h"
#include "admission/trace.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_check_cluster kg_check_cluster;

typedef struct kg_check_config {
    kg_admission_options admission; /* --enable/--disable-admission-plugins, --admission-control-config-file */
    const char *feature_gates;      /* --feature-gates */
    const char *user;               /* NULL = KG_ADMIN_USER */
    const char *const *groups;      /* NULL = system:masters, system:authenticated */
    size_t ngroups;
} kg_check_config;

kg_check_cluster *kg_check_cluster_new(const kg_check_config *cfg, kg_error *err);
void kg_check_cluster_free(kg_check_cluster *c);

/* The verdict on one object, as serve would answer the same request. */
typedef struct kg_check_verdict {
    bool allowed;
    bool input_error;    /* not a request serve could be sent (unknown kind): exit 2 */
    int code;            /* 201 / 200 when admitted; the Status code otherwise */
    const char *reason;  /* Status reason ("" when admitted) */
    const char *message; /* Status message ("" when admitted) */
    const char *const *warnings;
    size_t nwarnings;
    const char *kind, *ns, *name; /* ns "" for cluster-scoped objects */
    kg_json *admitted;            /* the object as stored (mutated by admission), or NULL */
} kg_check_verdict;

/* Submit obj as a CREATE through the pipeline (old == NULL), or as an UPDATE of old: old is stored first (as if
 * it were in the cluster), then obj goes through kg_pipeline_update. A namespaced object without
 * metadata.namespace goes to "default". Everything is allocated in a. */
void kg_check_submit(kg_check_cluster *c, kg_arena *a, kg_json *obj, const kg_json *old, kg_check_verdict *out);

/* Admission's decision trace for the submissions after this call (admission/trace.h; NULL: none, the default). */
void kg_check_cluster_set_tracer(kg_check_cluster *c, const kg_admission_tracer *tracer);

/* Load obj as part of the cluster without admission (--context): stored with system metadata and defaults, and
 * the controllers run as after a submission. False with err for an unknown kind or a store failure. */
bool kg_check_load(kg_check_cluster *c, kg_arena *a, const kg_json *obj, kg_error *err);

/* kg_check_load returning the object as stored (in a), or NULL with err. */
kg_json *kg_check_load_get(kg_check_cluster *c, kg_arena *a, const kg_json *obj, kg_error *err);

/* The validating phase of the cluster's chain alone over stored (an object as stored: defaulted), as its CREATE by
 * the cluster's user, dry-run, with tracer — no pipeline, no mutating phase, nothing stored (`kgate check --audit`
 * over a cluster whose chain holds only the policy plugins). The phase's Status, or NULL when it admits. */
struct kg_status *kg_check_validate_only(kg_check_cluster *c, kg_arena *a, kg_json *stored,
                                         const kg_admission_tracer *tracer);

/* The chain the cluster's pipeline runs and the metrics registry it records into (for doors that call the chain
 * themselves over this cluster, like `kgate webhook`, which an API server already ran the pipeline for). */
const struct kg_admission_chain *kg_check_cluster_chain(const kg_check_cluster *c);
struct kg_metrics_registry *kg_check_cluster_metrics(const kg_check_cluster *c);

/* For mirrors of a live cluster (check/mirror.h): the store, and the change notification plugins subscribed to
 * through the cluster's services (the VAP plugin recompiles a policy when told). Only mirror writes notify. */
struct kg_store *kg_check_cluster_store(const kg_check_cluster *c);
struct kg_admission_event;
void kg_check_cluster_notify(kg_check_cluster *c, const struct kg_admission_event *ev);

/* The resource of obj's apiVersion/kind, NULL when kgate does not serve it (with kubectl's message in *msg). */
const struct kg_resource *kg_check_resource_of(kg_arena *a, const kg_json *obj, const char **msg);

#endif
