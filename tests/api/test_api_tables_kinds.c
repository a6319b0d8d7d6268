/* Table columns and cells of every served built-in kind as upstream's printers (pkg/printers/internalversion)
 * print them: the kinds of table_more.c, the corrected columns of table.c (DaemonSet node selector, Job status and
 * duration, CronJob time zone, Node roles and wide columns, ResourceQuota request/limit, StorageClass defaults,
 * PriorityClass preemption policy, Pod status and restarts) and the default convertor's Name / Created At. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

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

/* The row cells of obj as JSON; *cols gets "col1|col2|..." with "*" after priority-1 (wide) columns. */
static const char *row(const char *group, const char *version, const char *plural, const char *obj, const char **cols)
{
    const kg_resource *r = kg_resource_find(group, version, plural);
    if (!r)
        fail_msg("no resource %s/%s %s", group, version, plural);
    kg_json *o = J(obj);
    kg_json *t = kg_api_table(&A, r, &o, 1, "None", "");
    kg_json *cd = kg_json_get(t, "columnDefinitions");
    kg_buf b = KG_BUF_INIT;
    for (uint32_t i = 0; i < cd->len; i++) {
        kg_json *p = kg_json_get(cd->u.items[i], "priority");
        kg_buf_printf(&b, "%s%s%s", i ? "|" : "", kg_json_get_str(cd->u.items[i], "name"), p && p->u.i ? "*" : "");
    }
    *cols = kg_arena_strdup(&A, kg_buf_cstr(&b));
    kg_buf_free(&b);
    kg_json *cells = kg_json_get(kg_json_get(t, "rows")->u.items[0], "cells");
    if (cells->len != cd->len)
        fail_msg("%s: %u cells for %u columns", plural, cells->len, cd->len);
    kg_buf c = KG_BUF_INIT;
    kg_json_write(&c, cells, KG_JSON_WRITE_NO_ESCAPE_HTML);
    char *out = kg_arena_strdup(&A, kg_buf_cstr(&c));
    kg_buf_free(&c);
    return out;
}

static void check(const char *group, const char *version, const char *plural, const char *obj, const char *want_cols,
                  const char *want_cells)
{
    const char *cols;
    const char *cells = row(group, version, plural, obj, &cols);
    if (strcmp(cols, want_cols))
        fail_msg("%s columns\n got: %s\nwant: %s", plural, cols, want_cols);
    if (strcmp(cells, want_cells))
        fail_msg("%s cells\n got: %s\nwant: %s", plural, cells, want_cells);
}

