/* One storage, several served versions (api/versions.h): the autoscaling/v1 <-> v2 HorizontalPodAutoscaler and
 * core/v1 <-> events.k8s.io/v1 Event converters (round trips, the autoscaling.alpha annotations as upstream writes
 * and reads them), the resource rows sharing storage, and Event validation's upstream messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/defaults.h"
#include "api/table.h"
#include "api/validation.h"
#include "api/versions.h"

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

/* JSON with ' for " */
static kg_json *J(const char *s)
{
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

static const char *S(const kg_json *v)
{
    return kg_json_to_string(&A, v, 0, NULL);
}

#define assert_json_eq(got, want_text)                                                                                 \
    do {                                                                                                               \
        kg_json *w_ = J(want_text);                                                                                    \
        if (!kg_json_equal((got), w_))                                                                                 \
            fail_msg("got  %s\nwant %s", S(got), S(w_));                                                               \
    } while (0)

static const char *ann(const kg_json *o, const char *k)
{
    kg_json *a = kg_json_path(o, "metadata.annotations");
    return a ? kg_json_get_str(a, k) : NULL;
}

/* ---- resource rows ---- */

static void test_rows_share_storage(void **s)
{
    (void)s;
    const kg_resource *v1 = kg_resource_find("autoscaling", "v1", "horizontalpodautoscalers");
    const kg_resource *v2 = kg_resource_find("autoscaling", "v2", "horizontalpodautoscalers");
    assert_non_null(v1);
    assert_non_null(v2);
    assert_non_null(v1->conv);
    assert_null(v2->conv);
    assert_string_equal(v1->storage_prefix, v2->storage_prefix);
    assert_ptr_equal(kg_version_storage_resource(v1), v2);
    assert_ptr_equal(kg_version_storage_resource(v2), v2);
    /* v2 stays the preferred version: first in the table, found first by kind and by plural */
    assert_ptr_equal(kg_resource_find_kind("autoscaling", "HorizontalPodAutoscaler"), v2);
    assert_ptr_equal(kg_resource_find_plural("horizontalpodautoscalers"), v2);

    const kg_resource *core = kg_resource_find("", "v1", "events");
    const kg_resource *ev = kg_resource_find("events.k8s.io", "v1", "events");
    assert_non_null(ev->conv);
    assert_string_equal(ev->storage_prefix, "/registry/events/");
    assert_string_equal(core->storage_prefix, "/registry/events/");
    assert_ptr_equal(kg_version_storage_resource(ev), core);
    assert_null(kg_version_conv_find("apps", "v1", "deployments"));

    kg_json *disc = kg_discovery_api_group(&A, "autoscaling");
    assert_string_equal(kg_json_path_str(disc, "preferredVersion.version"), "v2");
    assert_int_equal(kg_json_get(disc, "versions")->len, 2);
    assert_non_null(kg_discovery_resource_list(&A, "autoscaling", "v1"));
}

/* ---- HPA ---- */

static void test_hpa_v1_cpu_round_trip(void **s)
{
    (void)s;
    kg_json *v1 =
        J("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','metadata':{'name':'h',"
          "'namespace':'d'},'spec':{'scaleTargetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':'w'},"
          "'minReplicas':2,'maxReplicas':5,'targetCPUUtilizationPercentage':70},'status':{'currentReplicas':3,"
          "'desiredReplicas':4,'currentCPUUtilizationPercentage':55}}");
    kg_json *v2 = kg_convert_hpa_v1_to_v2(&A, v1);
    assert_json_eq(v2,
                   "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{'name':'h',"
                   "'namespace':'d'},'spec':{'scaleTargetRef':{'apiVersion':'apps/v1','kind':'Deployment',"
                   "'name':'w'},'minReplicas':2,'maxReplicas':5,'metrics':[{'type':'Resource','resource':{'name':"
                   "'cpu','target':{'type':'Utilization','averageUtilization':70}}}]},'status':{'currentReplicas':3,"
                   "'desiredReplicas':4,'currentMetrics':[{'type':'Resource','resource':{'name':'cpu','current':"
                   "{'averageUtilization':55}}}]}}");
    kg_json *back = kg_convert_hpa_v2_to_v1(&A, v2);
    /* the status metric travels in the current-metrics annotation (upstream keeps its raw value too) */
    assert_string_equal(ann(back, "autoscaling.alpha.kubernetes.io/current-metrics"),
                        "[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":55,"
                        "\"currentAverageValue\":\"0\"}}]");
    assert_json_eq(kg_json_get(back, "spec"),
                   "{'scaleTargetRef':{'apiVersion':'apps/v1','kind':'Deployment','name':"
                   "'w'},'minReplicas':2,'maxReplicas':5,'targetCPUUtilizationPercentage':70}");
    assert_json_eq(kg_json_get(back, "status"),
                   "{'currentReplicas':3,'desiredReplicas':4,'currentCPUUtilizationPercentage':55}");
    assert_null(ann(back, "autoscaling.alpha.kubernetes.io/metrics"));
    /* and back to v2 again: the same object, annotations consumed */
    kg_json *again = kg_convert_hpa_v1_to_v2(&A, back);
    assert_null(kg_json_path(again, "metadata.annotations"));
    assert_true(kg_json_equal(kg_json_get(again, "spec"), kg_json_get(v2, "spec")));
    assert_json_eq(kg_json_path(again, "status.currentMetrics"),
                   "[{'type':'Resource','resource':{'name':'cpu','current':{'averageValue':'0',"
                   "'averageUtilization':55}}}]");
    /* the input is never changed */
    assert_non_null(kg_json_path(v1, "spec.targetCPUUtilizationPercentage"));
}

static void test_hpa_v2_other_metrics_behavior_conditions(void **s)
{
    (void)s;
    kg_json *v2 = J(
        "{'apiVersion':'autoscaling/v2','kind':'HorizontalPodAutoscaler','metadata':{'name':'h','annotations':{'a':"
        "'b','autoscaling.alpha.kubernetes.io/metrics':'stale'}},'spec':{'scaleTargetRef':{'kind':'Deployment','name':"
        "'w'},'minReplicas':1,'maxReplicas':9,'metrics':["
        "{'type':'Resource','resource':{'name':'memory','target':{'type':'AverageValue','averageValue':'100Mi'}}},"
        "{'type':'Pods','pods':{'metric':{'name':'qps'},'target':{'type':'AverageValue','averageValue':'10'}}},"
        "{'type':'Object','object':{'describedObject':{'apiVersion':'networking.k8s.io/v1','kind':'Ingress','name':"
        "'main'},'metric':{'name':'rps'},'target':{'type':'Value','value':'2k'}}},"
        "{'type':'External','external':{'metric':{'name':'queue','selector':{'matchLabels':{'q':'x'}}},'target':"
        "{'type':'AverageValue','averageValue':'30'}}},"
        "{'type':'ContainerResource','containerResource':{'name':'cpu','container':'app','target':{'type':"
        "'Utilization','averageUtilization':40}}},"
        "{'type':'Resource','resource':{'name':'cpu','target':{'type':'Utilization','averageUtilization':60}}}],"
        "'behavior':{'scaleDown':{'stabilizationWindowSeconds':30,'policies':[{'type':'Pods','value':1,"
        "'periodSeconds':60}]}}},'status':{'desiredReplicas':2,'conditions':[{'type':'AbleToScale','status':'True',"
        "'lastTransitionTime':'2026-01-01T00:00:00Z','reason':'R'}]}}");
    kg_json *v1 = kg_convert_hpa_v2_to_v1(&A, v2);
    assert_string_equal(kg_json_path_str(v1, "apiVersion"), "autoscaling/v1");
    assert_int_equal(kg_json_path(v1, "spec.targetCPUUtilizationPercentage")->u.i, 60);
    assert_string_equal(ann(v1, "a"), "b");
    /* upstream's v1 MetricSpec shapes, the CPU utilization metric left out */
    assert_string_equal(
        ann(v1, "autoscaling.alpha.kubernetes.io/metrics"),
        "[{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"100Mi\"}},"
        "{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"10\"}},"
        "{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Ingress\",\"name\":\"main\",\"apiVersion\":"
        "\"networking.k8s.io/v1\"},\"metricName\":\"rps\",\"targetValue\":\"2k\"}},"
        "{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"metricSelector\":{\"matchLabels\":{\"q\":"
        "\"x\"}},\"targetAverageValue\":\"30\"}},"
        "{\"type\":\"ContainerResource\",\"containerResource\":{\"name\":\"cpu\",\"targetAverageUtilization\":40,"
        "\"container\":\"app\"}}]");
    /* the internal Go type's field names; unset pointers are null */
    assert_string_equal(ann(v1, "autoscaling.alpha.kubernetes.io/behavior"),
                        "{\"ScaleUp\":null,\"ScaleDown\":{\"StabilizationWindowSeconds\":30,\"SelectPolicy\":null,"
                        "\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":60}],\"Tolerance\":null}}");
    assert_string_equal(ann(v1, "autoscaling.alpha.kubernetes.io/conditions"),
                        "[{\"type\":\"AbleToScale\",\"status\":\"True\",\"lastTransitionTime\":"
                        "\"2026-01-01T00:00:00Z\",\"reason\":\"R\"}]");
    assert_null(ann(v1, "autoscaling.alpha.kubernetes.io/current-metrics"));

    /* back to v2: everything returns (other metrics first, then the CPU target), annotations gone but 'a' */
    kg_json *back = kg_convert_hpa_v1_to_v2(&A, v1);
    assert_json_eq(kg_json_path(back, "metadata.annotations"), "{'a':'b'}");
    assert_json_eq(kg_json_path(back, "spec.behavior"),
                   "{'scaleDown':{'stabilizationWindowSeconds':30,'policies':[{'type':'Pods','value':1,"
                   "'periodSeconds':60}]}}");
    assert_json_eq(kg_json_path(back, "status.conditions"),
                   "[{'type':'AbleToScale','status':'True',"
                   "'lastTransitionTime':'2026-01-01T00:00:00Z','reason':'R'}]");
    kg_json *m = kg_json_path(back, "spec.metrics");
    assert_int_equal(m->len, 6);
    assert_json_eq(m->u.items[0], "{'type':'Resource','resource':{'name':'memory','target':{'type':'AverageValue',"
                                  "'averageValue':'100Mi'}}}");
    assert_json_eq(m->u.items[1], "{'type':'Pods','pods':{'metric':{'name':'qps'},'target':{'type':'AverageValue',"
                                  "'averageValue':'10'}}}");
    assert_json_eq(m->u.items[2], "{'type':'Object','object':{'describedObject':{'kind':'Ingress','name':'main',"
                                  "'apiVersion':'networking.k8s.io/v1'},'target':{'type':'Value','value':'2k'},"
                                  "'metric':{'name':'rps'}}}");
    assert_json_eq(m->u.items[3], "{'type':'External','external':{'metric':{'name':'queue','selector':{"
                                  "'matchLabels':{'q':'x'}}},'target':{'type':'AverageValue','averageValue':'30'}}}");
    assert_json_eq(m->u.items[4], "{'type':'ContainerResource','containerResource':{'name':'cpu','target':{'type':"
                                  "'Utilization','averageUtilization':40},'container':'app'}}");
    assert_json_eq(m->u.items[5], "{'type':'Resource','resource':{'name':'cpu','target':{'type':'Utilization',"
                                  "'averageUtilization':60}}}");
}

