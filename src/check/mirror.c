/* A live cluster's objects in the in-memory cluster (see mirror.h). */
#include "check/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "admission/registry.h"
#include "admission/services.h"
#include "api/resources.h"
#include "client/watch.h"
#include "registry/storeservices.h"

bool kg_check_mirror_resources(const kg_admission_options *opts, const char **out, size_t cap, size_t *n, kg_error *err)
{
    size_t total = kg_admission_registry_count(), k = 0;
    int *idx = calloc(total, sizeof *idx);
    if (!kg_admission_enabled_plugins(opts, idx, &k, NULL, NULL, err)) {
        free(idx);
        return false;
    }
    *n = 0;
    if (cap)
        out[(*n)++] = "namespaces";
    for (size_t i = 0; i < k; i++) {
        const char *name = kg_admission_registry_at((size_t)idx[i])->name;
        if (!strcmp(name, "ValidatingAdmissionPolicy") && *n + 2 <= cap) {
            out[(*n)++] = "validatingadmissionpolicies";
            out[(*n)++] = "validatingadmissionpolicybindings";
        } else if (!strcmp(name, "LimitRanger") && *n < cap) {
            out[(*n)++] = "limitranges";
        } else if (!strcmp(name, "ResourceQuota") && *n < cap) {
            out[(*n)++] = "resourcequotas";
        }
    }
    free(idx);
    return true;
}

const char *kg_check_mirror_path(kg_arena *a, const char *resource)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    if (!r)
        return NULL;
    return r->group[0] ? kg_arena_sprintf(a, "/apis/%s/%s/%s", r->group, r->version, r->plural)
                       : kg_arena_sprintf(a, "/api/%s/%s", r->version, r->plural);
}

/* What is kept of obj (see mirror.h). */
static kg_json *trim(kg_arena *a, const char *resource, const kg_json *obj)
{
    if (!strcmp(resource, "namespaces")) {
        kg_json *o = kg_json_new_object(a), *md = kg_json_new_object(a);
        kg_json_set(a, o, "apiVersion", kg_json_new_str(a, "v1"));
        kg_json_set(a, o, "kind", kg_json_new_str(a, "Namespace"));
        static const char *const keep[] = {"name", "uid", "labels"};
        const kg_json *src = kg_json_get(obj, "metadata");
        for (size_t i = 0; src && i < sizeof keep / sizeof keep[0]; i++)
            if (kg_json_get(src, keep[i]))
                kg_json_set(a, md, keep[i], kg_json_clone(a, kg_json_get(src, keep[i])));
        kg_json_set(a, o, "metadata", md);
        return o;
    }
    kg_json *o = kg_json_clone(a, obj);
    kg_json *md = kg_json_get(o, "metadata");
    if (md) {
        kg_json_del(md, "managedFields");
        kg_json *ann = kg_json_get(md, "annotations");
        if (ann)
            kg_json_del(ann, "kubectl.kubernetes.io/last-applied-configuration");
    }
    /* list items come without apiVersion and kind */
    const kg_resource *r = kg_resource_find_plural(resource);
    if (r) {
        kg_json_set(a, o, "apiVersion",
                    kg_json_new_str(a, r->group[0] ? kg_arena_sprintf(a, "%s/%s", r->group, r->version) : r->version));
        kg_json_set(a, o, "kind", kg_json_new_str(a, r->kind));
    }
    return o;
}

static void notify(kg_check_cluster *c, kg_admission_event_type type, const char *resource, const char *ns,
                   const char *name, const kg_json *obj)
{
    kg_admission_event ev = {.type = type, .resource = resource, .ns = ns, .name = name, .object = obj};
    kg_check_cluster_notify(c, &ev);
}

static bool put(kg_check_cluster *c, kg_arena *a, const char *resource, const kg_json *obj, kg_error *err)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    kg_json *o = trim(a, resource, obj);
    kg_json *md = kg_json_get_or_add_object(a, o, "metadata");
    kg_json_del(md, "resourceVersion");
    const char *name = kg_json_get_str(md, "name");
    const char *ns = r && r->namespaced ? kg_json_get_str(md, "namespace") : "";
    if (!r || !name || !ns)
        return kg_err_set(err, KG_EINVAL, "%s: an object without %s", resource, name ? "namespace" : "name");
    kg_store *st = kg_check_cluster_store(c);
    KG_ERROR_DECL(gerr);
    kg_json *old = kg_store_object_get(st, a, resource, ns, name, &gerr);
    kg_json *stored =
        old ? kg_store_object_update(st, a, resource, ns, o, err) : kg_store_object_create(st, a, resource, ns, o, err);
    if (!stored)
        return false;
    notify(c, old ? KG_ADMISSION_EVENT_MODIFIED : KG_ADMISSION_EVENT_ADDED, resource, ns, name, stored);
    return true;
}

bool kg_check_mirror_put(kg_check_cluster *c, const char *resource, const kg_json *obj, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    bool ok = put(c, &a, resource, obj, err);
    kg_arena_free(&a);
    return ok;
}