static void test_core(void **s)
{
    (void)s;
    check("", "v1", "events",
          "{'metadata':{'name':'e1'},'involvedObject':{'kind':'Pod','name':'web'},'reason':'Pulled','type':'Normal',"
          "'message':' pulled \\n','source':{'component':'kubelet','host':'n1'},'count':3}",
          "Last Seen|Type|Reason|Object|Subobject*|Source*|Message|First Seen*|Count*|Name*",
          "[\"<unknown>\",\"Normal\",\"Pulled\",\"pod/web\",\"\",\"kubelet, n1\",\"pulled\",\"<unknown>\",3,\"e1\"]");
    check("events.k8s.io", "v1", "events",
          "{'metadata':{'name':'e2'},'regarding':{'kind':'Node','fieldPath':'spec'},'reason':'R','type':'Warning',"
          "'note':'n','reportingController':'ctl'}",
          "Last Seen|Type|Reason|Object|Subobject*|Source*|Message|First Seen*|Count*|Name*",
          "[\"<unknown>\",\"Warning\",\"R\",\"node\",\"spec\",\"ctl\",\"n\",\"<unknown>\",1,\"e2\"]");
    check("", "v1", "endpoints",
          "{'metadata':{'name':'ep'},'subsets':[{'addresses':[{'ip':'10.0.0.1'},{'ip':'10.0.0.2'}],'ports':[{'port':"
          "80},{'port':443}]}]}",
          "Name|Endpoints|Age", "[\"ep\",\"10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...\",\"<unknown>\"]");
    check("", "v1", "endpoints", "{'metadata':{'name':'ep'}}", "Name|Endpoints|Age",
          "[\"ep\",\"<none>\",\"<unknown>\"]");
    check("", "v1", "persistentvolumes",
          "{'metadata':{'name':'pv'},'spec':{'capacity':{'storage':'1024Mi'},'accessModes':['ReadWriteMany',"
          "'ReadWriteOnce'],'persistentVolumeReclaimPolicy':'Retain','claimRef':{'namespace':'ns','name':'c'},"
          "'storageClassName':'fast','volumeMode':'Filesystem'},'status':{'phase':'Bound'}}",
          "Name|Capacity|Access Modes|Reclaim Policy|Status|Claim|StorageClass|VolumeAttributesClass|Reason|Age|"
          "VolumeMode*",
          "[\"pv\",\"1Gi\",\"RWO,RWX\",\"Retain\",\"Bound\",\"ns/c\",\"fast\",\"<unset>\",\"\",\"<unknown>\","
          "\"Filesystem\"]");
    check("", "v1", "persistentvolumeclaims",
          "{'metadata':{'name':'c','annotations':{'volume.beta.kubernetes.io/storage-class':'old'}},'spec':{"
          "'volumeName':'pv','storageClassName':'fast'},'status':{'phase':'Bound','capacity':{'storage':'5Gi'},"
          "'accessModes':['ReadWriteOnce']}}",
          "Name|Status|Volume|Capacity|Access Modes|StorageClass|VolumeAttributesClass|Age|VolumeMode*",
          "[\"c\",\"Bound\",\"pv\",\"5Gi\",\"RWO\",\"old\",\"<unset>\",\"<unknown>\",\"<unset>\"]");
    check("", "v1", "persistentvolumeclaims",
          "{'metadata':{'name':'c','deletionTimestamp':'2024-01-01T00:00:00Z'},'spec':{},'status':{'phase':'Pending'}}",
          "Name|Status|Volume|Capacity|Access Modes|StorageClass|VolumeAttributesClass|Age|VolumeMode*",
          "[\"c\",\"Terminating\",\"\",\"\",\"\",\"\",\"<unset>\",\"<unknown>\",\"<unset>\"]");
    check("", "v1", "nodes",
          "{'metadata':{'name':'n1','labels':{'node-role.kubernetes.io/worker':'','node-role.kubernetes.io/"
          "control-plane':'','kubernetes.io/role':'edge'}},'spec':{'unschedulable':true},'status':{'conditions':[{"
          "'type':'Ready','status':'True'}],'addresses':[{'type':'InternalIP','address':'10.1.1.1'}],'nodeInfo':{"
          "'kubeletVersion':'v1.33.0','osImage':'Debian'}}}",
          "Name|Status|Roles|Age|Version|Internal-IP*|External-IP*|OS-Image*|Kernel-Version*|Container-Runtime*",
          "[\"n1\",\"Ready,SchedulingDisabled\",\"control-plane,edge,worker\",\"<unknown>\",\"v1.33.0\",\"10.1.1.1\","
          "\"<none>\",\"Debian\",\"<unknown>\",\"<unknown>\"]");
    check("", "v1", "resourcequotas",
          "{'metadata':{'name':'q'},'status':{'hard':{'pods':'10','limits.cpu':'2','requests.memory':'1024Mi'},"
          "'used':{'pods':'1','limits.cpu':'500m'}}}",
          "Name|Request|Limit|Age",
          "[\"q\",\"pods: 1/10, requests.memory: 0/1Gi\",\"limits.cpu: 500m/2\",\"<unknown>\"]");
    check("", "v1", "services",
          "{'metadata':{'name':'s'},'spec':{'type':'NodePort','clusterIP':'10.0.0.5','ports':[{'port':80,'protocol':"
          "'TCP','nodePort':30080}],'selector':{'b':'2','a':'1'}}}",
          "Name|Type|Cluster-IP|External-IP|Port(s)|Age|Selector*",
          "[\"s\",\"NodePort\",\"10.0.0.5\",\"<none>\",\"80:30080/TCP\",\"<unknown>\",\"a=1,b=2\"]");
    /* kinds without an upstream printer: the default table convertor */
    check("", "v1", "limitranges", "{'metadata':{'name':'l','creationTimestamp':'2024-01-02T03:04:05Z'}}",
          "Name|Created At", "[\"l\",\"2024-01-02T03:04:05Z\"]");
}