static void test_hpa_annotations_from_v1_clients(void **s)
{
    (void)s;
    /* a v1 client's object with hand-written annotations (any case of Go field names, bad JSON ignored) */
    kg_json *v1 = J("{'apiVersion':'autoscaling/v1','kind':'HorizontalPodAutoscaler','metadata':{'name':'h',"
                    "'annotations':{'autoscaling.alpha.kubernetes.io/behavior':'{\\'scaleUp\\':{\\'selectPolicy\\':"
                    "\\'Disabled\\'}}','autoscaling.alpha.kubernetes.io/metrics':'not json'}},'spec':{"
                    "'scaleTargetRef':{'kind':'Deployment','name':'w'},'maxReplicas':3}}");
    kg_json *v2 = kg_convert_hpa_v1_to_v2(&A, v1);
    assert_json_eq(kg_json_path(v2, "spec.behavior"), "{'scaleUp':{'selectPolicy':'Disabled'}}");
    assert_null(kg_json_path(v2, "metadata.annotations"));
    assert_null(kg_json_path(v2, "spec.metrics"));
    assert_null(kg_json_get(v2, "status"));
    /* stored as v2: defaulted as v2 (minReplicas 1, the CPU 80% target, behavior rules filled) */
    const kg_resource *r1 = kg_resource_find("autoscaling", "v1", "horizontalpodautoscalers");
    kg_json *stored = kg_version_to_storage(&A, r1, v1);
    assert_int_equal(kg_json_path(stored, "spec.minReplicas")->u.i, 1);
    assert_json_eq(kg_json_path(stored, "spec.metrics"), "[{'type':'Resource','resource':{'name':'cpu','target':{"
                                                         "'type':'Utilization','averageUtilization':80}}}]");
    assert_json_eq(kg_json_path(stored, "spec.behavior.scaleUp"),
                   "{'selectPolicy':'Disabled','stabilizationWindowSeconds':0,'policies':[{'type':'Pods','value':4,"
                   "'periodSeconds':15},{'type':'Percent','value':100,'periodSeconds':15}]}");
    assert_json_eq(kg_json_path(stored, "spec.behavior.scaleDown"),
                   "{'selectPolicy':'Max','policies':[{'type':'Percent','value':100,'periodSeconds':15}]}");
    /* read back through v1: the default CPU target shows */
    kg_json *out = kg_version_from_storage(&A, r1, stored);
    assert_int_equal(kg_json_path(out, "spec.targetCPUUtilizationPercentage")->u.i, 80);
}

