/* The semantic validations of api/validation_semantic.c, each with upstream's field path and message: resources,
 * volume mounts, probes, Service ports, CronJob schedules and time zones, Lease durations, immutable selectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/validation.h"

static kg_arena A;

static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

static kg_json *J(const char *s)
{
    if (!s)
        return NULL;
    char *t = kg_arena_strdup(&A, s);
    for (char *p = t; *p; p++)
        if (*p == '\'')
            *p = '"';
    kg_error err = {0};
    kg_json *v = kg_json_parse(&A, t, strlen(t), &err);
    if (!v)
        fail_msg("bad test JSON: %s", err.msg);
    return v;
}

/* The aggregate of kg_api_validate's errors ("" when valid). */
static const char *validate(const char *group, const char *version, const char *plural, const char *obj,
                            const char *old)
{
    const kg_resource *r = kg_resource_find(group, version, plural);
    assert_non_null(r);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(&A, r, J(obj), J(old), &errs);
    const char *m = kg_field_errors_aggregate(&A, &errs);
    return m ? m : "";
}

#define MD "'metadata':{'name':'x','namespace':'default'}"
#define POD(containers, extra) "{" MD ",'spec':{'containers':[" containers "]" extra "}}"
#define C(extra) "{'name':'c','image':'i'" extra "}"

static void check(const char *got, const char *want, const char *what)
{
    if (strcmp(got, want))
        fail_msg("%s\n got: %s\nwant: %s", what, got, want);
}

static void test_containers(void **s)
{
    (void)s;
    check(validate("", "v1", "pods",
                   POD(C(",'resources':{'requests':{'cpu':'2','memory':'1Gi'},'limits':{'cpu':'1'}}"), ""), NULL),
          "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1",
          "requests over limits");
    check(validate("", "v1", "pods", POD(C(",'resources':{'requests':{'cpu':'500m'},'limits':{'cpu':1}}"), ""), NULL),
          "", "requests under limits");
    check(
        validate("", "v1", "pods",
                 POD(C(",'volumeMounts':[{'name':'data','mountPath':'/d'},{'name':'v','mountPath':'/d'}]"),
                     ",'volumes':[{'name':'v','emptyDir':{}}]"),
                 NULL),
        "[spec.containers[0].volumeMounts[0].name: Not found: \"data\", spec.containers[0].volumeMounts[1].mountPath: "
        "Invalid value: \"/d\": must be unique]",
        "volume mounts");
    check(validate("", "v1", "pods", POD(C(",'livenessProbe':{'periodSeconds':3}"), ""), NULL),
          "spec.containers[0].livenessProbe: Required value: must specify a handler type", "probe without handler");
    check(validate("", "v1", "pods",
                   POD(C(",'readinessProbe':{'exec':{'command':['true']},'tcpSocket':{'port':80}}"), ""), NULL),
          "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
          "probe with two handlers");
    check(validate("", "v1", "pods", POD(C(",'livenessProbe':{'httpGet':{'port':70000},'successThreshold':2}"), ""),
                   NULL),
          "[spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, "
          "inclusive, spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1]",
          "probe port and threshold");
    check(
        validate("", "v1", "pods",
                 POD(C(""), ",'initContainers':[{'name':'i','image':'i','readinessProbe':{'exec':{'command':['a']}}}]"),
                 NULL),
        "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without "
        "restartPolicy=Always",
        "probe on an init container");
    /* a Deployment's template and a CronJob's job template are checked too */
    check(validate("apps", "v1", "deployments",
                   "{" MD ",'spec':{'selector':{'matchLabels':{'a':'b'}},'template':{'metadata':{'labels':{'a':'b'}},"
                   "'spec':{'containers':[" C(",'volumeMounts':[{'name':'nope','mountPath':'/x'}]") "]}}}}",
                   NULL),
          "spec.template.spec.containers[0].volumeMounts[0].name: Not found: \"nope\"", "deployment template");
    /* a StatefulSet's containers mount its volumeClaimTemplates: its pod spec is not checked, as upstream */
    check(validate("apps", "v1", "statefulsets",
                   "{" MD ",'spec':{'serviceName':'s','selector':{'matchLabels':{'a':'b'}},'template':{'metadata':{"
                   "'labels':{'a':'b'}},'spec':{'containers':[" C(
                       ",'volumeMounts':[{'name':'data','mountPath':'/d'}]") "]}},"
                                                                             "'volumeClaimTemplates':[{'metadata':{'"
                                                                             "name':'data'}}]}}",
                   NULL),
          "", "statefulset claim templates");
}

