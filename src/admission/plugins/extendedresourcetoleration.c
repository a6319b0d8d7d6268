/* ExtendedResourceToleration (plugin/pkg/admission/extendedresourcetoleration), mutating, CREATE/UPDATE of pods:
 * a pod requesting an extended resource (e.g. example.com/gpu) tolerates the taint `<resource>:NoSchedule` that
 * nodes carrying such resources get: {key: <resource>, operator: Exists, effect: NoSchedule}, one per resource in
 * sorted order (added, or replacing a toleration that matches it by key/operator/value/effect). */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "meta/names.h"

/* v1helper.IsExtendedResourceName */
static bool is_extended(kg_arena *ar, const char *name)
{
    if (!strchr(name, '/') || strstr(name, "kubernetes.io/") || strncmp(name, "requests.", 9) == 0)
        return false;
    kg_name_errs errs = {0};
    return kg_is_qualified_name(kg_arena_sprintf(ar, "requests.%s", name), &errs);
}

typedef struct names {
    const char **v;
    size_t n, cap;
} names;

static void add_name(kg_arena *ar, names *s, const char *n)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        const char **v = kg_arena_alloc(ar, nc * sizeof *v);
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = nc;
    }
    s->v[s->n++] = n;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void collect(kg_arena *ar, const kg_json *cs, names *s)
{
    for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
        const kg_json *res = kg_json_get(kg_json_at(cs, i), "resources");
        /* requests default to limits before admission: a limit-only resource is requested too */
        static const char *const kinds[] = {"requests", "limits"};
        for (int k = 0; k < 2; k++) {
            const kg_json *m = kg_json_is(res, KG_JSON_OBJECT) ? kg_json_get(res, kinds[k]) : NULL;
            for (size_t j = 0; kg_json_is(m, KG_JSON_OBJECT) && j < m->len; j++)
                if (is_extended(ar, m->u.members[j].key))
                    add_name(ar, s, m->u.members[j].key);
        }
    }
}

/* tolerations.AddOrUpdateTolerationInPod({key: name, operator: Exists, effect: NoSchedule}) for every name, in
 * sorted order, done in two passes over the pod's tolerations instead of one per name. Per name, upstream leaves
 * the list alone when some matching toleration (same key/operator/value/effect) is identical (no
 * tolerationSeconds), else replaces every matching one in place, else appends. Names have distinct keys, so what
 * is done for one name never affects another. */
static void add_or_update_all(kg_arena *ar, kg_json *spec, const names *s)
{
    kg_json *tols = kg_admission_pu_array(ar, spec, "tolerations");
    int *idx = kg_arena_alloc(ar, tols->len * sizeof *idx + 1); /* name index per toleration, -1 = none */
    bool *equal = kg_arena_alloc(ar, s->n * sizeof *equal), *matched = kg_arena_alloc(ar, s->n * sizeof *matched);
    memset(equal, 0, s->n * sizeof *equal);
    memset(matched, 0, s->n * sizeof *matched);
    for (size_t i = 0; i < tols->len; i++) {
        const kg_json *t = kg_json_at(tols, i);
        idx[i] = -1;
        const char *key = kg_admission_pu_str(t, "key");
        if (strcmp(kg_admission_pu_str(t, "operator"), "Exists") != 0 || kg_admission_pu_str(t, "value")[0] ||
            strcmp(kg_admission_pu_str(t, "effect"), "NoSchedule") != 0)
            continue;
        const char **hit = bsearch(&key, s->v, s->n, sizeof *s->v, cmp_str);
        if (!hit)
            continue;
        size_t n = (size_t)(hit - s->v);
        idx[i] = (int)n;
        matched[n] = true;
        const kg_json *secs = kg_json_get(t, "tolerationSeconds");
        if (!secs || kg_json_is(secs, KG_JSON_NULL))
            equal[n] = true;
    }
    for (size_t i = 0; i < tols->len; i++)
        if (idx[i] >= 0 && !equal[idx[i]])
            tols->u.items[i] = kg_admission_pu_toleration(ar, s->v[idx[i]], "Exists", "NoSchedule", -1);
    for (size_t n = 0; n < s->n; n++)
        if (!matched[n])
            kg_json_array_append(ar, tols, kg_admission_pu_toleration(ar, s->v[n], "Exists", "NoSchedule", -1));
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_newf(a->arena, 400, KG_REASON_BAD_REQUEST, "expected *core.Pod but got *core.%s",
                              kg_admission_pu_str(a->object, "kind"));
    kg_arena *ar = a->arena;
    kg_json *spec = kg_json_get(a->object, "spec");
    if (!kg_json_is(spec, KG_JSON_OBJECT))
        return NULL;
    names s = {0};
    collect(ar, kg_json_get(spec, "containers"), &s);
    collect(ar, kg_json_get(spec, "initContainers"), &s);
    if (!s.n)
        return NULL;
    qsort(s.v, s.n, sizeof *s.v, cmp_str);
    size_t u = 0; /* unique */
    for (size_t i = 0; i < s.n; i++)
        if (!u || strcmp(s.v[u - 1], s.v[i]) != 0)
            s.v[u++] = s.v[i];
    s.n = u;
    add_or_update_all(ar, spec, &s);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_extended_resource_toleration = {
    .name = "ExtendedResourceToleration",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .admit = admit,
};
