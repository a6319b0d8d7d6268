/* The objects every cluster starts with (see bootstrap.h). */
#include "registry/bootstrap.h"

#include <stdio.h>
#include <string.h>

#include "admission/registry.h"
#include "registry/storeservices.h"

/* Create obj unless it exists. */
static bool ensure(kg_store *st, kg_arena *a, const char *plural, const kg_json *obj, kg_error *err)
{
    const char *ns = kg_json_path_str(obj, "metadata.namespace");
    if (kg_store_object_create(st, a, plural, ns ? ns : "", obj, err) || err->code == KG_EEXIST) {
        kg_err_clear(err);
        return true;
    }
    return false;
}

bool kg_registry_bootstrap(kg_store *store, kg_error *err)
{
    static const char *const namespaces[] = {"default", "kube-system", "kube-public", "kube-node-lease"};
    kg_arena a;
    kg_arena_init(&a, 0);
    bool ok = true;
    for (size_t i = 0; i < sizeof namespaces / sizeof namespaces[0] && ok; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}",
                 namespaces[i]);
        kg_json *obj = kg_json_parse(&a, json, strlen(json), err);
        ok = obj && ensure(store, &a, "namespaces", obj, err);
    }
    /* system-node-critical and system-cluster-critical, as the Priority plugin's bootstrap hook creates them */
    kg_json *pcs = ok ? kg_admission_priority_builtin_classes(&a) : NULL;
    for (uint32_t i = 0; pcs && i < pcs->len && ok; i++)
        ok = ensure(store, &a, "priorityclasses", pcs->u.items[i], err);
    kg_arena_free(&a);
    return ok;
}
