/* kube-apiserver v1.33's admission plugin names in their fixed execution order (AllOrderedPlugins), which of them
 * are on by default, and which kgate implements (descriptor present). */
#ifndef KG_ADMISSION_REGISTRY_H
#define KG_ADMISSION_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/plugin.h"

typedef struct kg_admission_plugin_info {
    const char *name;
    bool default_on;
    const kg_admission_plugin *impl; /* NULL: not implemented yet */
} kg_admission_plugin_info;

/* Number of registered names (36 for v1.33) and the i-th in execution order. */
size_t kg_admission_registry_count(void);
const kg_admission_plugin_info *kg_admission_registry_at(size_t i);
/* Position in the order, or -1 when the name is not registered (names are case-sensitive). */
int kg_admission_registry_index(const char *name);
const kg_admission_plugin_info *kg_admission_registry_find(const char *name);

/* The built-in descriptors. */
extern const kg_admission_plugin kg_admission_plugin_always_admit;
extern const kg_admission_plugin kg_admission_plugin_always_deny;
extern const kg_admission_plugin kg_admission_plugin_namespace_lifecycle;
extern const kg_admission_plugin kg_admission_plugin_namespace_exists;
extern const kg_admission_plugin kg_admission_plugin_namespace_autoprovision;
extern const kg_admission_plugin kg_admission_plugin_limit_pod_hard_anti_affinity_topology;
extern const kg_admission_plugin kg_admission_plugin_taint_nodes_by_condition;
extern const kg_admission_plugin kg_admission_plugin_always_pull_images;
extern const kg_admission_plugin kg_admission_plugin_default_toleration_seconds;
extern const kg_admission_plugin kg_admission_plugin_extended_resource_toleration;
extern const kg_admission_plugin kg_admission_plugin_certificate_subject_restriction;
extern const kg_admission_plugin kg_admission_plugin_deny_service_external_ips;
extern const kg_admission_plugin kg_admission_plugin_pod_topology_labels;
extern const kg_admission_plugin kg_admission_plugin_pod_node_selector;
extern const kg_admission_plugin kg_admission_plugin_priority;
extern const kg_admission_plugin kg_admission_plugin_pod_toleration_restriction;
extern const kg_admission_plugin kg_admission_plugin_default_storage_class;
extern const kg_admission_plugin kg_admission_plugin_storage_object_in_use_protection;
extern const kg_admission_plugin kg_admission_plugin_persistent_volume_claim_resize;
extern const kg_admission_plugin kg_admission_plugin_runtime_class;
extern const kg_admission_plugin kg_admission_plugin_default_ingress_class;
extern const kg_admission_plugin kg_admission_plugin_pod_security;

/* DefaultTolerationSeconds: the values of --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds (default 300 each). Call before building the chain: the plugin captures
 * them when it is initialised. */
#define KG_ADMISSION_DEFAULT_TOLERATION_SECONDS 300
void kg_admission_default_toleration_seconds_set(int64_t not_ready, int64_t unreachable);

/* Priority: the built-in PriorityClasses the server creates at first start (upstream's post-start hook):
 * system-node-critical (2000001000) and system-cluster-critical (2000000000), globalDefault false,
 * preemptionPolicy PreemptLowerPriority. Returns a JSON array of the two scheduling.k8s.io/v1 objects in a. */
#define KG_ADMISSION_SYSTEM_CRITICAL_PRIORITY 2000000000LL
#define KG_ADMISSION_HIGHEST_USER_PRIORITY 1000000000LL
kg_json *kg_admission_priority_builtin_classes(kg_arena *a);

#endif
