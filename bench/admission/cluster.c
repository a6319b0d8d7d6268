/* Shared by the admission benchmarks (see cluster.h). */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const BENCH_POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":\"ns-7\",\"labels\":{"
    "\"app\":\"web\",\"tier\":\"frontend\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":"
    "\"registry.example.com/web:1.2.3\",\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{"
    "\"requests\":{\"cpu\":\"250m\",\"memory\":\"128Mi\"},\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"}},"
    "\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termination-log\","
    "\"terminationMessagePolicy\":\"File\"},{\"name\":\"sidecar\",\"image\":\"registry.example.com/proxy:1.0\","
    "\"resources\":{}}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":"
    "\"ClusterFirst\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},\"enableServiceLinks\":true}}";

void bench_put(kg_admission_memcluster *m, const char *resource, const char *json)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *o = kg_json_parse(&a, json, strlen(json), &err);
    if (!o || !kg_admission_memcluster_put(m, resource, o, 0, &err)) {
        fprintf(stderr, "bench_admission: cannot load %s: %s\n", resource, err.msg);
        exit(1);
    }
    kg_arena_free(&a);
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this thread: on a shared machine, time spent descheduled is not the code's cost */
double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

kg_admission_memcluster *bench_cluster_new(void)
{
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    char buf[1024];
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns-%d\",\"labels\":{"
                 "\"pod-security.kubernetes.io/enforce\":\"baseline\"}},\"status\":{\"phase\":\"Active\"}}",
                 i);
        bench_put(m, "namespaces", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"limits\",\"namespace\":"
                 "\"ns-%d\"},\"spec\":{\"limits\":[{\"type\":\"Container\",\"default\":{\"cpu\":\"500m\",\"memory\":"
                 "\"256Mi\"},\"defaultRequest\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"max\":{\"cpu\":\"2\"}}]}}",
                 i);
        bench_put(m, "limitranges", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"quota\",\"namespace\":"
                 "\"ns-%d\"},\"spec\":{\"hard\":{\"pods\":\"1000\",\"requests.cpu\":\"1000\",\"requests.memory\":"
                 "\"1000Gi\"}},\"status\":{\"hard\":{\"pods\":\"1000\",\"requests.cpu\":\"1000\",\"requests.memory\":"
                 "\"1000Gi\"},\"used\":{\"pods\":\"0\",\"requests.cpu\":\"0\",\"requests.memory\":\"0\"}}}",
                 i);
        bench_put(m, "resourcequotas", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\",\"namespace\":"
                 "\"ns-%d\"}}",
                 i);
        bench_put(m, "serviceaccounts", buf);
    }
    bench_put(m, "priorityclasses",
              "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
              "\"name\":\"high\"},\"value\":1000}");
    bench_put(m, "priorityclasses",
              "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
              "\"name\":\"system-cluster-critical\"},\"value\":2000000000}");
    bench_put(m, "storageclasses",
              "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":"
              "\"standard\",\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"}},"
              "\"provisioner\":\"x\"}");
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"limits\",\"namespace\":"
                 "\"ns-%d\"},\"data\":{\"maxContainers\":\"4\"}}",
                 i);
        bench_put(m, "configmaps", buf);
    }
    return m;
}

void bench_put_policy(kg_admission_memcluster *m, int i, int limit, int rv)
{
    bench_put_policy_as(m, i, limit, rv, "validatingadmissionpolicies", "validatingadmissionpolicybindings");
}

void bench_put_policy_as(kg_admission_memcluster *m, int i, int limit, int rv, const char *policies,
                         const char *bindings)
{
    char pbuf[2048], vals[512];
    const char *extra = i < 2    ? "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
                        : i == 2 ? "\"variables\":[{\"name\":\"containers\",\"expression\":\"object.spec."
                                   "containers\"},{\"name\":\"n\",\"expression\":\"variables.containers.size()\"},"
                                   "{\"name\":\"images\",\"expression\":\"variables.containers.map(c, c.image)\"}],"
                                 : "";
    if (i < 2)
        snprintf(vals, sizeof vals,
                 "{\"expression\":\"object.spec.containers.size() <= int(params.data.maxContainers)\"},"
                 "{\"expression\":\"object.metadata.name.size() < %d\"}",
                 limit);
    else if (i == 2)
        snprintf(vals, sizeof vals,
                 "{\"expression\":\"variables.n < 10\"},{\"expression\":\"variables.images.all(x, "
                 "x.startsWith('registry.example.com/'))\"}");
    else
        snprintf(vals, sizeof vals,
                 "{\"expression\":\"object.spec.containers.all(c, has(c.image))\"},{\"expression\":"
                 "\"object.metadata.name.size() < %d\",\"messageExpression\":\"'name too long'\"}",
                 limit);
    snprintf(pbuf, sizeof pbuf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
             "\"metadata\":{\"name\":\"p-%d\",\"resourceVersion\":\"%d\"},\"spec\":{\"failurePolicy\":\"Fail\",%s"
             "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],"
             "\"operations\":[\"CREATE\"],\"resources\":[\"pods\"]}]},\"validations\":[%s]}}",
             i, rv, extra, vals);
    bench_put(m, policies, pbuf);
    snprintf(pbuf, sizeof pbuf,
             "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicyBinding\","
             "\"metadata\":{\"name\":\"b-%d\",\"resourceVersion\":\"%d\"},\"spec\":{\"policyName\":\"p-%d\","
             "\"validationActions\":[\"Deny\"]%s}}",
             i, rv, i, i < 2 ? ",\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"}" : "");
    if (bindings)
        bench_put(m, bindings, pbuf);
}

void bench_admit_loop(const kg_admission_chain *chain, double secs, double *ns_per_pod, double *cpu_ns_per_pod,
                      long *iterations, long *rejected)
{
    static kg_arena keep;
    static kg_json *pod_template;
    kg_error err;
    if (!pod_template) {
        kg_arena_init(&keep, 0);
        pod_template = kg_json_parse(&keep, BENCH_POD, strlen(BENCH_POD), &err);
    }
    kg_arena a;
    kg_arena_init(&a, 64 * 1024);
    long iters = 0, rej = 0;
    double t0 = bench_now(), c0 = bench_cpu_now(), el;
    do {
        for (int i = 0; i < 1000; i++) {
            kg_admission_attributes at;
            kg_admission_attrs_init(&at, &a);
            at.operation = KG_ADMISSION_CREATE;
            at.kind = (kg_gvk){"", "v1", "Pod"};
            at.resource = (kg_gvr){"", "v1", "pods"};
            at.name = "web-0";
            at.ns = "ns-7";
            at.object = kg_json_clone(&a, pod_template);
            at.user.name = "alice";
            at.dry_run = true; /* no side effects: every iteration admits the same pod */
            if (kg_admission_chain_run(chain, &at))
                rej++;
            kg_arena_reset(&a);
        }
        iters += 1000;
        el = bench_now() - t0;
    } while (el < secs);
    double cpu = bench_cpu_now() - c0;
    *ns_per_pod = el / iters * 1e9;
    *cpu_ns_per_pod = cpu / iters * 1e9;
    *iterations = iters;
    *rejected = rej;
    kg_arena_free(&a);
}

void bench_remove_policy(kg_admission_memcluster *m, int i)
{
    char name[32];
    snprintf(name, sizeof name, "p-%d", i);
    kg_admission_memcluster_remove(m, "validatingadmissionpolicies", "", name);
    snprintf(name, sizeof name, "b-%d", i);
    kg_admission_memcluster_remove(m, "validatingadmissionpolicybindings", "", name);
}
