/* kgate webhook's work per AdmissionReview without the network, on one thread: decode the review, run the door's
 * validating chain (PodSecurity with the namespace enforcing restricted, plus 10 ValidatingAdmissionPolicies bound
 * to pods), encode and serialize the answer — what the door's /validate handler does between the HTTP layer's read
 * and write. Prints JSON: reviews/s and p50/p99/max latency per review.
 *   bench_review [seconds]
 *   bench_review --dump DIR   write the policy dir (policies.yaml) and the review (review.json) for run.sh's HTTPS
 *                             measurement, so both measure the same thing */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/chain.h"
#include "base/buf.h"
#include "check/cluster.h"
#include "webhookdoor/door.h"
#include "webhookdoor/review.h"
#include "yaml/yaml.h"

static const char pod_review[] =
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"705ab4f5-6393-11e8-"
    "b7cc-42010a800002\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"resource\":{\"group\":\"\","
    "\"version\":\"v1\",\"resource\":\"pods\"},\"namespace\":\"bench\",\"name\":\"web\",\"operation\":\"CREATE\","
    "\"userInfo\":{\"username\":\"system:serviceaccount:kube-system:replicaset-controller\",\"uid\":\"u\",\"groups\":"
    "[\"system:serviceaccounts\",\"system:authenticated\"]},\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
    "\"metadata\":{\"name\":\"web\",\"namespace\":\"bench\",\"labels\":{\"app\":\"web\",\"team\":\"a\"}},\"spec\":{"
    "\"securityContext\":{\"runAsNonRoot\":true,\"seccompProfile\":{\"type\":\"RuntimeDefault\"}},\"containers\":[{"
    "\"name\":\"app\",\"image\":\"registry.example.com/web:1.25\",\"ports\":[{\"containerPort\":8080}],"
    "\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"},\"requests\":{\"cpu\":\"100m\",\"memory\":"
    "\"128Mi\"}},\"securityContext\":{\"allowPrivilegeEscalation\":false,\"capabilities\":{\"drop\":[\"ALL\"]}}}]}},"
    "\"oldObject\":null,\"dryRun\":false,\"options\":{\"apiVersion\":\"meta.k8s.io/v1\",\"kind\":\"CreateOptions\"}}}";

/* Ten policies of the kinds clusters run on pods: labels, images, resources, ports, names. */
static const char *const exprs[10] = {
    "has(object.metadata.labels) && 'app' in object.metadata.labels",
    "has(object.metadata.labels) && 'team' in object.metadata.labels",
    "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    "object.spec.containers.all(c, !c.image.endsWith(':latest'))",
    "object.spec.containers.all(c, has(c.resources) && has(c.resources.limits) && 'memory' in c.resources.limits)",
    "object.spec.containers.all(c, has(c.resources.requests) && 'cpu' in c.resources.requests)",
    "!has(object.spec.hostNetwork) || !object.spec.hostNetwork",
    "object.spec.containers.all(c, !has(c.ports) || c.ports.all(p, p.containerPort >= 1024))",
    "object.metadata.name.size() <= 63",
    "object.spec.containers.size() <= 10",
};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static FILE *dump; /* --dump: policies.yaml */