static void test_pods(void **s)
{
    (void)s;
    check("", "v1", "pods",
          "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'a'},{'name':'b'}],'readinessGates':[{"
          "'conditionType':'x'}]},'status':{'phase':'Running','podIPs':[{'ip':'10.2.0.1'}],'conditions':[{'type':"
          "'x','status':'True'}],'containerStatuses':[{'name':'a','ready':true,'restartCount':2,'state':{'running':"
          "{}}},{'name':'b','ready':false,'restartCount':1,'state':{'waiting':{'reason':'CrashLoopBackOff'}}}]}}",
          "Name|Ready|Status|Restarts|Age|IP*|Node*|Nominated Node*|Readiness Gates*",
          "[\"p\",\"1/2\",\"CrashLoopBackOff\",\"3\",\"<unknown>\",\"10.2.0.1\",\"<none>\",\"<none>\",\"1/1\"]");
    const char *cols;
    check("", "v1", "pods",
          "{'metadata':{'name':'p'},'spec':{'initContainers':[{'name':'i1'},{'name':'i2'}],'containers':[{'name':"
          "'a'}]},'status':{'phase':'Pending','initContainerStatuses':[{'name':'i1','state':{'terminated':{"
          "'exitCode':0}}},{'name':'i2','state':{'running':{}}}]}}",
          "Name|Ready|Status|Restarts|Age|IP*|Node*|Nominated Node*|Readiness Gates*",
          "[\"p\",\"0/1\",\"Init:1/2\",\"0\",\"<unknown>\",\"<none>\",\"<none>\",\"<none>\",\"<none>\"]");
    check("", "v1", "pods",
          "{'metadata':{'name':'p','deletionTimestamp':'2024-01-01T00:00:00Z'},'spec':{'containers':[{'name':'a'}]},"
          "'status':{'phase':'Running'}}",
          "Name|Ready|Status|Restarts|Age|IP*|Node*|Nominated Node*|Readiness Gates*",
          "[\"p\",\"0/1\",\"Terminating\",\"0\",\"<unknown>\",\"<none>\",\"<none>\",\"<none>\",\"<none>\"]");
    /* a restart with a known time shows how long ago */
    const char *cells =
        row("", "v1", "pods",
            "{'metadata':{'name':'p'},'spec':{'containers':[{'name':'a'}]},'status':{'phase':'Running',"
            "'containerStatuses':[{'name':'a','restartCount':4,'lastState':{'terminated':{'exitCode':1,'finishedAt':"
            "'2020-01-01T00:00:00Z'}},'state':{'terminated':{'exitCode':137}}}]}}",
            &cols);
    assert_non_null(strstr(cells, "\"ExitCode:137\",\"4 ("));
    assert_non_null(strstr(cells, " ago)\""));
}

static void test_workloads(void **s)
{
    (void)s;
    check("apps", "v1", "daemonsets",
          "{'metadata':{'name':'d'},'spec':{'selector':{'matchLabels':{'app':'d'},'matchExpressions':[{'key':'tier',"
          "'operator':'In','values':['b','a']}]},'template':{'spec':{'nodeSelector':{'os':'linux'},'containers':[{"
          "'name':'c','image':'i'}]}}},'status':{'desiredNumberScheduled':3,'numberReady':2}}",
          "Name|Desired|Current|Ready|Up-to-date|Available|Node Selector|Age|Containers*|Images*|Selector*",
          "[\"d\",3,0,2,0,0,\"os=linux\",\"<unknown>\",\"c\",\"i\",\"app=d,tier in (a,b)\"]");
    check("batch", "v1", "jobs",
          "{'metadata':{'name':'j'},'spec':{'parallelism':3,'selector':{'matchLabels':{'batch.kubernetes.io/"
          "controller-uid':'u'}},'template':{'spec':{'containers':[{'name':'c','image':'i'}]}}},'status':{"
          "'succeeded':1,'startTime':'2024-01-01T00:00:00Z','completionTime':'2024-01-01T00:02:05Z','conditions':[{"
          "'type':'Complete','status':'True'}]}}",
          "Name|Status|Completions|Duration|Age|Containers*|Images*|Selector*",
          "[\"j\",\"Complete\",\"1/1 of 3\",\"2m5s\",\"<unknown>\",\"c\",\"i\",\"batch.kubernetes.io/"
          "controller-uid=u\"]");
    check("batch", "v1", "jobs",
          "{'metadata':{'name':'j'},'spec':{'completions':2,'template':{'spec':{'containers':[]}}},'status':{"
          "'conditions':[{'type':'Suspended','status':'True'}]}}",
          "Name|Status|Completions|Duration|Age|Containers*|Images*|Selector*",
          "[\"j\",\"Suspended\",\"0/2\",\"\",\"<unknown>\",\"\",\"\",\"<none>\"]");
    check("batch", "v1", "cronjobs",
          "{'metadata':{'name':'cj'},'spec':{'schedule':'*/5 * * * *','timeZone':'Europe/Paris','suspend':false,"
          "'jobTemplate':{'spec':{'template':{'spec':{'containers':[{'name':'c','image':'i'}]}}}}}}",
          "Name|Schedule|Timezone|Suspend|Active|Last Schedule|Age|Containers*|Images*|Selector*",
          "[\"cj\",\"*/5 * * * *\",\"Europe/Paris\",\"False\",0,\"<none>\",\"<unknown>\",\"c\",\"i\",\"<none>\"]");
    check("", "v1", "replicationcontrollers",
          "{'metadata':{'name':'rc'},'spec':{'replicas':2,'selector':{'z':'1','a':'2'},'template':{'spec':{"
          "'containers':[]}}}}",
          "Name|Desired|Current|Ready|Age|Containers*|Images*|Selector*",
          "[\"rc\",2,0,0,\"<unknown>\",\"\",\"\",\"a=2,z=1\"]");
}

