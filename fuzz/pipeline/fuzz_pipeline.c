/* The write pipeline (registry/pipeline.h) never crashes or leaks on any body: the very pipeline `kgate check` runs
 * (in-memory store, the default admission chain, the bootstrap objects), built once.
 * Input: the first byte picks a resource (byte % 10), an operation ((byte / 10) % 4: create, update of an object
 * created first from a valid template, JSON merge patch of it, JSON patch of it) and one of two object names
 * ((byte / 40) % 2); the rest is the body (the object, or the patch document).
 * Names are fixed so the store holds at most 20 fuzzed objects; webhook configurations are written dry-run (a stored
 * webhook with a URL would make every later input call out). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
#include "check/cluster.h"
#include "registry/pipeline.h"

typedef struct fuzz_resource {
    const char *group, *version, *plural, *template_json;
    bool dry_run;
} fuzz_resource;

static const fuzz_resource resources[] = {
    {"", "v1", "pods",
     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}",
     false},
    {"", "v1", "configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"b\"}}", false},
    {"", "v1", "secrets", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"Yg==\"}}", false},
    {"", "v1", "namespaces", "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\"}", false},
    {"", "v1", "services", "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"ports\":[{\"port\":80}]}}", false},
    {"apps", "v1", "deployments",
     "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"selector\":{\"matchLabels\":{\"a\":\"b\"}},"
     "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]"
     "}}}}",
     false},
    {"", "v1", "limitranges",
     "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"spec\":{\"limits\":[{\"type\":\"Container\",\"default\":{"
     "\"cpu\":"
     "\"100m\"}}]}}",
     false},
    {"", "v1", "resourcequotas",
     "{\"apiVersion\":\"v1\",\"kind\":\"ResourceQuota\",\"spec\":{\"hard\":{\"pods\":\"100\"}}}", false},
    {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies",
     "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingAdmissionPolicy\",\"spec\":{"
     "\"matchConstraints\":{\"resourceRules\":[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":["
     "\"CREATE\"],\"resources\":[\"configmaps\"]}]},\"validations\":[{\"expression\":\"true\"}]}}",
     false},
    {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
     "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":\"ValidatingWebhookConfiguration\",\"webhooks\":[]}",
     true},
};
#define NRES (sizeof(resources) / sizeof(resources[0]))

static kg_check_cluster *cluster;
static kg_pipeline pipeline;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    kg_check_config cfg = {0};
    kg_error err;
    cluster = kg_check_cluster_new(&cfg, &err);
    if (!cluster) {
        fprintf(stderr, "fuzz_pipeline: %s\n", err.msg);
        abort();
    }
    pipeline = (kg_pipeline){.store = kg_check_cluster_store(cluster), .chain = kg_check_cluster_chain(cluster)};
    return 0;
}

/* Gives an object body the request's name (a body that is no object, or whose metadata is no object, goes as is:
 * the pipeline must refuse it). */
static void set_name(kg_arena *a, kg_json *obj, const char *name)
{
    if (!obj || obj->type != KG_JSON_OBJECT)
        return;
    kg_json *md = kg_json_get(obj, "metadata");
    if (!md) {
        md = kg_json_new_object(a);
        kg_json_set(a, obj, "metadata", md);
    }
    if (md->type == KG_JSON_OBJECT)
        kg_json_set(a, md, "name", kg_json_new_str(a, name));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const fuzz_resource *fr = &resources[data[0] % NRES];
    int op = (data[0] / NRES) % 4;
    const char *name = (data[0] / (NRES * 4)) % 2 ? "fuzz-b" : "fuzz-a";
    const kg_resource *r = kg_resource_find(fr->group, fr->version, fr->plural);
    if (!r)
        abort();
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *body = kg_json_parse(&a, (const char *)data + 1, size - 1, &err);
    if (body) {
        kg_warnings w;
        kg_warnings_init(&w, &a);
        kg_write_request rq;
        kg_write_request_init(&rq, &a, r);
        rq.ns = r->namespaced ? "default" : "";
        rq.name = name;
        rq.user = (kg_admission_user){.name = "fuzzer", .uid = "", .groups = NULL, .ngroups = 0};
        static const char *const groups[] = {"system:masters", "system:authenticated"};
        rq.user.groups = groups;
        rq.user.ngroups = 2;
        rq.warnings = &w;
        rq.body = (const char *)data + 1;
        rq.body_len = size - 1;
        kg_write_result res = {0};
        if (op > 0) {
            /* the object the update or patch applies to (AlreadyExists when an earlier input made it) */
            kg_json *base = kg_json_parse(&a, fr->template_json, strlen(fr->template_json), &err);
            set_name(&a, base, name);
            kg_pipeline_create(&pipeline, &rq, base, &res);
        }
        res = (kg_write_result){0};
        rq.dry_run = fr->dry_run;
        switch (op) {
        case 0:
            set_name(&a, body, name);
            kg_pipeline_create(&pipeline, &rq, body, &res);
            break;
        case 1:
            set_name(&a, body, name);
            kg_pipeline_update(&pipeline, &rq, body, &res);
            break;
        case 2: kg_pipeline_patch(&pipeline, &rq, KG_PATCH_FORMAT_MERGE, body, &res); break;
        default: kg_pipeline_patch(&pipeline, &rq, KG_PATCH_FORMAT_JSON, body, &res); break;
        }
        if (!res.status && !res.object && !res.bytes)
            abort(); /* success carries the object */
        if (res.status && (res.code < 400 || res.code > 599))
            abort();
    }
    kg_arena_free(&a);
    return 0;
}