/* ---- Events ---- */

static void test_event_round_trip(void **s)
{
    (void)s;
    kg_json *ev = J("{'apiVersion':'events.k8s.io/v1','kind':'Event','metadata':{'name':'e','namespace':'d'},"
                    "'eventTime':'2026-01-01T00:00:00.000000Z','series':{'count':2,'lastObservedTime':"
                    "'2026-01-01T00:01:00.000000Z'},'reportingController':'example.com/c','reportingInstance':'c-1',"
                    "'action':'Act','reason':'Why','regarding':{'kind':'Pod','name':'p','namespace':'d'},'related':{"
                    "'kind':'Node','name':'n'},'note':'hello','type':'Warning','deprecatedSource':{'component':'x'},"
                    "'deprecatedFirstTimestamp':'2026-01-01T00:00:00Z','deprecatedLastTimestamp':"
                    "'2026-01-01T00:02:00Z','deprecatedCount':5}");
    kg_json *core = kg_convert_event_events_to_core(&A, ev);
    assert_json_eq(core, "{'apiVersion':'v1','kind':'Event','metadata':{'name':'e','namespace':'d'},"
                         "'involvedObject':{'kind':'Pod','name':'p','namespace':'d'},'reason':'Why','message':'hello',"
                         "'source':{'component':'x'},'firstTimestamp':'2026-01-01T00:00:00Z','lastTimestamp':"
                         "'2026-01-01T00:02:00Z','count':5,'type':'Warning','eventTime':'2026-01-01T00:00:00.000000Z',"
                         "'series':{'count':2,'lastObservedTime':'2026-01-01T00:01:00.000000Z'},'action':'Act',"
                         "'related':{'kind':'Node','name':'n'},'reportingComponent':'example.com/c',"
                         "'reportingInstance':'c-1'}");
    /* member order as Go serializes core/v1 Event */
    assert_string_equal(core->u.members[3].key, "involvedObject");
    assert_true(kg_json_equal(kg_convert_event_core_to_events(&A, core), ev));
    assert_string_equal(kg_convert_event_core_to_events(&A, core)->u.members[3].key, "eventTime");
}

