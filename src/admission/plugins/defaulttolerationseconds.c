/* DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds), mutating, CREATE/UPDATE of pods:
 * a pod that does not tolerate node.kubernetes.io/not-ready:NoExecute (resp. unreachable) gets
 * {key, operator: Exists, effect: NoExecute, tolerationSeconds: N}, N from --default-not-ready-toleration-seconds
 * and --default-unreachable-toleration-seconds (default 300): the services' plugin options, read when the plugin is
 * initialised. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "json/template.h"

#define NOT_READY "node.kubernetes.io/not-ready"
#define UNREACHABLE "node.kubernetes.io/unreachable"

typedef struct dts_state {
    int64_t not_ready, unreachable;
    kg_arena arena; /* the two tolerations, built once: pods get template instances (see static_toleration) */
    kg_json_template *not_ready_tol, *unreachable_tol;
} dts_state;

/* A toleration whose keys and strings are all string literals, so that template instances (nodes copied, strings
 * shared) stay valid in a pod that outlives the chain and this state. */
static kg_json *static_toleration(kg_arena *ar, const char *key, int64_t seconds)
{
    static const char *const names[] = {"key", "operator", "effect", "tolerationSeconds"};
    kg_json *t = kg_admission_pu_toleration(ar, key, "Exists", "NoExecute", seconds);
    const char *vals[] = {key, "Exists", "NoExecute"};
    for (uint32_t i = 0; i < t->len; i++) {
        t->u.members[i].key = names[i];
        if (i < 3)
            t->u.members[i].val = kg_json_new_str_ref(ar, vals[i], strlen(vals[i]));
    }
    return t;
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    dts_state *st = malloc(sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_admission_plugin_options o = kg_admission_plugin_opts(svc);
    st->not_ready = o.default_not_ready_toleration_seconds;
    st->unreachable = o.default_unreachable_toleration_seconds;
    kg_arena_init(&st->arena, 1024);
    st->not_ready_tol = kg_json_template_new(static_toleration(&st->arena, NOT_READY, st->not_ready));
    st->unreachable_tol = kg_json_template_new(static_toleration(&st->arena, UNREACHABLE, st->unreachable));
    if (!st->not_ready_tol || !st->unreachable_tol) {
        kg_json_template_free(st->not_ready_tol);
        kg_json_template_free(st->unreachable_tol);
        kg_arena_free(&st->arena);
        free(st);
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    }
    *state = st;
    return true;
}

static void destroy(void *state)
{
    dts_state *st = state;
    kg_json_template_free(st->not_ready_tol);
    kg_json_template_free(st->unreachable_tol);
    kg_arena_free(&st->arena);
    free(st);
}

static bool tolerated(const kg_json *tols, const char *key)
{
    for (size_t i = 0; kg_json_is(tols, KG_JSON_ARRAY) && i < tols->len; i++) {
        const kg_json *t = kg_json_at(tols, i);
        const char *k = kg_admission_pu_str(t, "key"), *e = kg_admission_pu_str(t, "effect");
        if ((!k[0] || strcmp(k, key) == 0) && (!e[0] || strcmp(e, "NoExecute") == 0))
            return true;
    }
    return false;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    const dts_state *st = state;
    if (!kg_admission_pu_is(a, "", "pods"))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_newf(a->arena, 400, KG_REASON_BAD_REQUEST, "expected *api.Pod but got *core.%s",
                              kg_admission_pu_str(a->object, "kind"));
    kg_arena *ar = a->arena;
    kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
    kg_json *tols = kg_json_get(spec, "tolerations");
    bool nr = tolerated(tols, NOT_READY), un = tolerated(tols, UNREACHABLE);
    if (nr && un)
        return NULL;
    tols = kg_admission_pu_array(ar, spec, "tolerations");
    if (!nr)
        kg_json_array_append(ar, tols, kg_json_template_instance(ar, st->not_ready_tol));
    if (!un)
        kg_json_array_append(ar, tols, kg_json_template_instance(ar, st->unreachable_tol));
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_default_toleration_seconds = {
    .name = "DefaultTolerationSeconds",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .admit = admit,
    .destroy = destroy,
};
