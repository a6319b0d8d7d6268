/* Built-in strategic-merge-patch schema: merge keys and patch strategies from the upstream Go struct tags
 * (`patchStrategy:"merge" patchMergeKey:"name"`) of k8s.io/api v1.33.
 *
 * Only fields that lead to a tagged field are listed: every other field merges exactly like JSON merge patch
 * (maps merge, lists and scalars replace), which is what strategic merge patch does for untagged fields too.
 * Types are static tables; lookups scan a handful of fields, so no allocation and no locking. */
#include <string.h>

#include "meta/patch.h"

typedef struct ptype ptype;

typedef struct pfield {
    const char *name;
    kg_patch_value_kind kind;
    kg_patch_value_kind elem_kind;
    unsigned strategy;
    const char *merge_key;
    const ptype *type;
} pfield;

struct ptype {
    const char *name;
    const pfield *fields;
    size_t n;
};

#define M KG_PATCH_STRATEGY_MERGE
#define RK KG_PATCH_STRATEGY_RETAIN_KEYS
#define STRUCT(n, t)                                                                                                   \
    {                                                                                                                  \
        n, KG_PATCH_VALUE_STRUCT, KG_PATCH_VALUE_UNKNOWN, 0, NULL, &t                                                  \
    }
#define LIST_BY(n, key, t)                                                                                             \
    {                                                                                                                  \
        n, KG_PATCH_VALUE_LIST, KG_PATCH_VALUE_STRUCT, M, key, t                                                       \
    }
#define LIST_BY_RK(n, key, t)                                                                                          \
    {                                                                                                                  \
        n, KG_PATCH_VALUE_LIST, KG_PATCH_VALUE_STRUCT, M | RK, key, t                                                  \
    }
#define SET(n)                                                                                                         \
    {                                                                                                                  \
        n, KG_PATCH_VALUE_LIST, KG_PATCH_VALUE_PRIMITIVE, M, NULL, NULL                                                \
    }