static void load_yaml(kg_check_cluster *c, kg_arena *a, const char *y)
{
    if (dump)
        fprintf(dump, "---\n%s", y);
    KG_ERROR_DECL(err);
    kg_json *o = kg_yaml_parse(a, y, strlen(y), &err);
    if (!o || !kg_check_load(c, a, o, &err)) {
        fprintf(stderr, "bench_review: loading: %s\n%s\n", err.msg, y);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    const char *dump_dir = argc > 2 && !strcmp(argv[1], "--dump") ? argv[2] : NULL;
    double seconds = argc > 1 && !dump_dir ? atof(argv[1]) : 5;
    if (dump_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/review.json", dump_dir);
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fputs(pod_review, f);
        fclose(f);
        snprintf(path, sizeof path, "%s/policies.yaml", dump_dir);
        if (!(dump = fopen(path, "w")))
            return 1;
    }
    kg_admission_options in = {0}, opts;
    char disable[4096];
    kg_door_admission_options(&in, &opts, disable, sizeof disable);
    kg_check_config cc = {.admission = opts};
    KG_ERROR_DECL(err);
    kg_check_cluster *c = kg_check_cluster_new(&cc, &err);
    if (!c) {
        fprintf(stderr, "bench_review: %s\n", err.msg);
        return 1;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    load_yaml(c, &a,
              "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bench\n  labels: "
              "{pod-security.kubernetes.io/enforce: restricted}\n");
    for (int i = 0; i < 10; i++) {
        load_yaml(c, &a,
                  kg_arena_sprintf(&a,
                                   "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n"
                                   "metadata: {name: p%d}\nspec:\n  matchConstraints:\n    resourceRules: "
                                   "[{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE, UPDATE], "
                                   "resources: [pods]}]\n  validations:\n  - expression: \"%s\"\n",
                                   i, exprs[i]));
        load_yaml(c, &a,
                  kg_arena_sprintf(&a,
                                   "apiVersion: admissionregistration.k8s.io/v1\nkind: "
                                   "ValidatingAdmissionPolicyBinding\nmetadata: {name: p%d}\nspec: {policyName: p%d, "
                                   "validationActions: [Deny]}\n",
                                   i, i));
    }
    if (dump) {
        fclose(dump);
        return 0;
    }
    const kg_admission_chain *chain = kg_check_cluster_chain(c);
    /* the policies do run: the same pod with a :latest image is denied by p3 */
    {
        char *bad = kg_arena_strdup(&a, pod_review);
        char *img = strstr(bad, "web:1.25");
        memcpy(img, "web:last", 8);
        kg_buf tmp = KG_BUF_INIT;
        kg_buf_printf(&tmp, "%.*s:latest%s", (int)(img + 3 - bad), bad, img + 8);
        kg_door_review rv;
        kg_status *st = kg_door_review_decode(&a, tmp.data, tmp.len, &rv, &err)
                            ? kg_admission_chain_validate(chain, &rv.attrs)
                            : NULL;
        if (!st || !strstr(st->message, "'p3'")) {
            fprintf(stderr, "bench_review: a :latest image was not denied by policy p3 (%s)\n",
                    st ? st->message : "allowed");
            return 1;
        }
        kg_buf_free(&tmp);
    }
    size_t cap = 1 << 22, n = 0;
    int64_t *lat = malloc(cap * sizeof *lat);
    kg_arena ra;
    kg_arena_init(&ra, 64 * 1024);
    kg_buf out = KG_BUF_INIT;
    size_t denied = 0;
    int64_t t0 = now_ns(), end = t0 + (int64_t)(seconds * 1e9), warm = t0 + 500000000;
    bool measuring = false;
    int64_t start = t0;
    for (;;) {
        int64_t s = now_ns();
        if (!measuring && s >= warm) {
            measuring = true;
            start = s;
            end = s + (int64_t)(seconds * 1e9);
        }
        if (s >= end)
            break;
        kg_arena_reset(&ra);
        kg_door_review rv;
        if (!kg_door_review_decode(&ra, pod_review, sizeof pod_review - 1, &rv, &err)) {
            fprintf(stderr, "bench_review: %s\n", err.msg);
            return 1;
        }
        kg_status *st = kg_admission_chain_validate(chain, &rv.attrs);
        denied += st != NULL;
        kg_buf_reset(&out);
        kg_json_write(&out, kg_door_review_response(&ra, &rv, st, NULL), 0);
        int64_t e = now_ns();
        if (measuring && n < cap)
            lat[n++] = e - s;
    }
    double secs = (double)(now_ns() - start) / 1e9;
    qsort(lat, n, sizeof *lat, cmp_i64);
    if (denied) {
        fprintf(stderr, "bench_review: %zu reviews denied (expected all allowed): %s\n", denied, kg_buf_cstr(&out));
        return 1;
    }
    printf("{\"reviews\":%zu,\"seconds\":%.2f,\"reviews_per_s\":%.0f,\"p50_us\":%.1f,\"p99_us\":%.1f,"
           "\"max_us\":%.1f,\"policies\":10,\"podsecurity\":\"restricted\",\"answer_bytes\":%zu}\n",
           n, secs, (double)n / secs, (double)lat[n / 2] / 1e3, (double)lat[n * 99 / 100] / 1e3,
           (double)lat[n - 1] / 1e3, out.len);
    kg_buf_free(&out);
    free(lat);
    kg_arena_free(&ra);
    kg_arena_free(&a);
    kg_check_cluster_free(c);
    return 0;
}