static void del(kg_check_cluster *c, kg_arena *a, const char *resource, const char *ns, const char *name)
{
    kg_store *st = kg_check_cluster_store(c);
    KG_ERROR_DECL(err);
    kg_json *old = kg_store_object_get(st, a, resource, ns, name, &err);
    if (old && kg_store_object_delete(st, a, resource, ns, name, NULL, &err))
        notify(c, KG_ADMISSION_EVENT_DELETED, resource, ns, name, old);
}

void kg_check_mirror_delete(kg_check_cluster *c, const char *resource, const kg_json *obj)
{
    const kg_resource *r = kg_resource_find_plural(resource);
    const char *name = kg_json_path_str(obj, "metadata.name");
    const char *ns = r && r->namespaced ? kg_json_path_str(obj, "metadata.namespace") : "";
    if (!r || !name || !ns)
        return;
    kg_arena a;
    kg_arena_init(&a, 0);
    del(c, &a, resource, ns, name);
    kg_arena_free(&a);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static const char *key_of(kg_arena *a, const kg_json *obj)
{
    const char *ns = kg_json_path_str(obj, "metadata.namespace");
    const char *name = kg_json_path_str(obj, "metadata.name");
    return kg_arena_sprintf(a, "%s/%s", ns ? ns : "", name ? name : "");
}

const char **kg_check_mirror_keys(kg_check_cluster *c, kg_arena *a, const char *resource, size_t *n)
{
    KG_ERROR_DECL(err);
    kg_json *stored = kg_store_object_list(kg_check_cluster_store(c), a, resource, "", &err);
    *n = stored ? stored->len : 0;
    const char **keys = kg_arena_alloc(a, (*n + 1) * sizeof *keys);
    for (size_t i = 0; i < *n; i++)
        keys[i] = key_of(a, kg_json_at(stored, i));
    qsort(keys, *n, sizeof *keys, cmp_str);
    return keys;
}

bool kg_check_mirror_replace(kg_check_cluster *c, const char *resource, const kg_json *items, const char *const *pinned,
                             size_t npinned, kg_error *err)
{
    kg_arena a, tmp;
    kg_arena_init(&a, 0);
    kg_arena_init(&tmp, 0);
    size_t n = items ? items->len : 0;
    const char **keys = kg_arena_alloc(&a, (n + 1) * sizeof *keys);
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        const kg_json *it = kg_json_at(items, i);
        keys[i] = key_of(&a, it);
        KG_ERROR_DECL(e);
        if (!put(c, &tmp, resource, it, &e)) {
            kg_err_set(err, e.code, "%s", e.msg);
            ok = false;
        }
        kg_arena_reset(&tmp);
    }
    qsort(keys, n, sizeof *keys, cmp_str);
    KG_ERROR_DECL(lerr);
    kg_json *stored = kg_store_object_list(kg_check_cluster_store(c), &a, resource, "", &lerr);
    for (uint32_t i = 0; stored && i < stored->len; i++) {
        const kg_json *o = kg_json_at(stored, i);
        const char *k = key_of(&tmp, o);
        if (!bsearch(&k, keys, n, sizeof *keys, cmp_str) &&
            !(npinned && bsearch(&k, pinned, npinned, sizeof *pinned, cmp_str))) {
            const char *ns = kg_json_path_str(o, "metadata.namespace");
            del(c, &tmp, resource, ns ? ns : "", kg_json_path_str(o, "metadata.name"));
        }
        kg_arena_reset(&tmp);
    }
    kg_arena_free(&tmp);
    kg_arena_free(&a);
    return ok;
}

bool kg_check_mirror_list_once(kg_check_cluster *c, kg_client *client, const kg_admission_options *opts, kg_error *err)
{
    const char *res[8];
    size_t n;
    if (!kg_check_mirror_resources(opts, res, 8, &n, err))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < n; i++) {
        kg_arena a;
        kg_arena_init(&a, 0);
        KG_ERROR_DECL(e);
        kg_json *items = kg_client_list(client, &a, kg_check_mirror_path(&a, res[i]), NULL, &e);
        if (!items && e.code != KG_ENOTFOUND)
            ok = kg_err_set(err, e.code, "%s", e.msg);
        for (uint32_t k = 0; ok && items && k < items->len; k++) {
            /* as context, with the controllers a new namespace gets (its default ServiceAccount, as in the
             * cluster); objects serve bootstraps (default, kube-system, ...) are already there */
            kg_json *o = trim(&a, res[i], kg_json_at(items, k));
            kg_json *md = kg_json_get(o, "metadata");
            if (md)
                kg_json_del(md, "resourceVersion");
            KG_ERROR_DECL(le);
            if (!kg_check_load(c, &a, o, &le) && le.code != KG_EEXIST)
                ok = kg_err_set(err, le.code, "%s: %s", res[i], le.msg);
        }
        kg_arena_free(&a);
    }
    return ok;
}