#define TYPE(var, tname, ...)                                                                                          \
    static const pfield var##_f[] = {__VA_ARGS__};                                                                     \
    static const ptype var = {tname, var##_f, sizeof var##_f / sizeof var##_f[0]}

/* ---- shared leaves ---- */
static const ptype t_opaque = {"", NULL, 0}; /* known struct without tagged fields below it */

/* metav1.ObjectMeta */
TYPE(t_object_meta, "ObjectMeta", SET("finalizers"), LIST_BY("ownerReferences", "uid", &t_opaque));

/* core/v1 Container and EphemeralContainer (EphemeralContainerCommon has the same tags) */
TYPE(t_container, "Container", LIST_BY("ports", "containerPort", &t_opaque), LIST_BY("env", "name", &t_opaque),
     LIST_BY("volumeMounts", "mountPath", &t_opaque), LIST_BY("volumeDevices", "devicePath", &t_opaque));
TYPE(t_ephemeral_container, "EphemeralContainer", LIST_BY("ports", "containerPort", &t_opaque),
     LIST_BY("env", "name", &t_opaque), LIST_BY("volumeMounts", "mountPath", &t_opaque),
     LIST_BY("volumeDevices", "devicePath", &t_opaque));

/* core/v1 PodSpec (tolerations, readinessGates, resizePolicy, ... carry no patch strategy: replaced) */
TYPE(t_pod_spec, "PodSpec", LIST_BY_RK("volumes", "name", &t_opaque), LIST_BY("initContainers", "name", &t_container),
     LIST_BY("containers", "name", &t_container), LIST_BY("ephemeralContainers", "name", &t_ephemeral_container),
     LIST_BY("imagePullSecrets", "name", &t_opaque), LIST_BY("hostAliases", "ip", &t_opaque),
     LIST_BY("topologySpreadConstraints", "topologyKey", &t_opaque), LIST_BY("schedulingGates", "name", &t_opaque),
     LIST_BY_RK("resourceClaims", "name", &t_opaque));

TYPE(t_pod_status, "PodStatus", LIST_BY("conditions", "type", &t_opaque), LIST_BY("podIPs", "ip", &t_opaque),
     LIST_BY("hostIPs", "ip", &t_opaque), LIST_BY_RK("resourceClaimStatuses", "name", &t_opaque));

TYPE(t_pod, "Pod", STRUCT("metadata", t_object_meta), STRUCT("spec", t_pod_spec), STRUCT("status", t_pod_status));
TYPE(t_pod_template_spec, "PodTemplateSpec", STRUCT("metadata", t_object_meta), STRUCT("spec", t_pod_spec));
TYPE(t_pod_template, "PodTemplate", STRUCT("metadata", t_object_meta), STRUCT("template", t_pod_template_spec));

/* status types whose only tagged field is conditions (by type) */
TYPE(t_conditions_status, "ConditionsStatus", LIST_BY("conditions", "type", &t_opaque));

/* ReplicationController */
TYPE(t_rc_spec, "ReplicationControllerSpec", STRUCT("template", t_pod_template_spec));
TYPE(t_rc, "ReplicationController", STRUCT("metadata", t_object_meta), STRUCT("spec", t_rc_spec),
     STRUCT("status", t_conditions_status));

/* apps/v1 */
TYPE(t_deployment_spec, "DeploymentSpec", STRUCT("template", t_pod_template_spec),
     {"strategy", KG_PATCH_VALUE_STRUCT, KG_PATCH_VALUE_UNKNOWN, RK, NULL, &t_opaque});
TYPE(t_deployment, "Deployment", STRUCT("metadata", t_object_meta), STRUCT("spec", t_deployment_spec),
     STRUCT("status", t_conditions_status));
TYPE(t_template_spec, "WorkloadSpec", STRUCT("template", t_pod_template_spec));
TYPE(t_replica_set, "ReplicaSet", STRUCT("metadata", t_object_meta), STRUCT("spec", t_template_spec),
     STRUCT("status", t_conditions_status));
TYPE(t_stateful_set, "StatefulSet", STRUCT("metadata", t_object_meta), STRUCT("spec", t_template_spec),
     STRUCT("status", t_conditions_status));
TYPE(t_daemon_set, "DaemonSet", STRUCT("metadata", t_object_meta), STRUCT("spec", t_template_spec),
     STRUCT("status", t_conditions_status));

/* batch/v1 */
TYPE(t_job, "Job", STRUCT("metadata", t_object_meta), STRUCT("spec", t_template_spec),
     STRUCT("status", t_conditions_status));
TYPE(t_job_template_spec, "JobTemplateSpec", STRUCT("metadata", t_object_meta), STRUCT("spec", t_template_spec));
TYPE(t_cron_job_spec, "CronJobSpec", STRUCT("jobTemplate", t_job_template_spec));
TYPE(t_cron_job, "CronJob", STRUCT("metadata", t_object_meta), STRUCT("spec", t_cron_job_spec));

/* core/v1 Service, Node, Namespace, PVC, ServiceAccount, ComponentStatus */
TYPE(t_service_spec, "ServiceSpec", LIST_BY("ports", "port", &t_opaque));
TYPE(t_service, "Service", STRUCT("metadata", t_object_meta), STRUCT("spec", t_service_spec),
     STRUCT("status", t_conditions_status));
TYPE(t_node_spec, "NodeSpec", SET("podCIDRs"));
TYPE(t_node_status, "NodeStatus", LIST_BY("conditions", "type", &t_opaque), LIST_BY("addresses", "type", &t_opaque));
TYPE(t_node, "Node", STRUCT("metadata", t_object_meta), STRUCT("spec", t_node_spec), STRUCT("status", t_node_status));
TYPE(t_namespace, "Namespace", STRUCT("metadata", t_object_meta), STRUCT("status", t_conditions_status));
TYPE(t_pvc, "PersistentVolumeClaim", STRUCT("metadata", t_object_meta), STRUCT("status", t_conditions_status));
TYPE(t_service_account, "ServiceAccount", STRUCT("metadata", t_object_meta), LIST_BY("secrets", "name", &t_opaque));
TYPE(t_component_status, "ComponentStatus", STRUCT("metadata", t_object_meta),
     LIST_BY("conditions", "type", &t_opaque));

/* autoscaling/v2, policy/v1 */
TYPE(t_with_status_conditions, "StatusConditions", STRUCT("metadata", t_object_meta),
     STRUCT("status", t_conditions_status));

/* admissionregistration.k8s.io/v1 */
TYPE(t_webhook_config, "WebhookConfiguration", STRUCT("metadata", t_object_meta),
     LIST_BY("webhooks", "name", &t_opaque));

/* storage.k8s.io/v1 CSINode, resource.k8s.io ResourceClaim, networking.k8s.io/v1 ServiceCIDR */
TYPE(t_csi_node_spec, "CSINodeSpec", LIST_BY("drivers", "name", &t_opaque));
TYPE(t_csi_node, "CSINode", STRUCT("metadata", t_object_meta), STRUCT("spec", t_csi_node_spec));
TYPE(t_resource_claim_status, "ResourceClaimStatus", LIST_BY("reservedFor", "uid", &t_opaque));
TYPE(t_resource_claim, "ResourceClaim", STRUCT("metadata", t_object_meta), STRUCT("status", t_resource_claim_status));
TYPE(t_service_cidr, "ServiceCIDR", STRUCT("metadata", t_object_meta), STRUCT("status", t_conditions_status));

/* any other kind: only ObjectMeta is known */
TYPE(t_generic, "Object", STRUCT("metadata", t_object_meta));

static const struct {
    const char *kind;
    const ptype *type;
} roots[] = {
    {"Pod", &t_pod},
    {"PodTemplate", &t_pod_template},
    {"ReplicationController", &t_rc},
    {"Deployment", &t_deployment},
    {"ReplicaSet", &t_replica_set},
    {"StatefulSet", &t_stateful_set},
    {"DaemonSet", &t_daemon_set},
    {"Job", &t_job},
    {"CronJob", &t_cron_job},
    {"Service", &t_service},
    {"Node", &t_node},
    {"Namespace", &t_namespace},
    {"PersistentVolumeClaim", &t_pvc},
    {"ServiceAccount", &t_service_account},
    {"ComponentStatus", &t_component_status},
    {"HorizontalPodAutoscaler", &t_with_status_conditions},
    {"PodDisruptionBudget", &t_with_status_conditions},
    {"MutatingWebhookConfiguration", &t_webhook_config},
    {"ValidatingWebhookConfiguration", &t_webhook_config},
    {"CSINode", &t_csi_node},
    {"ResourceClaim", &t_resource_claim},
    {"ServiceCIDR", &t_service_cidr},
};

static kg_patch_type builtin_root(const kg_patch_schema *s, const char *kind)
{
    (void)s;
    if (!kind || !*kind)
        return NULL;
    const char *k = strstr(kind, "Kind="); /* schema.GroupVersionKind.String(): "apps/v1, Kind=Deployment" */
    if (k) {
        k += 5;
    } else {
        const char *slash = strrchr(kind, '/'); /* "Kind", "group/Kind", "group/version/Kind" */
        k = slash ? slash + 1 : kind;
    }
    if (!*k)
        return NULL;
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (strcmp(roots[i].kind, k) == 0)
            return roots[i].type;
    return &t_generic;
}

static bool builtin_field(const kg_patch_schema *s, kg_patch_type type, const char *name, kg_patch_field *out)
{
    (void)s;
    const ptype *t = type;
    if (!t || !name)
        return false;
    for (size_t i = 0; i < t->n; i++) {
        const pfield *f = &t->fields[i];
        if (strcmp(f->name, name) == 0) {
            out->kind = f->kind;
            out->elem_kind = f->elem_kind;
            out->strategy = f->strategy;
            out->merge_key = f->merge_key;
            out->type = (f->type && f->type->n) ? f->type : NULL;
            return true;
        }
    }
    return false;
}

static const kg_patch_schema builtin = {builtin_root, builtin_field, NULL};

const kg_patch_schema *kg_patch_schema_builtin(void)
{
    return &builtin;
}
