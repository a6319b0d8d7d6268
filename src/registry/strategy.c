#include "registry/strategy.h"

#include <string.h>

#include "admission/plugins/limitranger.h"
#include "admission/webhook/validation.h"

static const kg_strategy generic = {0};

/* LimitRange items get their defaults when written (SetDefaults_LimitRangeItem); LimitRanger relies on it. */
static const kg_strategy limitranges = {.default_on_write = kg_admission_limitrange_defaults};
static const kg_strategy namespaces = {.is_namespace = true};
static const kg_strategy pods = {.delete_returns_object = true};
/* Webhook configurations: upstream's validation (admission/webhook/validation.h); defaults come from api/defaults.c. */
static const kg_strategy mutatingwebhooks = {.validate = kg_webhook_validate_mutating};
static const kg_strategy validatingwebhooks = {.validate = kg_webhook_validate_validating};

static const struct {
    const char *group, *plural;
    const kg_strategy *s;
} table[] = {
    {"", "limitranges", &limitranges},
    {"", "namespaces", &namespaces},
    {"", "pods", &pods},
    {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", &mutatingwebhooks},
    {"admissionregistration.k8s.io", "validatingwebhookconfigurations", &validatingwebhooks},
};

const kg_strategy *kg_strategy_for(const kg_resource *r)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(r->plural, table[i].plural) && !strcmp(r->group, table[i].group))
            return table[i].s;
    return &generic;
}
