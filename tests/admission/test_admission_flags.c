/* Plugin registry (v1.33 order, default set) and --enable/--disable/--admission-control semantics. */
#include "admission_testutil.h"

static const char *const k_v133_order[] = {"AlwaysAdmit",
                                           "NamespaceAutoProvision",
                                           "NamespaceLifecycle",
                                           "NamespaceExists",
                                           "LimitPodHardAntiAffinityTopology",
                                           "LimitRanger",
                                           "ServiceAccount",
                                           "NodeRestriction",
                                           "TaintNodesByCondition",
                                           "AlwaysPullImages",
                                           "ImagePolicyWebhook",
                                           "PodSecurity",
                                           "PodNodeSelector",
                                           "Priority",
                                           "DefaultTolerationSeconds",
                                           "PodTolerationRestriction",
                                           "EventRateLimit",
                                           "ExtendedResourceToleration",
                                           "DefaultStorageClass",
                                           "StorageObjectInUseProtection",
                                           "OwnerReferencesPermissionEnforcement",
                                           "PersistentVolumeClaimResize",
                                           "RuntimeClass",
                                           "CertificateApproval",
                                           "CertificateSigning",
                                           "ClusterTrustBundleAttest",
                                           "CertificateSubjectRestriction",
                                           "DefaultIngressClass",
                                           "DenyServiceExternalIPs",
                                           "PodTopologyLabels",
                                           "MutatingAdmissionPolicy",
                                           "MutatingAdmissionWebhook",
                                           "ValidatingAdmissionPolicy",
                                           "ValidatingAdmissionWebhook",
                                           "ResourceQuota",
                                           "AlwaysDeny"};

static const char *const k_v133_default_on[] = {"NamespaceLifecycle",
                                                "LimitRanger",
                                                "ServiceAccount",
                                                "TaintNodesByCondition",
                                                "PodSecurity",
                                                "Priority",
                                                "DefaultTolerationSeconds",
                                                "DefaultStorageClass",
                                                "StorageObjectInUseProtection",
                                                "PersistentVolumeClaimResize",
                                                "RuntimeClass",
                                                "CertificateApproval",
                                                "CertificateSigning",
                                                "ClusterTrustBundleAttest",
                                                "CertificateSubjectRestriction",
                                                "DefaultIngressClass",
                                                "PodTopologyLabels",
                                                "MutatingAdmissionPolicy",
                                                "MutatingAdmissionWebhook",
                                                "ValidatingAdmissionPolicy",
                                                "ValidatingAdmissionWebhook",
                                                "ResourceQuota"};

#define N(x) (sizeof(x) / sizeof((x)[0]))

static void registry_has_v133_order(void **state)
{
    assert_int_equal(kg_admission_registry_count(), N(k_v133_order));
    for (size_t i = 0; i < N(k_v133_order); i++) {
        assert_string_equal(kg_admission_registry_at(i)->name, k_v133_order[i]);
        assert_int_equal(kg_admission_registry_index(k_v133_order[i]), (int)i);
    }
    assert_null(kg_admission_registry_at(N(k_v133_order)));
    /* newer plugins are not part of v1.33, and names are case-sensitive */
    assert_int_equal(kg_admission_registry_index("PodResizeValidator"), -1);
    assert_int_equal(kg_admission_registry_index("PodGroupProtection"), -1);
    assert_int_equal(kg_admission_registry_index("namespacelifecycle"), -1);
    assert_int_equal(kg_admission_registry_index("PersistentVolumeLabel"), -1);
}

