/* Table columns of the kinds added for issue 19 (PodDisruptionBudget, PodTemplate, ControllerRevision,
 * NetworkPolicy, EndpointSlice) as kubectl get prints them upstream, and the kinds' schemas in the index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/schema.h"
#include "api/table.h"

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

/* "col1|col2|..." and the first row's cells as JSON. */
static void check(const char *group, const char *plural, const char *obj, const char *want_cols, const char *want_cells)
{
    const kg_resource *r = kg_resource_find(group, "v1", plural);
    assert_non_null(r);
    kg_json *o = J(obj);
    kg_json *t = kg_api_table(&A, r, &o, 1, "None", "");
    kg_json *cols = kg_json_get(t, "columnDefinitions");
    kg_buf b = KG_BUF_INIT;
    for (uint32_t i = 0; i < cols->len; i++)
        kg_buf_printf(&b, "%s%s", i ? "|" : "", kg_json_get_str(cols->u.items[i], "name"));
    assert_string_equal(kg_buf_cstr(&b), want_cols);
    kg_buf_free(&b);
    kg_json *cells = kg_json_get(kg_json_get(t, "rows")->u.items[0], "cells");
    kg_buf c = KG_BUF_INIT;
    kg_json_write(&c, cells, KG_JSON_WRITE_NO_ESCAPE_HTML);
    assert_string_equal(kg_buf_cstr(&c), want_cells);
    kg_buf_free(&c);
}

static void test_tables(void **s)
{
    (void)s;
    check("policy", "poddisruptionbudgets",
          "{'metadata':{'name':'p'},'spec':{'minAvailable':'50%'},'status':{'disruptionsAllowed':2}}",
          "Name|Min Available|Max Unavailable|Allowed Disruptions|Age", "[\"p\",\"50%\",\"N/A\",2,\"<unknown>\"]");
    check("", "podtemplates",
          "{'metadata':{'name':'t'},'template':{'metadata':{'labels':{'a':'b'}},'spec':{'containers':[{'name':'c',"
          "'image':'nginx'}]}}}",
          "Name|Containers|Images|Pod Labels", "[\"t\",\"c\",\"nginx\",\"a=b\"]");
    check("apps", "controllerrevisions",
          "{'metadata':{'name':'r','ownerReferences':[{'apiVersion':'apps/v1','kind':'DaemonSet','name':'ds',"
          "'controller':true}]},'revision':3}",
          "Name|Controller|Revision|Age", "[\"r\",\"daemonset.apps/ds\",3,\"<unknown>\"]");
    check("networking.k8s.io", "networkpolicies", "{'metadata':{'name':'n'},'spec':{'podSelector':{}}}",
          "Name|Pod-Selector|Age", "[\"n\",\"<none>\",\"<unknown>\"]");
    check("discovery.k8s.io", "endpointslices",
          "{'metadata':{'name':'e'},'addressType':'IPv4','ports':[{'port':80},{'port':443}],'endpoints':[{"
          "'addresses':['10.0.0.1']},{'addresses':['10.0.0.2']},{'addresses':['10.0.0.3']},{'addresses':["
          "'10.0.0.4']}]}",
          "Name|AddressType|Ports|Endpoints|Age",
          "[\"e\",\"IPv4\",\"80,443\",\"10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...\",\"<unknown>\"]");
    check("storage.k8s.io", "csidrivers",
          "{'metadata':{'name':'d'},'spec':{'podInfoOnMount':true,'volumeLifecycleModes':['Persistent','Ephemeral']}}",
          "Name|AttachRequired|PodInfoOnMount|StorageCapacity|TokenRequests|RequiresRepublish|Modes|Age",
          "[\"d\",true,true,false,\"<unset>\",false,\"Persistent,Ephemeral\",\"<unknown>\"]");
    check("storage.k8s.io", "csinodes", "{'metadata':{'name':'n'},'spec':{'drivers':[{'name':'a','nodeID':'x'}]}}",
          "Name|Drivers|Age", "[\"n\",1,\"<unknown>\"]");
    check(
        "storage.k8s.io", "volumeattachments",
        "{'metadata':{'name':'v'},'spec':{'attacher':'csi.x','nodeName':'n1','source':{'persistentVolumeName':'pv1'}},"
        "'status':{'attached':true}}",
        "Name|Attacher|PV|Node|Attached|Age", "[\"v\",\"csi.x\",\"pv1\",\"n1\",true,\"<unknown>\"]");
    const kg_resource *hpa = kg_resource_find("autoscaling", "v2", "horizontalpodautoscalers");
    assert_non_null(hpa);
    kg_json *h = J("{'metadata':{'name':'h'},'spec':{'scaleTargetRef':{'kind':'Deployment','name':'web'},"
                   "'maxReplicas':5,'metrics':[{'type':'Resource','resource':{'name':'cpu','target':{'type':"
                   "'Utilization','averageUtilization':50}}}]},'status':{'currentReplicas':2,'currentMetrics':[{'type':"
                   "'Resource','resource':{'name':'cpu','current':{'averageUtilization':12}}}]}}");
    kg_json *t = kg_api_table(&A, hpa, &h, 1, "None", "");
    kg_buf c = KG_BUF_INIT;
    kg_json_write(&c, kg_json_get(kg_json_get(t, "rows")->u.items[0], "cells"), KG_JSON_WRITE_NO_ESCAPE_HTML);
    assert_string_equal(kg_buf_cstr(&c), "[\"h\",\"Deployment/web\",\"cpu: 12%/50%\",\"<unset>\",5,2,\"<unknown>\"]");
    kg_buf_free(&c);
    check("flowcontrol.apiserver.k8s.io", "flowschemas",
          "{'metadata':{'name':'f'},'spec':{'priorityLevelConfiguration':{'name':'workload-low'},'matchingPrecedence':"
          "9000,'distinguisherMethod':{'type':'ByUser'}}}",
          "Name|PriorityLevel|MatchingPrecedence|DistinguisherMethod|Age|MissingPL",
          "[\"f\",\"workload-low\",\"9000\",\"ByUser\",\"<unknown>\",\"?\"]");
    check("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations",
          "{'metadata':{'name':'p'},'spec':{'type':'Limited','limited':{'nominalConcurrencyShares':30,'limitResponse':"
          "{'type':'Queue','queuing':{'queues':64,'handSize':6,'queueLengthLimit':50}}}}}",
          "Name|Type|NominalConcurrencyShares|Queues|HandSize|QueueLengthLimit|Age",
          "[\"p\",\"Limited\",\"30\",\"64\",\"6\",\"50\",\"<unknown>\"]");
}