static void test_cluster(void **s)
{
    (void)s;
    check("storage.k8s.io", "v1", "storageclasses",
          "{'metadata':{'name':'sc','annotations':{'storageclass.kubernetes.io/is-default-class':'true'}},"
          "'provisioner':'csi.x','allowVolumeExpansion':true}",
          "Name|Provisioner|ReclaimPolicy|VolumeBindingMode|AllowVolumeExpansion|Age",
          "[\"sc (default)\",\"csi.x\",\"Delete\",\"Immediate\",true,\"<unknown>\"]");
    check("scheduling.k8s.io", "v1", "priorityclasses",
          "{'metadata':{'name':'pc'},'value':1000,'preemptionPolicy':'Never'}",
          "Name|Value|Global-Default|Age|PreemptionPolicy", "[\"pc\",1000,false,\"<unknown>\",\"Never\"]");
    check("networking.k8s.io", "v1", "ingresses",
          "{'metadata':{'name':'i'},'spec':{'ingressClassName':'nginx','tls':[{}],'rules':[{'host':'a.com'},{},"
          "{'host':'b.com'}]},'status':{'loadBalancer':{'ingress':[{'ip':'10.0.0.9'},{'hostname':'lb.x'}]}}}",
          "Name|Class|Hosts|Address|Ports|Age",
          "[\"i\",\"nginx\",\"a.com,b.com\",\"10.0.0.9,lb.x\",\"80, 443\",\"<unknown>\"]");
    check("networking.k8s.io", "v1", "ingresses", "{'metadata':{'name':'i'},'spec':{}}",
          "Name|Class|Hosts|Address|Ports|Age", "[\"i\",\"<none>\",\"*\",\"\",\"80\",\"<unknown>\"]");
    check("networking.k8s.io", "v1", "ingressclasses",
          "{'metadata':{'name':'ic'},'spec':{'controller':'k8s.io/ingress-nginx','parameters':{'apiGroup':'k8s.x',"
          "'kind':'Params','name':'p'}}}",
          "Name|Controller|Parameters|Age", "[\"ic\",\"k8s.io/ingress-nginx\",\"Params.k8s.x/p\",\"<unknown>\"]");
    check("node.k8s.io", "v1", "runtimeclasses", "{'metadata':{'name':'rc'},'handler':'runc'}", "Name|Handler|Age",
          "[\"rc\",\"runc\",\"<unknown>\"]");
    check("certificates.k8s.io", "v1", "certificatesigningrequests",
          "{'metadata':{'name':'csr'},'spec':{'signerName':'kubernetes.io/kube-apiserver-client','username':'alice',"
          "'expirationSeconds':86400},'status':{'certificate':'Zm9v','conditions':[{'type':'Approved','status':"
          "'True'}]}}",
          "Name|Age|SignerName|Requestor|RequestedDuration|Condition",
          "[\"csr\",\"<unknown>\",\"kubernetes.io/kube-apiserver-client\",\"alice\",\"24h\",\"Approved,Issued\"]");
    check("rbac.authorization.k8s.io", "v1", "rolebindings",
          "{'metadata':{'name':'rb'},'roleRef':{'kind':'ClusterRole','name':'view'},'subjects':[{'kind':'User',"
          "'name':'alice'},{'kind':'ServiceAccount','name':'sa','namespace':'ns'},{'kind':'User','name':'bob'},{"
          "'kind':'Group','name':'devs'}]}",
          "Name|Role|Age|Users*|Groups*|ServiceAccounts*",
          "[\"rb\",\"ClusterRole/view\",\"<unknown>\",\"alice, bob\",\"devs\",\"ns/sa\"]");
    check("rbac.authorization.k8s.io", "v1", "clusterroles",
          "{'metadata':{'name':'cr','creationTimestamp':'2025-06-30T23:59:59Z'}}", "Name|Created At",
          "[\"cr\",\"2025-06-30T23:59:59Z\"]");
    check("apiextensions.k8s.io", "v1", "customresourcedefinitions", "{'metadata':{'name':'a.b.c'}}", "Name|Created At",
          "[\"a.b.c\",\"0001-01-01T00:00:00Z\"]");
}

