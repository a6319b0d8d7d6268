/* The plugin table, generated from plugins/plugins.def (see registry.h). */
#include "admission/registry.h"

#include <string.h>

#define KG_DEFAULT_on true
#define KG_DEFAULT_off false
static const kg_admission_plugin_info k_plugins[] = {
#define KG_PLUGIN(name, descriptor, default_on) {#name, KG_DEFAULT_##default_on, &descriptor},
#define KG_PLUGIN_UNIMPLEMENTED(name, default_on) {#name, KG_DEFAULT_##default_on, NULL},
#include "admission/plugins/plugins.def"
#undef KG_PLUGIN
#undef KG_PLUGIN_UNIMPLEMENTED
};

#define NPLUGINS (sizeof k_plugins / sizeof k_plugins[0])

size_t kg_admission_registry_count(void)
{
    return NPLUGINS;
}

const kg_admission_plugin_info *kg_admission_registry_at(size_t i)
{
    return i < NPLUGINS ? &k_plugins[i] : NULL;
}

int kg_admission_registry_index(const char *name)
{
    for (size_t i = 0; name && i < NPLUGINS; i++)
        if (strcmp(k_plugins[i].name, name) == 0)
            return (int)i;
    return -1;
}

const kg_admission_plugin_info *kg_admission_registry_find(const char *name)
{
    int i = kg_admission_registry_index(name);
    return i < 0 ? NULL : &k_plugins[i];
}