static void test_schemas(void **s)
{
    (void)s;
    assert_null(kg_schema_problem());
    kg_schema_decode d;
    assert_true(kg_schema_decode_check(&A, "io.k8s.api.policy.v1.PodDisruptionBudget",
                                       J("{'spec':{'minAvailable':true}}"), true, &d));
    assert_string_equal(d.error, "json: cannot unmarshal bool into Go struct field PodDisruptionBudgetSpec.spec."
                                 "minAvailable of type int32");
    assert_true(kg_schema_decode_check(&A, "io.k8s.api.networking.v1.NetworkPolicy",
                                       J("{'spec':{'ingress':[{'from':[{'ipBlock':{'cidr':1}}]}]}}"), true, &d));
    assert_string_equal(d.error, "json: cannot unmarshal number into Go struct field IPBlock.spec.ingress.from.ipBlock."
                                 "cidr of type string");
    assert_true(kg_schema_decode_check(&A, "io.k8s.api.discovery.v1.EndpointSlice",
                                       J("{'addressType':'IPv4','endpoints':[{'addresses':['1.2.3.4'],'bogus':1}]}"),
                                       true, &d));
    assert_null(d.error);
    assert_int_equal(d.nunknown, 1);
    assert_string_equal(d.unknown[0], "endpoints[0].bogus");
    assert_true(kg_schema_decode_check(&A, "io.k8s.api.core.v1.PodTemplate", J("{'template':{'spec':{}}}"), true, &d));
    assert_true(kg_schema_decode_check(&A, "io.k8s.api.apps.v1.ControllerRevision",
                                       J("{'revision':'1','data':{'any':1}}"), true, &d));
    assert_string_equal(d.error,
                        "json: cannot unmarshal string into Go struct field ControllerRevision.revision of type int64");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schemas, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