static void test_event_zero_values(void **s)
{
    (void)s;
    /* a legacy core event: the events.k8s.io view has the struct members and null times as Go writes them */
    kg_json *core = J("{'apiVersion':'v1','kind':'Event','metadata':{'name':'e'},'involvedObject':{'kind':'Pod'},"
                      "'reason':'R','message':'m','count':0}");
    assert_json_eq(kg_convert_event_core_to_events(&A, core),
                   "{'apiVersion':'events.k8s.io/v1','kind':'Event','metadata':{'name':'e'},'eventTime':null,"
                   "'reason':'R','regarding':{'kind':'Pod'},'note':'m','deprecatedSource':{},"
                   "'deprecatedFirstTimestamp':null,'deprecatedLastTimestamp':null}");
    kg_json *ev = J("{'apiVersion':'events.k8s.io/v1','kind':'Event','metadata':{'name':'e'},'eventTime':"
                    "'2026-01-01T00:00:00.000000Z'}");
    assert_json_eq(kg_convert_event_events_to_core(&A, ev),
                   "{'apiVersion':'v1','kind':'Event','metadata':{'name':'e'},'involvedObject':{},'source':{},"
                   "'firstTimestamp':null,'lastTimestamp':null,'eventTime':'2026-01-01T00:00:00.000000Z'}");
}

