/* The registry's hooks for ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (registry/strategy.c):
 * defaults applied on every write (upstream admissionregistration/v1 defaults.go) and the validation, which is the
 * compilation of policy.h run with a field error list. */
#include <string.h>

#include "admission/policy/policy.h"
#include "admission/policy/policy_internal.h"
#include "base/buf.h"

const char *kg_vap_join(kg_arena *a, const kg_name_errs *ne)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < ne->n; i++) {
        if (i)
            kg_buf_putc(&b, ',');
        kg_buf_puts(&b, ne->msg[i]);
    }
    const char *s = kg_arena_strdup(a, b.data ? b.data : "");
    kg_buf_free(&b);
    return s;
}

static void default_str(kg_arena *a, kg_json *o, const char *key, const char *v)
{
    const kg_json *x = kg_json_get(o, key);
    if (!x || x->type == KG_JSON_NULL)
        kg_json_set(a, o, key, kg_json_new_str(a, v));
}

static void default_rules(kg_arena *a, kg_json *rules)
{
    if (!rules || rules->type != KG_JSON_ARRAY)
        return;
    for (size_t i = 0; i < rules->len; i++)
        if (kg_json_at(rules, i)->type == KG_JSON_OBJECT)
            default_str(a, kg_json_at(rules, i), "scope", "*");
}

/* SetDefaults_MatchResources, and SetDefaults_Rule for the rules in it. */
static void default_match_resources(kg_arena *a, kg_json *mr)
{
    if (!mr || mr->type != KG_JSON_OBJECT)
        return;
    default_str(a, mr, "matchPolicy", "Equivalent");
    static const char *const sels[] = {"namespaceSelector", "objectSelector"};
    for (size_t i = 0; i < 2; i++) {
        const kg_json *s = kg_json_get(mr, sels[i]);
        if (!s || s->type == KG_JSON_NULL)
            kg_json_set(a, mr, sels[i], kg_json_new_object(a));
    }
    default_rules(a, kg_json_get(mr, "resourceRules"));
    default_rules(a, kg_json_get(mr, "excludeResourceRules"));
}

void kg_vap_policy_defaults(kg_arena *a, kg_json *obj)
{
    kg_json *spec = kg_json_get(obj, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    default_str(a, spec, "failurePolicy", "Fail");
    default_match_resources(a, kg_json_get(spec, "matchConstraints"));
}

void kg_vap_binding_defaults(kg_arena *a, kg_json *obj)
{
    kg_json *spec = kg_json_get(obj, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    default_match_resources(a, kg_json_get(spec, "matchResources"));
}

void kg_vap_policy_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_policy_unref(kg_vap_policy_compile(obj, old, NULL, a, errs));
}

void kg_vap_binding_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_binding_unref(kg_vap_binding_compile(obj, a, errs));
}
