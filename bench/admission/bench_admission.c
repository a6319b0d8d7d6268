/* Admission of a typical pod create through the whole default chain, in-process (no HTTP, no store), with
 * populated cluster state: 50 namespaces labelled pod-security.kubernetes.io/enforce=baseline (so PodSecurity
 * evaluates the pod), each with a LimitRange and a ResourceQuota, plus PriorityClasses, ServiceAccounts and a default
 * StorageClass. Prints ns per admission and the chain it ran.
 * Usage: bench_admission [seconds [plugins-to-disable [policies]]]
 * policies: install that many matching ValidatingAdmissionPolicies with Deny bindings (2 validations each; the first
 * two take a ConfigMap param, the third has 3 variables), as issue 14's benchmark describes for 10. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/chain.h"
#include "admission/memcluster.h"
#include "admission/registry.h"

static const char *POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\",\"namespace\":\"ns-7\",\"labels\":{"
    "\"app\":\"web\",\"tier\":\"frontend\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":"
    "\"registry.example.com/web:1.2.3\",\"ports\":[{\"containerPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{"
    "\"requests\":{\"cpu\":\"250m\",\"memory\":\"128Mi\"},\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"}},"
    "\"imagePullPolicy\":\"IfNotPresent\",\"terminationMessagePath\":\"/dev/termination-log\","
    "\"terminationMessagePolicy\":\"File\"},{\"name\":\"sidecar\",\"image\":\"registry.example.com/proxy:1.0\","
    "\"resources\":{}}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":"
    "\"ClusterFirst\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},\"enableServiceLinks\":true}}";

static void put(kg_admission_memcluster *m, const char *resource, const char *json)
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of this thread: on a shared machine, time spent descheduled is not the code's cost */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    kg_admission_memcluster *m = kg_admission_memcluster_new();
    char buf[1024];
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns-%d\",\"labels\":{"
                 "\"pod-security.kubernetes.io/enforce\":\"baseline\"}},\"status\":{\"phase\":\"Active\"}}",
                 i);
        put(m, "namespaces", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"limits\",\"namespace\":"
                 "\"ns-%d\"},\"spec\":{\"limits\":[{\"type\":\"Container\",\"default\":{\"cpu\":\"500m\",\"memory\":"
                 "\"256Mi\"},\"defaultRequest\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"max\":{\"cpu\":\"2\"}}]}}",
                 i);
        put(m, "limitranges", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"metadata\":{\"name\":\"quota\",\"namespace\":"
                 "\"ns-%d\"},\"spec\":{\"hard\":{\"pods\":\"1000\",\"requests.cpu\":\"1000\",\"requests.memory\":"
                 "\"1000Gi\"}},\"status\":{\"hard\":{\"pods\":\"1000\",\"requests.cpu\":\"1000\",\"requests.memory\":"
                 "\"1000Gi\"},\"used\":{\"pods\":\"0\",\"requests.cpu\":\"0\",\"requests.memory\":\"0\"}}}",
                 i);
        put(m, "resourcequotas", buf);
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\",\"namespace\":"
                 "\"ns-%d\"}}",
                 i);
        put(m, "serviceaccounts", buf);
    }
    put(m, "priorityclasses",
        "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
        "\"name\":\"high\"},\"value\":1000}");
    put(m, "priorityclasses",
        "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{"
        "\"name\":\"system-cluster-critical\"},\"value\":2000000000}");
    put(m, "storageclasses",
        "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"name\":"
        "\"standard\",\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"}},"
        "\"provisioner\":\"x\"}");
    int npolicies = argc > 3 ? atoi(argv[3]) : 0;
    for (int i = 0; i < 50 && npolicies > 0; i++) {
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"limits\",\"namespace\":"
                 "\"ns-%d\"},\"data\":{\"maxContainers\":\"4\"}}",
                 i);
        put(m, "configmaps", buf);
    }
    for (int i = 0; i < npolicies; i++) {
        char pbuf[2048];
        const char *extra = i < 2    ? "\"paramKind\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"},"
                            : i == 2 ? "\"variables\":[{\"name\":\"containers\",\"expression\":\"object.spec."
                                       "containers\"},{\"name\":\"n\",\"expression\":\"variables.containers.size()\"},"
                                       "{\"name\":\"images\",\"expression\":\"variables.containers.map(c, c.image)\"}],"
                                     : "";
        const char *vals =
            i < 2    ? "{\"expression\":\"object.spec.containers.size() <= int(params.data.maxContainers)\"},"
                       "{\"expression\":\"object.metadata.name.size() < 64\"}"
            : i == 2 ? "{\"expression\":\"variables.n < 10\"},{\"expression\":\"variables.images.all(x, "
                       "x.startsWith('registry.example.com/'))\"}"
                     : "{\"expression\":\"object.spec.containers.all(c, has(c.image))\"},{\"expression\":"
                       "\"object.metadata.name.size() < 64\",\"messageExpression\":\"'name too long'\"}";
        snprintf(pbuf, sizeof pbuf,
                 "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\","
                 "\"metadata\":{\"name\":\"p-%d\"},\"spec\":{\"failurePolicy\":\"Fail\",%s\"matchConstraints\":{"
                 "\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],"
                 "\"resources\":[\"pods\"]}]},\"validations\":[%s]}}",
                 i, extra, vals);
        put(m, "validatingadmissionpolicies", pbuf);
        snprintf(pbuf, sizeof pbuf,
                 "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicyBinding\","
                 "\"metadata\":{\"name\":\"b-%d\"},\"spec\":{\"policyName\":\"p-%d\",\"validationActions\":["
                 "\"Deny\"]%s}}",
                 i, i, i < 2 ? ",\"paramRef\":{\"name\":\"limits\",\"parameterNotFoundAction\":\"Deny\"}" : "");
        put(m, "validatingadmissionpolicybindings", pbuf);
    }
    kg_admission_options opts = {0}; /* the v1.33 default set (the implemented part of it) */
    if (argc > 2 && *argv[2])
        opts.disable_plugins = argv[2]; /* per-plugin cost: bench_admission SECONDS Plugin1,Plugin2 */
    kg_error err;
    static kg_admission_services svc;
    svc = kg_admission_memcluster_services(m, NULL);
    kg_admission_chain *chain = kg_admission_chain_new(&opts, &svc, NULL, &err);
    if (!chain) {
        fprintf(stderr, "bench_admission: %s\n", err.msg);
        return 1;
    }
    kg_arena a;
    kg_arena_init(&a, 64 * 1024);
    kg_json *pod_template = NULL;
    {
        static kg_arena keep;
        kg_arena_init(&keep, 0);
        pod_template = kg_json_parse(&keep, POD, strlen(POD), &err);
    }
    long iters = 0, rejected = 0;
    double t0 = now(), c0 = cpu_now(), el;
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
                rejected++;
            kg_arena_reset(&a);
        }
        iters += 1000;
        el = now() - t0;
    } while (el < secs);
    double cpu = cpu_now() - c0;
    printf(
        "{\"ns_per_pod\":%.0f,\"cpu_ns_per_pod\":%.0f,\"iterations\":%ld,\"rejected\":%ld,\"plugins\":%zu,\"chain\":\"",
        el / iters * 1e9, cpu / iters * 1e9, iters, rejected, kg_admission_chain_len(chain));
    for (size_t i = 0; i < kg_admission_chain_len(chain); i++)
        printf("%s%s", i ? "," : "", kg_admission_chain_name(chain, i));
    printf("\",\"policies\":%d,\"goal_ns_per_pod\":5000}\n", npolicies);
    kg_admission_chain_free(chain);
    kg_admission_memcluster_free(m);
    kg_arena_free(&a);
    return 0;
}
