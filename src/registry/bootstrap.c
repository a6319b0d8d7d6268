/* The objects every cluster starts with (see bootstrap.h). */
#include "registry/bootstrap.h"

#include <stdio.h>
#include <string.h>

#include "admission/registry.h"
#include "auth/rbac/bootstrappolicy.h"
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

/* Append the items of want missing (deep-equal) from have; true when something was added. */
static bool add_missing(kg_arena *a, kg_json *have, const kg_json *want)
{
    bool changed = false;
    for (uint32_t i = 0; want && i < want->len; i++) {
        bool found = false;
        for (uint32_t j = 0; j < have->len && !found; j++)
            found = kg_json_equal(have->u.items[j], want->u.items[i]);
        if (!found) {
            kg_json_array_append(a, have, kg_json_clone(a, want->u.items[i]));
            changed = true;
        }
    }
    return changed;
}

static kg_json *array_field(kg_arena *a, kg_json *obj, const char *key)
{
    kg_json *v = kg_json_get(obj, key);
    if (!kg_json_is(v, KG_JSON_ARRAY)) {
        v = kg_json_new_array(a);
        kg_json_set(a, obj, key, v);
    }
    return v;
}

/* Labels / annotations of want missing from have (existing values win). */
static bool merge_map(kg_arena *a, kg_json *meta, const kg_json *want, const char *key)
{
    const kg_json *w = kg_json_get(want, key);
    if (!kg_json_is(w, KG_JSON_OBJECT))
        return false;
    kg_json *h = kg_json_get_or_add_object(a, meta, key);
    bool changed = false;
    for (uint32_t i = 0; i < w->len; i++)
        if (!kg_json_get(h, w->u.members[i].key)) {
            kg_json_set(a, h, w->u.members[i].key, kg_json_clone(a, w->u.members[i].val));
            changed = true;
        }
    return changed;
}

bool kg_registry_rbac_bootstrap(kg_store *store, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *objs = kg_rbac_bootstrap_policy(&a);
    bool ok = true;
    for (uint32_t i = 0; i < objs->len && ok; i++) {
        kg_json *want = objs->u.items[i];
        bool role = !strcmp(kg_json_get_str(want, "kind"), "ClusterRole");
        const char *plural = role ? "clusterroles" : "clusterrolebindings";
        const char *name = kg_json_path_str(want, "metadata.name");
        kg_json *have = kg_store_object_get(store, &a, plural, "", name, err);
        if (!have) {
            ok = err->code == KG_ENOTFOUND && ensure(store, &a, plural, want, err);
            continue;
        }
        const char *au = kg_json_get_str(kg_json_path(have, "metadata.annotations"), KG_RBAC_AUTOUPDATE_ANNOTATION);
        if (au && strcmp(au, "true"))
            continue;
        if (!role && !kg_json_equal(kg_json_get(have, "roleRef"), kg_json_get(want, "roleRef"))) {
            /* roleRef is immutable: recreate */
            ok = kg_store_object_delete(store, &a, plural, "", name, NULL, err) && ensure(store, &a, plural, want, err);
            continue;
        }
        kg_json *meta = kg_json_get_or_add_object(&a, have, "metadata");
        bool changed = merge_map(&a, meta, kg_json_get(want, "metadata"), "labels");
        changed |= merge_map(&a, meta, kg_json_get(want, "metadata"), "annotations");
        if (role) {
            /* aggregated roles' rules belong to the aggregation controller */
            if (!kg_json_get(want, "aggregationRule"))
                changed |= add_missing(&a, array_field(&a, have, "rules"), kg_json_get(want, "rules"));
            const kg_json *wsel = kg_json_path(want, "aggregationRule.clusterRoleSelectors");
            if (wsel) {
                kg_json *ar = kg_json_get_or_add_object(&a, have, "aggregationRule");
                changed |= add_missing(&a, array_field(&a, ar, "clusterRoleSelectors"), wsel);
            }
        } else {
            changed |= add_missing(&a, array_field(&a, have, "subjects"), kg_json_get(want, "subjects"));
        }
        if (changed && !kg_store_object_update(store, &a, plural, "", have, err))
            ok = false;
    }
    if (!ok)
        kg_err_prefix(err, "rbac/bootstrap-roles");
    kg_arena_free(&a);
    return ok;
}
