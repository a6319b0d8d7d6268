/* kube-apiserver v1.33's admission plugin names in their fixed execution order (AllOrderedPlugins), which of them
 * are on by default, and which kgate implements (descriptor present). The list itself is plugins/plugins.def, one
 * line per plugin; this header and registry.c expand it. */
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

/* The built-in descriptors, one per implemented line of plugins/plugins.def (each plugin's own header, where it
 * has one, declares it too, next to the plugin's other exports). */
#define KG_PLUGIN(name, descriptor, default_on) extern const kg_admission_plugin descriptor;
#define KG_PLUGIN_UNIMPLEMENTED(name, default_on)
#include "admission/plugins/plugins.def"
#undef KG_PLUGIN
#undef KG_PLUGIN_UNIMPLEMENTED

/* Priority: the built-in PriorityClasses the server creates at first start (upstream's post-start hook):
 * system-node-critical (2000001000) and system-cluster-critical (2000000000), globalDefault false,
 * preemptionPolicy PreemptLowerPriority. Returns a JSON array of the two scheduling.k8s.io/v1 objects in a. */
#define KG_ADMISSION_SYSTEM_CRITICAL_PRIORITY 2000000000LL
#define KG_ADMISSION_HIGHEST_USER_PRIORITY 1000000000LL
kg_json *kg_admission_priority_builtin_classes(kg_arena *a);

#endif