static void registry_default_set(void **state)
{
    size_t on = 0;
    for (size_t i = 0; i < kg_admission_registry_count(); i++) {
        const kg_admission_plugin_info *p = kg_admission_registry_at(i);
        bool want = false;
        for (size_t j = 0; j < N(k_v133_default_on); j++)
            want |= strcmp(k_v133_default_on[j], p->name) == 0;
        assert_int_equal(p->default_on, want);
        on += p->default_on;
        if (p->impl) {
            assert_string_equal(p->impl->name, p->name);
            assert_true(p->impl->admit || p->impl->validate);
        }
    }
    assert_int_equal(on, N(k_v133_default_on));
    /* implemented in this issue */
    assert_non_null(kg_admission_registry_find("AlwaysAdmit")->impl);
    assert_non_null(kg_admission_registry_find("AlwaysDeny")->impl);
    assert_non_null(kg_admission_registry_find("NamespaceLifecycle")->impl);
    assert_non_null(kg_admission_registry_find("NamespaceExists")->impl);
    assert_non_null(kg_admission_registry_find("NamespaceAutoProvision")->impl);
}

/* Run the flag computation; returns the enabled names joined with ',' (or "ERR:<message>"). */
static char g_out[4096];
static char g_unimpl[4096];
static const char *enabled(const char *enable, const char *disable, const char *legacy)
{
    kg_admission_options o = {enable, disable, legacy, NULL};
    int names[64], un[64];
    size_t n = 99, nu = 99;
    kg_error e = {0};
    g_out[0] = g_unimpl[0] = '\0';
    if (!kg_admission_enabled_plugins(&o, names, &n, un, &nu, &e)) {
        assert_int_equal(e.code, KG_EINVAL);
        snprintf(g_out, sizeof g_out, "ERR:%s", e.msg);
        return g_out;
    }
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(g_out, ",");
        strcat(g_out, kg_admission_registry_at((size_t)names[i])->name);
    }
    for (size_t i = 0; i < nu; i++) {
        if (i)
            strcat(g_unimpl, ",");
        strcat(g_unimpl, kg_admission_registry_at((size_t)un[i])->name);
    }
    return g_out;
}

static void default_flags(void **state)
{
#define DEFAULT_ON                                                                                                     \
    "NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,PodSecurity,Priority,"                        \
    "DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,"           \
    "RuntimeClass,CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,CertificateSubjectRestriction,"      \
    "DefaultIngressClass,PodTopologyLabels,MutatingAdmissionPolicy,MutatingAdmissionWebhook,"                          \
    "ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota"
    assert_string_equal(enabled(NULL, NULL, NULL), DEFAULT_ON);
    /* every default-on plugin is implemented: none is reported as skipped */
    assert_string_equal(g_unimpl, "");
    /* an empty flag value is an empty list */
    assert_string_equal(enabled("", "", NULL), DEFAULT_ON);
}

/* the implemented default-on plugins other than NamespaceLifecycle */
#define NON_NS                                                                                                         \
    "LimitRanger,ServiceAccount,TaintNodesByCondition,PodSecurity,Priority,DefaultTolerationSeconds,"                  \
    "DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,RuntimeClass,"                       \
    "CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,CertificateSubjectRestriction,"                   \
    "DefaultIngressClass,PodTopologyLabels,MutatingAdmissionPolicy,MutatingAdmissionWebhook,"                          \
    "ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota"

static void order_is_fixed_not_flag_order(void **state)
{
    assert_string_equal(
        enabled("AlwaysDeny,NamespaceLifecycle", "PodSecurity", NULL),
        "NamespaceLifecycle,LimitRanger,ServiceAccount,TaintNodesByCondition,Priority,"
        "DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,"
        "PersistentVolumeClaimResize,RuntimeClass,CertificateApproval,CertificateSigning,ClusterTrustBundleAttest,"
        "CertificateSubjectRestriction,DefaultIngressClass,"
        "PodTopologyLabels,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,"
        "ValidatingAdmissionWebhook,ResourceQuota,AlwaysDeny"); /* AlwaysDeny is last in upstream's order */
    assert_string_equal(enabled("AlwaysDeny,NamespaceExists,AlwaysAdmit,NamespaceAutoProvision", "" NON_NS, NULL),
                        "AlwaysAdmit,NamespaceAutoProvision,NamespaceLifecycle,NamespaceExists,AlwaysDeny");
    assert_string_equal(enabled("NamespaceAutoProvision,AlwaysAdmit,AlwaysDeny,NamespaceExists", "" NON_NS, NULL),
                        "AlwaysAdmit,NamespaceAutoProvision,NamespaceLifecycle,NamespaceExists,AlwaysDeny");
    assert_string_equal(enabled("AlwaysDeny,DenyServiceExternalIPs,AlwaysPullImages,PodNodeSelector", "" NON_NS, NULL),
                        "NamespaceLifecycle,AlwaysPullImages,PodNodeSelector,DenyServiceExternalIPs,AlwaysDeny");
    /* naming a default plugin again changes nothing; repeats are harmless */
    assert_string_equal(enabled("NamespaceLifecycle,NamespaceLifecycle", NULL, NULL), DEFAULT_ON);
}