#define CJ(sched, extra)                                                                                               \
    "{" MD ",'spec':{'schedule':'" sched "'" extra ",'jobTemplate':{'spec':{'template':{'spec':{'restartPolicy':"      \
    "'Never','containers':[" C("") "]}}}}}}"

static void test_cronjob(void **s)
{
    (void)s;
    check(validate("batch", "v1", "cronjobs", CJ("*/5 * * * *", ""), NULL), "", "valid schedule");
    check(validate("batch", "v1", "cronjobs", CJ("@hourly", ""), NULL), "", "descriptor");
    check(validate("batch", "v1", "cronjobs", CJ("0 9 * jan-mar mon-fri", ""), NULL), "", "names");
    check(validate("batch", "v1", "cronjobs", CJ("bad", ""), NULL),
          "spec.schedule: Invalid value: \"bad\": expected exactly 5 fields, found 1: [bad]", "field count");
    check(validate("batch", "v1", "cronjobs", CJ("61 * * * *", ""), NULL),
          "spec.schedule: Invalid value: \"61 * * * *\": end of range (61) above maximum (59): 61", "range");
    check(validate("batch", "v1", "cronjobs", CJ("x * * * *", ""), NULL),
          "spec.schedule: Invalid value: \"x * * * *\": failed to parse int from x: strconv.Atoi: parsing \"x\": "
          "invalid syntax",
          "not a number");
    check(validate("batch", "v1", "cronjobs", CJ("CRON_TZ=UTC 0 * * * *", ""), NULL),
          "spec.schedule: Invalid value: \"CRON_TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in schedule, use "
          "timeZone field instead",
          "TZ in schedule");
    check(validate("batch", "v1", "cronjobs", CJ("0 * * * *", ",'timeZone':'Mars/Olympus'"), NULL),
          "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus", "unknown zone");
    check(validate("batch", "v1", "cronjobs", CJ("0 * * * *", ",'timeZone':'local'"), NULL),
          "spec.timeZone: Invalid value: \"local\": timeZone must be an explicit time zone as defined in "
          "https://www.iana.org/time-zones",
          "Local");
    check(validate("batch", "v1", "cronjobs", CJ("0 * * * *", ",'timeZone':'UTC'"), NULL), "", "UTC");
}

static void test_service_and_lease(void **s)
{
    (void)s;
    check(validate("", "v1", "services",
                   "{" MD ",'spec':{'ports':[{'name':'a','port':80,'protocol':'HTTP','targetPort':70000},"
                   "{'name':'b','port':81,'protocol':'TCP','targetPort':'not_valid'}]}}",
                   NULL),
          "[spec.ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\", "
          "spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive, "
          "spec.ports[1].targetPort: Invalid value: \"not_valid\": must contain only alpha-numeric characters "
          "(a-z, 0-9), and hyphens (-)]",
          "service ports");
    check(validate("coordination.k8s.io", "v1", "leases",
                   "{" MD ",'spec':{'leaseDurationSeconds':0,'leaseTransitions':-1}}", NULL),
          "[spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0, spec.leaseTransitions: Invalid "
          "value: -1: must be greater than or equal to 0]",
          "lease");
}

#define DEP(labels)                                                                                                    \
    "{" MD ",'spec':{'selector':{'matchLabels':{" labels "}},'template':{'metadata':{'labels':{" labels                \
    "}},'spec':{'containers':[" C("") "]}}}}"

static void test_immutable_on_update(void **s)
{
    (void)s;
    check(validate("apps", "v1", "deployments", DEP("'app':'b','x':'y'"), DEP("'app':'a'")),
          "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"b\", \"x\":\"y\"}, "
          "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable",
          "deployment selector");
    check(validate("apps", "v1", "deployments", DEP("'app':'a'"), DEP("'app':'a'")), "", "unchanged selector");
    const char *sts_old = "{" MD ",'spec':{'serviceName':'a','selector':{'matchLabels':{'a':'b'}},'template':{"
                          "'metadata':{'labels':{'a':'b'}},'spec':{'containers':[" C("") "]}}}}";
    const char *sts_new = "{" MD ",'spec':{'serviceName':'b','replicas':3,'selector':{'matchLabels':{'a':'b'}},"
                          "'template':{'metadata':{'labels':{'a':'b'}},'spec':{'containers':[" C("") "]}}}}";
    check(validate("apps", "v1", "statefulsets", sts_new, sts_old),
          "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
          "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' "
          "are forbidden",
          "statefulset spec");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_containers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cronjob, setup, teardown),
        cmocka_unit_test_setup_teardown(test_service_and_lease, setup, teardown),
        cmocka_unit_test_setup_teardown(test_immutable_on_update, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