static void test_hpa(void **s)
{
    (void)s;
    check("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations",
          "{'metadata':{'name':'exempt'},'spec':{'type':'Exempt','exempt':{'nominalConcurrencyShares':0}}}",
          "Name|Type|NominalConcurrencyShares|Queues|HandSize|QueueLengthLimit|Age",
          "[\"exempt\",\"Exempt\",\"<none>\",\"<none>\",\"<none>\",\"<none>\",\"<unknown>\"]");
    const char *cols;
    const char *cells =
        row("autoscaling", "v2", "horizontalpodautoscalers",
            "{'metadata':{'name':'h'},'spec':{'scaleTargetRef':{'kind':'Deployment','name':'web'},'minReplicas':2,"
            "'maxReplicas':5,'metrics':[{'type':'Pods','pods':{'metric':{'name':'qps'},'target':{'type':"
            "'AverageValue','averageValue':'10'}}},{'type':'Object','object':{'metric':{'name':'hits'},"
            "'describedObject':{'kind':'Service','name':'s'},'target':{'type':'AverageValue','averageValue':'3'}}},"
            "{'type':'Resource','resource':{'name':'memory','target':{'type':'Utilization'}}}]}}",
            &cols);
    assert_string_equal(cols, "Name|Reference|Targets|MinPods|MaxPods|Replicas|Age");
    assert_string_equal(cells, "[\"h\",\"Deployment/web\",\"<unknown>/10, <unknown>/3 (avg) + 1 more...\",\"2\",5,0,"
                               "\"<unknown>\"]");
    cells = row("autoscaling", "v2", "horizontalpodautoscalers",
                "{'metadata':{'name':'h'},'spec':{'scaleTargetRef':{'kind':'Deployment','name':'web'},'maxReplicas':3,"
                "'metrics':[{'type':'Resource','resource':{'name':'cpu','target':{'type':'Utilization'}}}]}}",
                &cols);
    assert_string_equal(cells, "[\"h\",\"Deployment/web\",\"cpu: <unknown>/<auto>\",\"<unset>\",3,0,\"<unknown>\"]");
}

static void test_admission(void **s)
{
    (void)s;
    check("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
          "{'metadata':{'name':'w'},'webhooks':[{'name':'a.b'},{'name':'c.d'}]}", "Name|Webhooks|Age",
          "[\"w\",2,\"<unknown>\"]");
    check("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "{'metadata':{'name':'w'}}",
          "Name|Webhooks|Age", "[\"w\",0,\"<unknown>\"]");
    check("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies",
          "{'metadata':{'name':'p'},'spec':{'paramKind':{'apiVersion':'v1','kind':'ConfigMap'},'validations':[{"
          "'expression':'true'}]}}",
          "Name|Validations|ParamKind|Age", "[\"p\",1,\"v1/ConfigMap\",\"<unknown>\"]");
    check("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
          "{'metadata':{'name':'b'},'spec':{'policyName':'p','paramRef':{'name':'cfg'}}}",
          "Name|PolicyName|ParamRef|Age", "[\"b\",\"p\",\"*/cfg\",\"<unknown>\"]");
    check("admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
          "{'metadata':{'name':'b'},'spec':{'policyName':'p','paramRef':{'selector':{'matchLabels':{'b':'2','a':"
          "'1'},'matchExpressions':[{'key':'k','operator':'In','values':['x','y']}]}}}}",
          "Name|PolicyName|ParamRef|Age",
          "[\"b\",\"p\",\"&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]"
          "LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}\",\"<unknown>\"]");
    assert_true(kg_resources_serve_mutating_policies("v1beta1")); /* MutatingAdmissionPolicy is served on demand */
    check("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicies",
          "{'metadata':{'name':'m'},'spec':{'mutations':[{},{}]}}", "Name|Mutations|ParamKind|Age",
          "[\"m\",2,\"<unset>\",\"<unknown>\"]");
    check("admissionregistration.k8s.io", "v1beta1", "mutatingadmissionpolicybindings",
          "{'metadata':{'name':'mb'},'spec':{'policyName':'m','paramRef':{'name':'x','namespace':'ns'}}}",
          "Name|PolicyName|ParamRef|Age", "[\"mb\",\"m\",\"ns/x\",\"<unknown>\"]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_core, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_workloads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cluster, setup, teardown),
        cmocka_unit_test_setup_teardown(test_admission, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hpa, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