static void disable_removes_defaults(void **state)
{
    assert_string_equal(enabled(NULL, "NamespaceLifecycle," NON_NS, NULL), "");
    assert_string_equal(enabled(NULL, "NamespaceLifecycle", NULL), NON_NS);
    /* disabling default plugins leaves them out, the order of the rest unchanged */
    const char *no_cert = enabled(NULL, "CertificateApproval,CertificateSigning", NULL);
    assert_null(strstr(no_cert, "CertificateSigning"));
    assert_null(strstr(no_cert, "CertificateApproval"));
    assert_non_null(strstr(no_cert, "RuntimeClass,ClusterTrustBundleAttest,CertificateSubjectRestriction"));
    /* disabling a default-off plugin is allowed and a no-op */
    assert_string_equal(enabled(NULL, "AlwaysDeny", NULL), DEFAULT_ON);
}

static void flag_errors_have_upstream_texts(void **state)
{
    assert_string_equal(enabled("Foo", NULL, NULL), "ERR:enable-admission-plugins plugin \"Foo\" is unknown");
    assert_string_equal(enabled(NULL, "Bar", NULL), "ERR:disable-admission-plugins plugin \"Bar\" is unknown");
    assert_string_equal(enabled("AlwaysDeny", "AlwaysDeny", NULL),
                        "ERR:[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped");
    /* the overlap is a sorted set printed like Go's %v of a []string */
    assert_string_equal(
        enabled("NamespaceLifecycle,AlwaysDeny,AlwaysAdmit", "NamespaceLifecycle,AlwaysAdmit,AlwaysDeny", NULL),
        "ERR:[AlwaysAdmit AlwaysDeny NamespaceLifecycle] in enable-admission-plugins and "
        "disable-admission-plugins overlapped");
    /* all errors are collected, in upstream's order, aggregated as "[a, b]" */
    assert_string_equal(enabled("Foo,AlwaysDeny", "Bar,AlwaysDeny", NULL),
                        "ERR:[enable-admission-plugins plugin \"Foo\" is unknown, disable-admission-plugins plugin "
                        "\"Bar\" is unknown, [AlwaysDeny] in enable-admission-plugins and disable-admission-plugins "
                        "overlapped]");
    /* names are taken verbatim like pflag's string slices (no trimming), and quoted like Go's %q */
    assert_string_equal(enabled("AlwaysDeny, AlwaysAdmit", NULL, NULL),
                        "ERR:enable-admission-plugins plugin \" AlwaysAdmit\" is unknown");
    assert_string_equal(enabled("AlwaysDeny,,AlwaysAdmit", NULL, NULL),
                        "ERR:enable-admission-plugins plugin \"\" is unknown");
    assert_string_equal(enabled("a\"b", NULL, NULL), "ERR:enable-admission-plugins plugin \"a\\\"b\" is unknown");
    /* duplicates of the same message are reported once */
    assert_string_equal(enabled("Foo,Foo", NULL, NULL), "ERR:enable-admission-plugins plugin \"Foo\" is unknown");
}

