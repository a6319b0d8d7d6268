/* kgate webhook manifest: the configurations it prints for the plugins enabled, and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "webhookdoor/manifest.h"

#define CA "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

static char *render(const kg_door_manifest_config *mc, kg_buf *b)
{
    KG_ERROR_DECL(err);
    kg_buf_reset(b);
    if (!kg_door_manifest(mc, b, &err))
        fail_msg("manifest: %s", err.msg);
    return (char *)kg_buf_cstr(b);
}

static void default_plugins_validate_everything(void **state)
{
    (void)state;
    kg_buf b = KG_BUF_INIT;
    kg_door_manifest_config mc = {.url = "https://10.0.0.5:8443/", .ca_pem = CA};
    char *y = render(&mc, &b);
    assert_non_null(strstr(y, "# kgate webhook: plugins PodSecurity, MutatingAdmissionPolicy, ValidatingAdmissionPolicy\n"));
    assert_non_null(strstr(y, "kind: ValidatingWebhookConfiguration\nmetadata:\n  name: kgate\n"));
    assert_non_null(strstr(y, "- name: validate.kgate.dev\n"));
    assert_non_null(strstr(y, "url: \"https://10.0.0.5:8443/validate\"\n"));
    /* base64 of the PEM */
    assert_non_null(
        strstr(y, "caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=\n"));
    assert_non_null(strstr(y, "operations: [\"*\"]\n    resources: [\"*/*\"]\n"));
    assert_non_null(strstr(y, "values: [kube-system, kube-node-lease, \"kgate-system\"]\n"));
    assert_non_null(strstr(y, "  failurePolicy: Fail\n  matchPolicy: Equivalent\n  sideEffects: None\n"
                              "  timeoutSeconds: 5\n  admissionReviewVersions: [v1, v1beta1]\n"));
    /* MutatingAdmissionPolicy (a default plugin of the door) mutates: the mutating configuration follows */
    assert_non_null(strstr(y, "kind: MutatingWebhookConfiguration"));
    assert_null(strstr(y, "# no enabled plugin mutates"));
    kg_buf_free(&b);
}

static void podsecurity_alone_needs_pods_and_namespaces(void **state)
{
    (void)state;
    kg_buf b = KG_BUF_INIT;
    kg_door_manifest_config mc = {.admission = {.disable_plugins = "ValidatingAdmissionPolicy,MutatingAdmissionPolicy"},
                                  .service_namespace = "kgate",
                                  .service_name = "door",
                                  .service_port = 8443,
                                  .failure_policy = "Ignore",
                                  .timeout_seconds = 3,
                                  .ca_pem = CA};
    char *y = render(&mc, &b);
    assert_non_null(strstr(y, "operations: [CREATE, UPDATE]\n    resources: [pods, pods/ephemeralcontainers, "
                              "namespaces]\n"));
    assert_null(strstr(y, "*/*"));
    assert_non_null(strstr(y, "    service:\n      namespace: \"kgate\"\n      name: \"door\"\n      port: 8443\n"
                              "      path: /validate\n"));
    assert_non_null(strstr(y, "values: [kube-system, kube-node-lease, \"kgate\"]\n"));
    assert_non_null(strstr(y, "failurePolicy: Ignore\n"));
    assert_non_null(strstr(y, "timeoutSeconds: 3\n"));
    kg_buf_free(&b);
}

static void a_mutating_plugin_adds_the_mutating_configuration(void **state)
{
    (void)state;
    kg_buf b = KG_BUF_INIT;
    kg_door_manifest_config mc = {.admission = {.enable_plugins = "DefaultTolerationSeconds"},
                                  .url = "https://h:1",
                                  .name = "team",
                                  .ca_pem = CA};
    char *y = render(&mc, &b);
    char *mut = strstr(y, "---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\n");
    assert_non_null(mut);
    assert_non_null(strstr(mut, "- name: mutate.team.kgate.dev\n"));
    assert_non_null(strstr(mut, "url: \"https://h:1/mutate\"\n"));
    assert_non_null(strstr(mut, "  reinvocationPolicy: IfNeeded\n"));
    assert_non_null(strstr(y, "- name: validate.team.kgate.dev\n"));
    kg_buf_free(&b);
}

static void bad_configurations_refused(void **state)
{
    (void)state;
    kg_buf b = KG_BUF_INIT;
    KG_ERROR_DECL(err);
    kg_door_manifest_config both = {.url = "https://h", .service_name = "s", .service_namespace = "n", .ca_pem = CA};
    assert_false(kg_door_manifest(&both, &b, &err));
    assert_string_equal(err.msg, "exactly one of --url or --service-namespace/--service-name is required");
    kg_door_manifest_config http = {.url = "http://h", .ca_pem = CA};
    assert_false(kg_door_manifest(&http, &b, &err));
    kg_door_manifest_config fp = {.url = "https://h", .ca_pem = CA, .failure_policy = "Maybe"};
    assert_false(kg_door_manifest(&fp, &b, &err));
    assert_string_equal(err.msg, "--failure-policy \"Maybe\": supported values: \"Fail\", \"Ignore\"");
    kg_door_manifest_config noca = {.url = "https://h"};
    assert_false(kg_door_manifest(&noca, &b, &err));
    kg_door_manifest_config unknown = {.url = "https://h", .ca_pem = CA, .admission = {.enable_plugins = "Nope"}};
    assert_false(kg_door_manifest(&unknown, &b, &err));
    assert_non_null(strstr(err.msg, "enable-admission-plugins plugin \"Nope\" is unknown"));
    kg_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_plugins_validate_everything),
        cmocka_unit_test(podsecurity_alone_needs_pods_and_namespaces),
        cmocka_unit_test(a_mutating_plugin_adds_the_mutating_configuration),
        cmocka_unit_test(bad_configurations_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
