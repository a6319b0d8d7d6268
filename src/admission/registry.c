#include "admission/registry.h"
#include "admission/plugins/batch2.h"
#include "admission/plugins/resourcequota.h"

#include <string.h>

/* kube-apiserver v1.33 pkg/kubeapiserver/options/plugins.go: AllOrderedPlugins (execution order) and
 * DefaultOffAdmissionPlugins (everything not in defaultOnPlugins). The newer PodGroupProtection,
 * PodGroupWorkloadExists, NodeDeclaredFeatureValidator, JobValidation and PodResizeValidator are not in v1.33.
 * A plugin is implemented once its descriptor is listed here. */
static const kg_admission_plugin_info k_plugins[] = {
    {"AlwaysAdmit", false, &kg_admission_plugin_always_admit},
    {"NamespaceAutoProvision", false, &kg_admission_plugin_namespace_autoprovision},
    {"NamespaceLifecycle", true, &kg_admission_plugin_namespace_lifecycle},
    {"NamespaceExists", false, &kg_admission_plugin_namespace_exists},
    {"LimitPodHardAntiAffinityTopology", false, &kg_admission_plugin_limit_pod_hard_anti_affinity_topology},
    {"LimitRanger", true, &kg_admission_plugin_limit_ranger},
    {"ServiceAccount", true, &kg_admission_plugin_service_account},
    {"NodeRestriction", false, NULL},
    {"TaintNodesByCondition", true, &kg_admission_plugin_taint_nodes_by_condition},
    {"AlwaysPullImages", false, &kg_admission_plugin_always_pull_images},
    {"ImagePolicyWebhook", false, NULL},
    {"PodSecurity", true, &kg_admission_plugin_pod_security},
    {"PodNodeSelector", false, &kg_admission_plugin_pod_node_selector},
    {"Priority", true, &kg_admission_plugin_priority},
    {"DefaultTolerationSeconds", true, &kg_admission_plugin_default_toleration_seconds},
    {"PodTolerationRestriction", false, &kg_admission_plugin_pod_toleration_restriction},
    {"EventRateLimit", false, &kg_admission_plugin_event_rate_limit},
    {"ExtendedResourceToleration", false, &kg_admission_plugin_extended_resource_toleration},
    {"DefaultStorageClass", true, &kg_admission_plugin_default_storage_class},
    {"StorageObjectInUseProtection", true, &kg_admission_plugin_storage_object_in_use_protection},
    {"OwnerReferencesPermissionEnforcement", false, NULL},
    {"PersistentVolumeClaimResize", true, &kg_admission_plugin_persistent_volume_claim_resize},
    {"RuntimeClass", true, &kg_admission_plugin_runtime_class},
    {"CertificateApproval", true, NULL},
    {"CertificateSigning", true, NULL},
    {"ClusterTrustBundleAttest", true, NULL},
    {"CertificateSubjectRestriction", true, &kg_admission_plugin_certificate_subject_restriction},
    {"DefaultIngressClass", true, &kg_admission_plugin_default_ingress_class},
    {"DenyServiceExternalIPs", false, &kg_admission_plugin_deny_service_external_ips},
    {"PodTopologyLabels", true, &kg_admission_plugin_pod_topology_labels},
    /* "webhook, resourcequota, and deny plugins must go at the end" */
    {"MutatingAdmissionPolicy", true, NULL},
    {"MutatingAdmissionWebhook", true, NULL},
    {"ValidatingAdmissionPolicy", true, NULL},
    {"ValidatingAdmissionWebhook", true, NULL},
    {"ResourceQuota", true, &kg_admission_plugin_resource_quota},
    {"AlwaysDeny", false, &kg_admission_plugin_always_deny},
};

#define NPLUGINS (sizeof k_plugins / sizeof k_plugins[0])

size_t kg_admission_registry_count(void)
{
    return NPLUGINS;
}

const kg_admission_plugin_info *kg_admission_registry_at(size_t i)
{
    return i < NPLUGINS ? &k_plugins[i] : NULL;
}

int kg_admission_registry_index(const char *name)
{
    for (size_t i = 0; name && i < NPLUGINS; i++)
        if (strcmp(k_plugins[i].name, name) == 0)
            return (int)i;
    return -1;
}

const kg_admission_plugin_info *kg_admission_registry_find(const char *name)
{
    int i = kg_admission_registry_index(name);
    return i < 0 ? NULL : &k_plugins[i];
}