static void deprecated_admission_control(void **state)
{
    /* enable = the list, disable = everything else; order still fixed */
    assert_string_equal(enabled(NULL, NULL, "AlwaysDeny,AlwaysAdmit"), "AlwaysAdmit,AlwaysDeny");
    assert_string_equal(g_unimpl, "");
    assert_string_equal(enabled(NULL, NULL, "NamespaceExists,NamespaceLifecycle"),
                        "NamespaceLifecycle,NamespaceExists");
    assert_string_equal(enabled(NULL, NULL, "Nope"), "ERR:admission-control plugin \"Nope\" is unknown");
    assert_string_equal(enabled("AlwaysDeny", NULL, "AlwaysAdmit"),
                        "ERR:admission-control and enable-admission-plugins/disable-admission-plugins flags are "
                        "mutually exclusive");
    assert_string_equal(enabled(NULL, "", "AlwaysAdmit"),
                        "ERR:admission-control and enable-admission-plugins/disable-admission-plugins flags are "
                        "mutually exclusive");
    assert_string_equal(enabled(NULL, NULL, "NodeRestriction"), "NodeRestriction");
}

/* Every v1.33 plugin is implemented now, so the "not implemented yet in kgate" errors have no real name to fire on;
 * the default-off plugins that were the last unimplemented ones enable and build a chain. */
static void enabling_former_unimplemented_plugins(void **state)
{
    assert_string_equal(enabled("OwnerReferencesPermissionEnforcement,NodeRestriction", "" NON_NS, NULL),
                        "NamespaceLifecycle,NodeRestriction,OwnerReferencesPermissionEnforcement");
    for (size_t i = 0; i < kg_admission_registry_count(); i++)
        assert_non_null(kg_admission_registry_at(i)->impl);
    kg_admission_options o = {"NodeRestriction,OwnerReferencesPermissionEnforcement", NULL, NULL, NULL};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new(&o, NULL, NULL, &e);
    assert_non_null(c);
    kg_admission_chain_free(c);
    kg_admission_options o2 = {"Foo", NULL, NULL, NULL};
    assert_null(kg_admission_chain_new(&o2, NULL, NULL, &e));
    assert_string_equal(e.msg, "enable-admission-plugins plugin \"Foo\" is unknown");
}

static void chain_from_flags(void **state)
{
    kg_admission_options o = {"AlwaysDeny,AlwaysAdmit", NON_NS, NULL, NULL};
    kg_error e = {0};
    kg_admission_chain *c = kg_admission_chain_new(&o, NULL, NULL, &e);
    assert_non_null(c);
    assert_int_equal(kg_admission_chain_len(c), 3);
    assert_string_equal(kg_admission_chain_name(c, 0), "AlwaysAdmit");
    assert_string_equal(kg_admission_chain_name(c, 1), "NamespaceLifecycle");
    assert_string_equal(kg_admission_chain_name(c, 2), "AlwaysDeny");
    assert_null(kg_admission_chain_name(c, 3));
    assert_true(kg_admission_chain_has_mutating(c));
    kg_admission_chain_free(c);
    /* a NULL options pointer means no flags */
    c = kg_admission_chain_new(NULL, NULL, NULL, &e);
    assert_non_null(c);
    size_t implemented_defaults = 0;
    for (size_t i = 0; i < kg_admission_registry_count(); i++)
        if (kg_admission_registry_at(i)->default_on && kg_admission_registry_at(i)->impl)
            implemented_defaults++;
    assert_true(implemented_defaults >= 14);
    assert_int_equal(kg_admission_chain_len(c), implemented_defaults);
    kg_admission_chain_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_has_v133_order),
        cmocka_unit_test(registry_default_set),
        cmocka_unit_test(default_flags),
        cmocka_unit_test(order_is_fixed_not_flag_order),
        cmocka_unit_test(disable_removes_defaults),
        cmocka_unit_test(flag_errors_have_upstream_texts),
        cmocka_unit_test(deprecated_admission_control),
        cmocka_unit_test(enabling_former_unimplemented_plugins),
        cmocka_unit_test(chain_from_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
