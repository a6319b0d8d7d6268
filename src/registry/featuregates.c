#include "registry/featuregates.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/str.h"

/* v1.33 defaults of the gates kgate's code consults. */
static const struct {
    const char *name;
    bool def;
} known[] = {
    {"PodTopologyLabelsAdmission", false},
    {"VolumeAttributesClass", false},
    {"InPlacePodVerticalScaling", true},
    {"MutatingAdmissionPolicy", false},
    {"PodLevelResources", false},
    {"DynamicResourceAllocation", false},
    {"KubeletServiceAccountTokenForCredentialProviders", false},
    {"SidecarContainers", true},
    {"UserNamespacesSupport", false},
    {"StrictCostEnforcementForVAP", true},
    {"StrictCostEnforcementForWebhooks", true},
    /* the Node authorizer and the node/certificate admission plugins */
    {"ClusterTrustBundle", false},
    {"ServiceAccountNodeAudienceRestriction", true},
    {"AuthorizeNodeWithSelectors", true},
    {"RecoverVolumeExpansionFailure", true},
    {"AllowInsecureKubeletCertificateSigningRequests", false},
};
#define NKNOWN (sizeof known / sizeof known[0])

struct kg_feature_gates {
    bool value[NKNOWN];
    bool all_alpha, all_beta;
    kg_buf unused;
};

static int known_index(const char *name, size_t n)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (strlen(known[i].name) == n && !strncmp(known[i].name, name, n))
            return (int)i;
    return -1;
}

kg_feature_gates *kg_feature_gates_parse(const char *spec, kg_error *err)
{
    kg_feature_gates *g = calloc(1, sizeof *g);
    kg_buf_init(&g->unused);
    for (size_t i = 0; i < NKNOWN; i++)
        g->value[i] = known[i].def;
    kg_str rest = kg_str_c(spec ? spec : "");
    while (rest.n) {
        kg_str item;
        kg_str_cut(rest, ',', &item, &rest);
        item = kg_str_trim(item);
        if (!item.n)
            continue;
        kg_str name, val;
        if (!kg_str_cut(item, '=', &name, &val)) {
            kg_err_set(err, KG_EINVAL, "missing bool value for %.*s", (int)item.n, item.p);
            kg_feature_gates_free(g);
            return NULL;
        }
        name = kg_str_trim(name);
        val = kg_str_trim(val);
        bool b;
        if (kg_str_eqc(val, "true") || kg_str_eqc(val, "True") || kg_str_eqc(val, "TRUE") || kg_str_eqc(val, "1") ||
            kg_str_eqc(val, "t") || kg_str_eqc(val, "T"))
            b = true;
        else if (kg_str_eqc(val, "false") || kg_str_eqc(val, "False") || kg_str_eqc(val, "FALSE") ||
                 kg_str_eqc(val, "0") || kg_str_eqc(val, "f") || kg_str_eqc(val, "F"))
            b = false;
        else {
            kg_err_set(err, KG_EINVAL,
                       "invalid value of %.*s=%.*s, err: strconv.ParseBool: parsing \"%.*s\": invalid "
                       "syntax",
                       (int)name.n, name.p, (int)val.n, val.p, (int)val.n, val.p);
            kg_feature_gates_free(g);
            return NULL;
        }
        if (kg_str_eqc(name, "AllAlpha")) {
            g->all_alpha = b;
            continue;
        }
        if (kg_str_eqc(name, "AllBeta")) {
            g->all_beta = b;
            continue;
        }
        int k = known_index(name.p, name.n);
        if (k >= 0) {
            g->value[k] = b;
        } else {
            if (g->unused.len)
                kg_buf_putc(&g->unused, ',');
            kg_buf_append(&g->unused, name.p, name.n);
        }
    }
    return g;
}

void kg_feature_gates_free(kg_feature_gates *g)
{
    if (!g)
        return;
    kg_buf_free(&g->unused);
    free(g);
}

bool kg_feature_enabled(const kg_feature_gates *g, const char *gate)
{
    int k = known_index(gate, strlen(gate));
    if (k < 0)
        return false;
    return g ? g->value[k] : known[k].def;
}

const char *kg_feature_gates_unused(const kg_feature_gates *g)
{
    return g ? kg_buf_cstr((kg_buf *)&g->unused) : "";
}
