#include "registry/strategy.h"

#include <string.h>

#include "admission/plugins/limitranger.h"
#include "admission/policy/mutating/mutating.h"
#include "admission/policy/policy.h"
#include "admission/webhook/validation.h"
#include "registry/csrstrategy.h"
#include "apiext/crd.h"
#include "registry/codec.h"
#include "registry/rbacstrategy.h"

static const kg_strategy generic = {0};

/* LimitRange items get their defaults when written (SetDefaults_LimitRangeItem); LimitRanger relies on it. */
static const kg_strategy limitranges = {.default_on_write = kg_admission_limitrange_defaults};
static const kg_strategy namespaces = {.is_namespace = true};
static const kg_strategy pods = {.delete_returns_object = true};
/* Admission policies: defaults, and validation by compiling every CEL expression as the plugin will run it. */
static void vap_check(const kg_strategy_ctx *sc, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_write_ctx c = {sc->a, sc->user, sc->services, sc->warnings};
    kg_vap_policy_check_write(&c, obj, old, errs);
}
static void vap_binding_check(const kg_strategy_ctx *sc, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_vap_write_ctx c = {sc->a, sc->user, sc->services, sc->warnings};
    kg_vap_binding_check_write(&c, obj, old, errs);
}
static const kg_strategy vaps = {
    .default_on_write = kg_vap_policy_defaults, .validate = kg_vap_policy_validate, .check_write = vap_check};
static const kg_strategy vap_bindings = {
    .default_on_write = kg_vap_binding_defaults, .validate = kg_vap_binding_validate, .check_write = vap_binding_check};
static const kg_strategy maps = {.default_on_write = kg_map_policy_defaults, .validate = kg_map_policy_validate};
static const kg_strategy map_bindings = {.default_on_write = kg_map_binding_defaults,
                                         .validate = kg_map_binding_validate};
/* Webhook configurations: upstream's validation (admission/webhook/validation.h); defaults come from api/defaults.c. */
static const kg_strategy mutatingwebhooks = {.validate = kg_webhook_validate_mutating};
static const kg_strategy validatingwebhooks = {.validate = kg_webhook_validate_validating};

/* RBAC: escalation prevention, validation and roleRef immutability (registry/rbacstrategy.h). */
static const kg_strategy roles = {.authorize_write = kg_rbac_authorize_role_write, .validate = kg_rbac_validate_role};
static const kg_strategy bindings = {.authorize_write = kg_rbac_authorize_binding_write,
                                     .validate = kg_rbac_validate_binding};

/* CSRs: the requesting user is recorded in the spec (registry/csrstrategy.h). */
static const kg_strategy csrs = {.prepare_for_create = kg_csr_prepare_for_create};
/* CustomResourceDefinitions: defaults and the status the naming and establishing controllers write, computed
 * synchronously (apiext/crd.h); custom resources: pruning, schema defaults and OpenAPI / CEL validation. */
static void crd_default(kg_arena *a, kg_json *obj) { kg_crd_default(a, obj, kg_obj_now_rfc3339(a)); }
static const kg_strategy crds = {.default_on_write = crd_default, .validate = kg_crd_validate};
static const kg_strategy custom_resources = {.default_on_write = kg_cr_default, .validate = kg_cr_validate};

static const struct {
    const char *group, *plural;
    const kg_strategy *s;
} table[] = {
    {"certificates.k8s.io", "certificatesigningrequests", &csrs},
    {"", "limitranges", &limitranges},
    {"", "namespaces", &namespaces},
    {"", "pods", &pods},
    {"admissionregistration.k8s.io", "validatingadmissionpolicies", &vaps},
    {"admissionregistration.k8s.io", "validatingadmissionpolicybindings", &vap_bindings},
    {"admissionregistration.k8s.io", "mutatingadmissionpolicies", &maps},
    {"admissionregistration.k8s.io", "mutatingadmissionpolicybindings", &map_bindings},
    {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", &mutatingwebhooks},
    {"admissionregistration.k8s.io", "validatingwebhookconfigurations", &validatingwebhooks},
    {"rbac.authorization.k8s.io", "roles", &roles},
    {"rbac.authorization.k8s.io", "clusterroles", &roles},
    {"rbac.authorization.k8s.io", "rolebindings", &bindings},
    {"rbac.authorization.k8s.io", "clusterrolebindings", &bindings},
    {KG_CRD_GROUP, "customresourcedefinitions", &crds},
};

const kg_strategy *kg_strategy_for(const kg_resource *r)
{
    if (r->ext)
        return &custom_resources;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(r->plural, table[i].plural) && !strcmp(r->group, table[i].group))
            return table[i].s;
    return &generic;
}