static const char *errs_str(const kg_field_errors *e)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < e->len; i++)
        kg_buf_printf(&b, "%s%s: %s", i ? "; " : "", e->items[i].field, e->items[i].detail ? e->items[i].detail : "");
    char *s = kg_arena_strdup(&A, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

static void test_event_validation(void **s)
{
    (void)s;
    const kg_resource *core = kg_resource_find("", "v1", "events");
    const kg_resource *ev = kg_resource_find("events.k8s.io", "v1", "events");
    /* events.k8s.io: the strict checks */
    kg_field_errors e = KG_FIELD_ERRORS_INIT;
    kg_api_validate_event(&A, ev,
                          J("{'metadata':{'name':'e','namespace':'d'},'eventTime':'2026-01-01T00:00:00.000000Z',"
                            "'regarding':{'namespace':'d'},'type':'Odd','deprecatedCount':3,'series':{'count':1}}"),
                          NULL, &e);
    assert_string_equal(errs_str(&e), "reportingController: ; reportingController: name part must be non-empty; "
                                      "reportingController: name part must consist of alphanumeric characters, '-', "
                                      "'_' or '.', and must start and end with an alphanumeric character (e.g. "
                                      "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                                      "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'); reportingInstance: ; action: ; "
                                      "reason: ; "
                                      "series.count: should be at least 2; series.lastObservedTime: ; "
                                      "type: has invalid value: Odd; deprecatedCount: needs to be unset");
    /* the same object through core/v1: only the legacy checks, under core's field name */
    kg_field_errors c = KG_FIELD_ERRORS_INIT;
    kg_api_validate_event(&A, core,
                          J("{'metadata':{'name':'e','namespace':'d'},'eventTime':'2026-01-01T00:00:00.000000Z',"
                            "'involvedObject':{'namespace':'d'},'type':'Odd','count':3,'reportingComponent':'a b',"
                            "'reportingInstance':'i','action':'A','reason':'R'}"),
                          NULL, &c);
    assert_int_equal(c.len, 1);
    assert_string_equal(c.items[0].field, "reportingComponent");
    /* a legacy event in another namespace than its object */
    kg_field_errors n = KG_FIELD_ERRORS_INIT;
    kg_api_validate_event(&A, core, J("{'metadata':{'name':'e','namespace':'a'},'involvedObject':{'namespace':'b'}}"),
                          NULL, &n);
    assert_string_equal(errs_str(&n), "involvedObject.namespace: does not match event.namespace");
    /* a valid events.k8s.io event; then an update changing its note */
    kg_json *ok = J("{'metadata':{'name':'e','namespace':'d'},'eventTime':'2026-01-01T00:00:00.000000Z',"
                    "'regarding':{'namespace':'d'},'type':'Normal','reportingController':'example.com/c',"
                    "'reportingInstance':'i','action':'A','reason':'R','note':'n1'}");
    kg_field_errors v = KG_FIELD_ERRORS_INIT;
    kg_api_validate_event(&A, ev, ok, NULL, &v);
    assert_int_equal(v.len, 0);
    kg_json *upd = kg_json_clone(&A, ok);
    kg_json_set(&A, upd, "note", kg_json_new_str(&A, "n2"));
    kg_field_errors u = KG_FIELD_ERRORS_INIT;
    kg_api_validate_event(&A, ev, upd, ok, &u);
    assert_string_equal(errs_str(&u), "message: field is immutable");
}

static void test_event_table(void **s)
{
    (void)s;
    /* printed from the stored (core) shape for both groups; a series event shows the series count */
    const kg_resource *core = kg_resource_find("", "v1", "events");
    kg_json *objs[2] = {
        J("{'metadata':{'name':'e1','creationTimestamp':'2026-01-01T00:00:00Z'},'involvedObject':{'kind':'Pod',"
          "'name':'p'},'reason':'Pulled','message':' pulled \\n','source':{'component':'kubelet','host':'n1'},"
          "'firstTimestamp':'2020-01-01T00:00:00Z','lastTimestamp':'2020-01-01T00:00:00Z','count':3,'type':"
          "'Normal'}"),
        J("{'metadata':{'name':'e2'},'involvedObject':{'kind':'Deployment','name':'web','fieldPath':'spec'},"
          "'reason':'Scaled','eventTime':'2020-01-01T00:00:00.000000Z','series':{'count':4,'lastObservedTime':"
          "'2020-01-01T00:00:00.000000Z'},'reportingComponent':'ctl','type':'Warning'}"),
    };
    kg_json *t = kg_api_table(&A, core, objs, 2, NULL, "1");
    kg_json *cols = kg_json_get(t, "columnDefinitions");
    assert_int_equal(cols->len, 10);
    const char *names[] = {"Last Seen", "Type",    "Reason",     "Object", "Subobject",
                           "Source",    "Message", "First Seen", "Count",  "Name"};
    for (int i = 0; i < 10; i++)
        assert_string_equal(kg_json_get_str(cols->u.items[i], "name"), names[i]);
    kg_json *c1 = kg_json_path(t, "rows")->u.items[0];
    c1 = kg_json_get(c1, "cells");
    assert_string_equal(c1->u.items[1]->u.s, "Normal");
    assert_string_equal(c1->u.items[3]->u.s, "pod/p");
    assert_string_equal(c1->u.items[5]->u.s, "kubelet, n1");
    assert_string_equal(c1->u.items[6]->u.s, "pulled");
    assert_int_equal(c1->u.items[8]->u.i, 3);
    assert_string_equal(c1->u.items[9]->u.s, "e1");
    kg_json *c2 = kg_json_get(kg_json_path(t, "rows")->u.items[1], "cells");
    assert_string_equal(c2->u.items[3]->u.s, "deployment/web");
    assert_string_equal(c2->u.items[4]->u.s, "spec");
    assert_string_equal(c2->u.items[5]->u.s, "ctl");
    assert_int_equal(c2->u.items[8]->u.i, 4);
    assert_string_equal(c2->u.items[0]->u.s, c2->u.items[7]->u.s); /* last seen from the series, first from eventTime */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rows_share_storage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hpa_v1_cpu_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hpa_v2_other_metrics_behavior_conditions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hpa_annotations_from_v1_clients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_zero_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_validation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_table, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
