/* AlwaysPullImages (plugin/pkg/admission/alwayspullimages), mutating + validating, CREATE/UPDATE of pods (no
 * subresource): every container (init, regular, ephemeral) gets imagePullPolicy Always, so a node never starts a
 * private image it has cached for another tenant. UPDATEs that introduce no new image are left alone. */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static const char *const k_lists[] = {"initContainers", "containers", "ephemeralContainers"};
#define BAD_POD "Resource was marked with kind Pod but was unable to be converted"

/* shouldIgnore: other resources, and UPDATEs whose images all were in the old pod already */
static bool should_ignore(const kg_admission_attributes *a)
{
    if (!kg_admission_pu_is(a, "", "pods"))
        return true;
    if (a->operation != KG_ADMISSION_UPDATE || !kg_admission_pu_obj_kind(a->object, "Pod") ||
        !kg_admission_pu_obj_kind(a->old_object, "Pod"))
        return false;
    const kg_json *spec = kg_json_get(a->object, "spec"), *old = kg_json_get(a->old_object, "spec");
    kg_admission_pu_strset images = {0};
    for (int l = 0; l < 3; l++) {
        const kg_json *cs = kg_json_get(old, k_lists[l]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++)
            kg_admission_pu_strset_add(a->arena, &images, kg_admission_pu_str(kg_json_at(cs, i), "image"));
    }
    kg_admission_pu_strset_seal(&images);
    for (int l = 0; l < 3; l++) {
        const kg_json *cs = kg_json_get(spec, k_lists[l]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++)
            if (!kg_admission_pu_strset_has(&images, kg_admission_pu_str(kg_json_at(cs, i), "image")))
                return false;
    }
    return true;
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (should_ignore(a))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_bad_request(a->arena, BAD_POD);
    kg_json *spec = kg_json_get(a->object, "spec");
    for (int l = 0; l < 3; l++) {
        kg_json *cs = kg_json_get(spec, k_lists[l]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++)
            if (kg_json_is(kg_json_at(cs, i), KG_JSON_OBJECT))
                kg_json_set(a->arena, kg_json_at(cs, i), "imagePullPolicy", kg_json_new_str(a->arena, "Always"));
    }
    return NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (should_ignore(a))
        return NULL;
    if (!kg_admission_pu_obj_kind(a->object, "Pod"))
        return kg_status_bad_request(a->arena, BAD_POD);
    kg_arena *ar = a->arena;
    const kg_json *spec = kg_json_get(a->object, "spec");
    static const char *const always[] = {"Always"};
    const char **msgs = NULL;
    size_t n = 0, cap = 0;
    for (int l = 0; l < 3; l++) {
        const kg_json *cs = kg_json_get(spec, k_lists[l]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
            const char *pol = kg_admission_pu_str(kg_json_at(cs, i), "imagePullPolicy");
            if (strcmp(pol, "Always") == 0)
                continue;
            kg_field_errors fe = KG_FIELD_ERRORS_INIT;
            kg_field_error *e = kg_field_not_supported(
                ar, &fe, kg_arena_sprintf(ar, "spec.%s[%zu].imagePullPolicy", k_lists[l], i), pol, always, 1);
            kg_status *st = kg_admission_forbidden(a, "%s", kg_field_error_string(ar, e));
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 4;
                const char **m = kg_arena_alloc(ar, nc * sizeof *m);
                if (n)
                    memcpy(m, msgs, n * sizeof *m);
                msgs = m;
                cap = nc;
            }
            msgs[n++] = st->message;
        }
    }
    if (!n)
        return NULL;
    /* upstream returns utilerrors.NewAggregate(forbiddens): an aggregate is not an API status, so even a single
     * violation reaches the client as a 500 (reason Unknown) whose message is the Forbidden text */
    return kg_status_new(ar, 500, KG_REASON_UNKNOWN, kg_errors_aggregate(ar, msgs, n));
}

const kg_admission_plugin kg_admission_plugin_always_pull_images = {
    .name = "AlwaysPullImages",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .admit = admit,
    .validate = validate,
};
