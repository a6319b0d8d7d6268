/* Server-side apply of a Deployment vs a strategic-merge patch of the same change (issue 19: apply ≤ 2× the
 * patch), in the same run, through the whole write pipeline (registry/pipeline.h) over the in-memory store, no
 * admission chain: the image of the one container flips between two values on every write. Also the cost of the
 * managedFields bookkeeping on ordinary creates (ConfigMap creates with and without a field manager's entries
 * cannot be told apart here: see bench/results/ssa.md for the serve measurement).
 * Usage: bench_ssa [SECONDS]   Prints one JSON object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/resources.h"
#include "api/smd_schema.h"
#include "registry/pipeline.h"
#include "storage/storage.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *DEPLOY =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\","
    "\"labels\":{\"app\":\"web\",\"tier\":\"frontend\"}},\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{"
    "\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":"
    "\"nginx\",\"image\":\"%s\",\"ports\":[{\"containerPort\":80},{\"containerPort\":443}],\"env\":[{\"name\":\"A\","
    "\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}],\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":"
    "\"128Mi\"}}},{\"name\":\"sidecar\",\"image\":\"busybox\",\"command\":[\"sleep\",\"3600\"]}]}}}}";

static kg_json *parse(kg_arena *a, const char *text)
{
    kg_error e;
    kg_json *v = kg_json_parse(a, text, strlen(text), &e);
    if (!v) {
        fprintf(stderr, "bad JSON: %s\n", e.msg);
        exit(1);
    }
    return v;
}

static void must(bool ok, const kg_write_result *r, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s failed: %d %s\n", what, r->code, r->status ? r->status->message : "");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2;
    kg_error err;
    kg_store *store = kg_store_open("memory", NULL, NULL, &err);
    if (!store) {
        fprintf(stderr, "store: %s\n", err.msg);
        return 1;
    }
    kg_pipeline p = {.store = store};
    const kg_resource *deploy = kg_resource_find_kind("apps", "Deployment");
    const kg_resource *cms = kg_resource_find_kind("", "ConfigMap");
    kg_arena a;
    kg_arena_init(&a, 0);
    char buf[4096];
    kg_write_request rq;
    kg_write_result res;
    /* the two objects */
    const char *names[2] = {"smp", "ssa"};
    for (int i = 0; i < 2; i++) {
        kg_write_request_init(&rq, &a, deploy);
        rq.ns = "default";
        rq.field_manager = "kubectl";
        snprintf(buf, sizeof buf, DEPLOY, names[i], "nginx:1.0");
        kg_json *cfg = parse(&a, buf);
        if (i == 0)
            must(kg_pipeline_create(&p, &rq, cfg, &res), &res, "create");
        else {
            rq.name = names[i];
            must(kg_pipeline_apply(&p, &rq, cfg, false, &res), &res, "apply-create");
        }
        kg_arena_reset(&a);
    }
    double t_smp = 0, t_ssa = 0;
    long n = 0;
    double end = now_s() + secs;
    while (now_s() < end) {
        const char *img = n % 2 ? "nginx:1.0" : "nginx:2.0";
        /* strategic merge patch of the image */
        double t0 = now_s();
        kg_write_request_init(&rq, &a, deploy);
        rq.ns = "default";
        rq.name = "smp";
        snprintf(buf, sizeof buf,
                 "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"nginx\",\"image\":\"%s\"}]}}}}", img);
        must(kg_pipeline_patch(&p, &rq, KG_PATCH_FORMAT_STRATEGIC, parse(&a, buf), &res), &res, "patch");
        kg_arena_reset(&a);
        double t1 = now_s();
        /* server-side apply of the whole configuration with the new image */
        kg_write_request_init(&rq, &a, deploy);
        rq.ns = "default";
        rq.name = "ssa";
        rq.field_manager = "kubectl";
        snprintf(buf, sizeof buf, DEPLOY, "ssa", img);
        must(kg_pipeline_apply(&p, &rq, parse(&a, buf), false, &res), &res, "apply");
        kg_arena_reset(&a);
        double t2 = now_s();
        t_smp += t1 - t0;
        t_ssa += t2 - t1;
        n++;
    }
    /* ordinary ConfigMap creates (managedFields included) */
    long nc = 0;
    double c0 = now_s(), cend = c0 + secs / 2;
    while (now_s() < cend) {
        kg_write_request_init(&rq, &a, cms);
        rq.ns = "default";
        rq.user_agent = "kubectl/v1.33.0";
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c%ld\",\"labels\":{\"a\":"
                 "\"b\"}},\"data\":{\"k1\":\"v1\",\"k2\":\"v2\",\"k3\":\"v3\"}}",
                 nc);
        must(kg_pipeline_create(&p, &rq, parse(&a, buf), &res), &res, "configmap create");
        kg_arena_reset(&a);
        nc++;
    }
    double cdt = now_s() - c0;
    /* pod creates (bench/server's pod), and the managedFields step alone on the same (defaulted) pod */
    const kg_resource *pods = kg_resource_find_kind("", "Pod");
    long np = 0;
    double p0 = now_s(), pend = p0 + secs / 2;
    kg_json *stored = NULL;
    kg_arena keep;
    kg_arena_init(&keep, 0);
    while (now_s() < pend) {
        kg_write_request_init(&rq, &a, pods);
        rq.ns = "default";
        rq.user_agent = "kubectl/v1.33.0";
        snprintf(buf, sizeof buf,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p%ld\"},\"spec\":{"
                 "\"containers\":[{\"name\":\"c\",\"image\":\"x:1\"}]}}",
                 np);
        must(kg_pipeline_create(&p, &rq, parse(&a, buf), &res), &res, "pod create");
        if (!stored && res.bytes)
            stored = kg_json_parse(&keep, res.bytes, res.len, &err);
        kg_arena_reset(&a);
        np++;
    }
    double pdt = now_s() - p0;
    long nm = 0;
    double m0 = now_s(), mend = m0 + secs / 2;
    while (stored && now_s() < mend) {
        kg_smd_managers m = {0};
        kg_smd_op op = {.schema = kg_api_smd_schema(),
                        .root = kg_api_smd_root(pods),
                        .manager = "kubectl",
                        .api_version = "v1",
                        .subresource = "",
                        .now = "2026-01-01T00:00:00Z"};
        op.ignored = kg_smd_ignored_fields(&a, true);
        const char *e;
        if (!kg_smd_update(&a, &op, NULL, stored, &m, &e))
            return 1;
        kg_smd_managers_encode(&a, &m);
        kg_arena_reset(&a);
        nm++;
    }
    double mdt = now_s() - m0;
    double create_us = pdt / np * 1e6, mf_us = stored ? mdt / nm * 1e6 : 0;
    printf("{\"writes\":%ld,\"smp_us\":%.1f,\"ssa_us\":%.1f,\"ratio\":%.2f,\"configmap_creates_per_s\":%.0f,"
           "\"pod_create_us\":%.1f,\"pod_managed_fields_us\":%.2f,\"managed_fields_share\":%.3f}\n",
           n, t_smp / n * 1e6, t_ssa / n * 1e6, t_ssa / t_smp, nc / cdt, create_us, mf_us, mf_us / create_us);
    kg_arena_free(&keep);
    kg_arena_free(&a);
    kg_store_close(store);
    return 0;
}
