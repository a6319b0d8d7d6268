/* The write pipeline (src/registry/pipeline.h) without HTTP: each verb over the in-memory store (the one kgate check
 * uses; serve's SQLite path is covered by the e2e suites) and a chain of probe plugins that record what admission
 * saw, reject on demand, mutate, warn and use their per-request context slot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admission/chain.h"
#include "admission/plugin.h"
#include "registry/codec.h"
#include "registry/pipeline.h"

/* ---- probe plugins ---- */

/* What the probes saw last, per phase. */
typedef struct seen {
    int admits, validates;
    kg_admission_op op;
    char uid[64];
    char request_kind[64];
    char options_kind[32];
    char ns[64], name[64];
    bool dry_run;
    int slot_value_seen_in_validate; /* the mutator's slot value as the validator of the same plugin saw it */
} seen;

static seen g_seen;
static const char *g_deny_label; /* validating probe rejects objects carrying this label */
static bool g_mutate;            /* mutating probe adds label mutated=yes */

static const char *label_of(const kg_json *obj, const char *key)
{
    return obj ? kg_json_get_str(kg_json_path(obj, "metadata.labels"), key) : NULL;
}

static kg_status *probe_admit(void *state, kg_admission_attributes *at, const kg_admission_services *svc)
{
    g_seen.admits++;
    g_seen.op = at->operation;
    snprintf(g_seen.uid, sizeof g_seen.uid, "%s", at->uid);
    snprintf(g_seen.request_kind, sizeof g_seen.request_kind, "%s/%s", at->request_kind.version, at->request_kind.kind);
    snprintf(g_seen.options_kind, sizeof g_seen.options_kind, "%s",
             at->options ? kg_json_get_str(at->options, "kind") : "");
    snprintf(g_seen.ns, sizeof g_seen.ns, "%s", at->ns);
    snprintf(g_seen.name, sizeof g_seen.name, "%s", at->name);
    g_seen.dry_run = at->dry_run;
    void **slot = kg_admission_request_ctx(at);
    assert_non_null(slot);
    int *count = *slot;
    if (!count) {
        count = kg_arena_alloc(at->arena, sizeof *count);
        *count = 0;
        *slot = count;
    }
    (*count)++;
    if (g_mutate && at->object) {
        kg_json *md = kg_json_get_or_add_object(at->arena, at->object, "metadata");
        kg_json *labels = kg_json_get_or_add_object(at->arena, md, "labels");
        kg_json_set(at->arena, labels, "mutated", kg_json_new_str(at->arena, "yes"));
    }
    kg_admission_warn(at, "probe says hello");
    kg_admission_warn(at, "probe says hello"); /* de-duplicated */
    return NULL;
}

static kg_status *probe_validate(void *state, const kg_admission_attributes *at, const kg_admission_services *svc)
{
    g_seen.validates++;
    void **slot = kg_admission_request_ctx(at);
    g_seen.slot_value_seen_in_validate = slot && *slot ? *(int *)*slot : -1;
    if (g_deny_label && label_of(at->object, g_deny_label))
        return kg_admission_forbidden(at, "denied by probe");
    if (g_deny_label && at->operation == KG_ADMISSION_DELETE && label_of(at->old_object, g_deny_label))
        return kg_admission_forbidden(at, "delete denied by probe");
    return NULL;
}

static const kg_admission_plugin probe = {
    .name = "Probe", .handles = KG_ADMISSION_ALL_OPS, .admit = probe_admit, .validate = probe_validate};

/* ---- fixture ---- */

typedef struct fixture {
    kg_store *store;
    kg_admission_chain *chain;
    kg_pipeline p;
    kg_arena a;
    kg_warnings w;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    kg_error err = {0};
    f->store = kg_store_open("memory", NULL, NULL, &err); /* the in-memory store kgate check uses */
    assert_non_null(f->store);
    const kg_admission_plugin *plugins[] = {&probe};
    f->chain = kg_admission_chain_new_from(plugins, 1, NULL, NULL, NULL, &err);
    assert_non_null(f->chain);
    f->p.store = f->store;
    f->p.chain = f->chain;
    kg_arena_init(&f->a, 0);
    kg_warnings_init(&f->w, &f->a);
    memset(&g_seen, 0, sizeof g_seen);
    g_deny_label = NULL;
    g_mutate = false;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_admission_chain_free(f->chain);
    kg_store_close(f->store);
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static kg_json *tj(kg_arena *a, const char *text)
{
    kg_error e = {0};
    kg_json *j = kg_json_parse(a, text, strlen(text), &e);
    if (!j)
        fail_msg("bad test JSON: %s: %s", e.msg, text);
    return j;
}

static void req(fixture *f, kg_write_request *rq, const char *group, const char *plural, const char *ns,
                const char *name)
{
    const kg_resource *r = kg_resource_find(group, "v1", plural);
    assert_non_null(r);
    kg_write_request_init(rq, &f->a, r);
    rq->ns = ns;
    rq->name = name;
    rq->user.name = "alice";
    rq->warnings = &f->w;
}

static kg_json *stored(fixture *f, const char *group, const char *plural, const char *ns, const char *name)
{
    const kg_resource *r = kg_resource_find(group, "v1", plural);
    kg_store_kv kv;
    kg_error err = {0};
    if (!kg_store_get(f->store, kg_resource_key(&f->a, r, ns, name), &f->a, &kv, &err))
        return NULL;
    return kg_obj_decode(&f->a, kv.value, kv.value_len, kv.mod_revision, &err);
}

static kg_json *result_obj(fixture *f, const kg_write_result *res)
{
    if (res->object)
        return res->object;
    kg_error err = {0};
    return kg_obj_decode(&f->a, res->bytes, res->len, res->rev, &err);
}

static void create_cm(fixture *f, const char *name, const char *labels)
{
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\",\"labels\":{%s}},"
             "\"data\":{\"k\":\"v\"}}",
             name, labels ? labels : "");
    kg_write_result res;
    assert_true(kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res));
    assert_int_equal(res.code, 201);
}

/* ---- create ---- */

static void test_create_runs_both_phases_and_persists(void **state)
{
    fixture *f = *state;
    g_mutate = true;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    rq.uid = "req-1";
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c1\"},\"data\":{}}"), &res));
    assert_int_equal(res.code, 201);
    assert_null(res.status);
    assert_non_null(res.bytes);
    kg_json *obj = stored(f, "", "configmaps", "default", "c1");
    assert_non_null(obj);
    /* prepare: system metadata; the mutation is persisted */
    assert_non_null(kg_json_path_str(obj, "metadata.uid"));
    assert_non_null(kg_json_path_str(obj, "metadata.creationTimestamp"));
    assert_string_equal(kg_json_path_str(obj, "metadata.namespace"), "default");
    assert_string_equal(label_of(obj, "mutated"), "yes");
    /* what admission saw */
    assert_int_equal(g_seen.admits, 1);
    assert_int_equal(g_seen.validates, 1);
    assert_int_equal(g_seen.op, KG_ADMISSION_CREATE);
    assert_string_equal(g_seen.uid, "req-1");
    assert_string_equal(g_seen.request_kind, "v1/ConfigMap");
    assert_string_equal(g_seen.options_kind, "CreateOptions");
    assert_string_equal(g_seen.ns, "default");
    assert_int_equal(g_seen.slot_value_seen_in_validate, 1); /* the slot survives from admit to validate */
    /* warnings: once, de-duplicated */
    assert_int_equal(f->w.n, 1);
    assert_string_equal(f->w.items[0], "probe says hello");
}

static void test_create_generates_a_uid_per_request(void **state)
{
    fixture *f = *state;
    create_cm(f, "u1", NULL);
    char first[64];
    snprintf(first, sizeof first, "%s", g_seen.uid);
    create_cm(f, "u2", NULL);
    assert_true(strlen(first) == 36);
    assert_string_not_equal(first, g_seen.uid);
}

static void test_create_rejected_by_validating_phase_is_not_stored(void **state)
{
    fixture *f = *state;
    g_deny_label = "deny";
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"bad\",\"labels\":"
                  "{\"deny\":\"1\"}}}"),
        &res));
    assert_int_equal(res.code, 403);
    assert_string_equal(res.status->message, "configmaps \"bad\" is forbidden: denied by probe");
    assert_null(stored(f, "", "configmaps", "default", "bad"));
}

static void test_create_generate_name(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"generateName\":\"web-\"}}"), &res));
    kg_json *obj = result_obj(f, &res);
    const char *name = kg_json_path_str(obj, "metadata.name");
    assert_non_null(name);
    assert_int_equal(strncmp(name, "web-", 4), 0);
    assert_int_equal(strlen(name), 9);
    assert_string_equal(g_seen.name, ""); /* admission ran before the name was generated, as upstream */
    assert_non_null(stored(f, "", "configmaps", "default", name));
}

static void test_create_decode_checks(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_false(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}"), &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message,
                        "the kind in the data (Secret) does not match the expected kind (ConfigMap)");
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"namespace\":"
                  "\"other\"}}"),
        &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message,
                        "the namespace of the provided object does not match the namespace sent on the request");
    assert_false(kg_pipeline_create(&f->p, &rq, tj(&f->a, "{\"kind\":5,\"metadata\":{\"name\":\"x\"}}"), &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                             "number into Go struct field .kind of type string");
    /* a body that is no object (found by fuzz_pipeline: the kind taken from the URL was set on a string) */
    static const char *const not_objects[] = {"\"{rolebind\"", "[1]", "7", "true", "null"};
    static const char *const go_types[] = {"string", "array", "number", "bool", "null"};
    for (size_t i = 0; i < 5; i++) {
        char want[256];
        snprintf(want, sizeof want,
                 "couldn't get version/kind; json parse error: json: cannot unmarshal %s into Go value of type "
                 "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                 "\"json:\\\"kind,omitempty\\\"\" }",
                 go_types[i]);
        assert_false(kg_pipeline_create(&f->p, &rq, tj(&f->a, not_objects[i]), &res));
        assert_int_equal(res.code, 400);
        assert_string_equal(res.status->message, want);
        kg_write_request urq;
        req(f, &urq, "", "configmaps", "default", "x");
        assert_false(kg_pipeline_update(&f->p, &urq, tj(&f->a, not_objects[i]), &res));
        assert_int_equal(res.code, 400);
        assert_string_equal(res.status->message, want);
    }
    assert_int_equal(g_seen.admits, 0); /* nothing reached admission */
}

static void test_create_invalid_object_is_422(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_false(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Bad_Name\"}}"),
        &res));
    assert_int_equal(res.code, 422);
    assert_string_equal(res.status->reason, "Invalid");
    assert_int_equal(g_seen.validates, 0); /* 422 comes before the validating phase */
}

static void test_field_validation_warn_and_strict(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    const char *dups[] = {"data.k"};
    rq.dup_fields = dups;
    rq.ndup_fields = 1;
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w\"},\"bogus\":1}"), &res));
    assert_int_equal(f->w.n, 3);
    assert_string_equal(f->w.items[0], "unknown field \"bogus\"");
    assert_string_equal(f->w.items[1], "duplicate field \"data.k\"");
    rq.field_validation = KG_FIELD_VALIDATION_STRICT;
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"s\"},\"bogus\":1}"), &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict "
                                             "decoding error: unknown field \"bogus\", duplicate field \"data.k\"");
    kg_status *st = NULL;
    kg_field_validation fv;
    assert_false(kg_field_validation_parse(&f->a, "Loose", &fv, &st));
    assert_int_equal(kg_status_http_code(st), 400);
    assert_true(kg_field_validation_parse(&f->a, NULL, &fv, &st));
    assert_int_equal(fv, KG_FIELD_VALIDATION_WARN);
}

/* Typed decode: wrong JSON types are 400 on create and update with upstream's text, 422 on the field "patch" for a
 * patch result; unknown fields are dropped (never stored) under Warn and Ignore. */
static void test_typed_decode_errors_and_unknown_dropping(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"t\"},\"data\":{\"a\":1}}"),
        &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: "
                                             "cannot unmarshal number into Go struct field ConfigMap.data of type "
                                             "string");
    assert_null(stored(f, "", "configmaps", "default", "t"));
    /* Ignore still checks types */
    rq.field_validation = KG_FIELD_VALIDATION_IGNORE;
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"t\"},\"data\":{\"a\":1}}"),
        &res));
    assert_int_equal(res.code, 400);
    /* Warn: warned and dropped */
    rq.field_validation = KG_FIELD_VALIDATION_WARN;
    assert_true(kg_pipeline_create(&f->p, &rq,
                                   tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                                             "\"t\",\"foo\":1},\"spec\":{\"x\":1}}"),
                                   &res));
    assert_int_equal(f->w.n, 3);
    assert_string_equal(f->w.items[0], "unknown field \"metadata.foo\"");
    assert_string_equal(f->w.items[1], "unknown field \"spec\"");
    kg_json *st = stored(f, "", "configmaps", "default", "t");
    assert_null(kg_json_get(st, "spec"));
    assert_null(kg_json_path(st, "metadata.foo"));
    /* update: 400 with the same text */
    req(f, &rq, "", "configmaps", "default", "t");
    assert_false(kg_pipeline_update(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"t\"},\"immutable\":\"x\"}"),
        &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: "
                                             "cannot unmarshal string into Go struct field ConfigMap.immutable of "
                                             "type bool");
    /* patch: the patched object is checked; 422 on "patch" */
    assert_false(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"data\":{\"n\":[1]}}"), &res));
    assert_int_equal(res.code, 422);
    assert_non_null(strstr(res.status->message, " \"\" is invalid: patch: Invalid value: \"{"));
    assert_non_null(strstr(res.status->message, "\": json: cannot unmarshal array into Go struct field ConfigMap.data "
                                                "of type string"));
    /* an unknown field added by a patch is dropped too */
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"bogus\":{\"n\":1}}"), &res));
    assert_null(kg_json_get(stored(f, "", "configmaps", "default", "t"), "bogus"));
    /* a Deployment: int32 overflow, group version in the message */
    req(f, &rq, "apps", "deployments", "default", "");
    assert_false(kg_pipeline_create(&f->p, &rq,
                                    tj(&f->a, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{"
                                              "\"name\":\"d\"},\"spec\":{\"replicas\":\"two\"}}"),
                                    &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message,
                        "Deployment in version \"v1\" cannot be handled as a Deployment: json: "
                        "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas "
                        "of type int32");
}

/* Secret stringData is merged into data (base64) and never stored; a body without apiVersion/kind takes the URL's. */
static void test_secret_string_data_and_missing_type(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "secrets", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(&f->p, &rq,
                                   tj(&f->a, "{\"metadata\":{\"name\":\"s\"},\"data\":{\"a\":\"eA==\",\"b\":\"eQ==\"},"
                                             "\"stringData\":{\"b\":\"hello\",\"c\":\"\"}}"),
                                   &res));
    kg_json *st = stored(f, "", "secrets", "default", "s");
    assert_string_equal(kg_json_get_str(st, "apiVersion"), "v1");
    assert_string_equal(kg_json_get_str(st, "kind"), "Secret");
    assert_null(kg_json_get(st, "stringData"));
    assert_string_equal(kg_json_path_str(st, "data.a"), "eA==");
    assert_string_equal(kg_json_path_str(st, "data.b"), "aGVsbG8=");
    assert_string_equal(kg_json_path_str(st, "data.c"), "");
    /* on update and patch too */
    req(f, &rq, "", "secrets", "default", "s");
    assert_true(
        kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"stringData\":{\"a\":\"z\"}}"), &res));
    st = stored(f, "", "secrets", "default", "s");
    assert_string_equal(kg_json_path_str(st, "data.a"), "eg==");
    assert_null(kg_json_get(st, "stringData"));
    assert_true(kg_pipeline_update(&f->p, &rq,
                                   tj(&f->a, "{\"metadata\":{\"name\":\"s\"},\"stringData\":{\"only\":\"1\"}}"), &res));
    st = stored(f, "", "secrets", "default", "s");
    assert_string_equal(kg_json_path_str(st, "data.only"), "MQ==");
    assert_null(kg_json_path(st, "data.a"));
    /* the 1 MiB limit applies to the merged data */
    size_t big = 1024 * 1024 + 1;
    char *body = malloc(big + 128);
    int n = snprintf(body, 128, "{\"metadata\":{\"name\":\"big\"},\"stringData\":{\"k\":\"");
    memset(body + n, 'x', big);
    strcpy(body + n + big, "\"}}");
    req(f, &rq, "", "secrets", "default", "");
    assert_false(kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res));
    free(body);
    assert_int_equal(res.code, 422);
    assert_string_equal(res.status->message,
                        "Secret \"big\" is invalid: data: Too long: may not be more than 1048576 bytes");
}

/* A pod in the default namespace with label app=a, given a status (NULL: the created one, Pending). */
static void create_pod(fixture *f, const char *name, const char *status)
{
    kg_write_request rq;
    req(f, &rq, "", "pods", "default", "");
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"app\":\"a\"}},"
             "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
             name);
    kg_write_result res;
    assert_true(kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res));
    if (!status)
        return;
    req(f, &rq, "", "pods", "default", name);
    rq.sub = kg_resource_subresource(rq.resource, "status");
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, status), &res));
}

static void create_pdb(fixture *f, const char *name)
{
    kg_write_request rq;
    req(f, &rq, "policy", "poddisruptionbudgets", "default", "");
    char body[512];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":{\"app\":\"a\"}}}}",
             name);
    kg_write_result res;
    assert_true(kg_pipeline_create(&f->p, &rq, tj(&f->a, body), &res));
}

static bool evict(fixture *f, const char *pod, kg_write_result *res)
{
    kg_write_request rq;
    req(f, &rq, "", "pods", "default", pod);
    rq.sub = kg_resource_subresource(rq.resource, "eviction");
    assert_non_null(rq.sub);
    char body[256];
    snprintf(body, sizeof body, "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"%s\"}}",
             pod);
    return kg_pipeline_create(&f->p, &rq, tj(&f->a, body), res);
}

#define READY "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}"

/* pods/eviction: budgets honoured (429 with the cause), status written, pods deleted when allowed. */
static void test_eviction_honours_budgets(void **state)
{
    fixture *f = *state;
    create_pdb(f, "pdb1");
    create_pod(f, "p1", READY);
    kg_write_result res;
    assert_false(evict(f, "p1", &res));
    assert_int_equal(res.code, 429);
    assert_string_equal(res.status->message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert_int_equal(res.status->details.ncauses, 1);
    assert_string_equal(res.status->details.causes[0].reason, "DisruptionBudget");
    assert_string_equal(res.status->details.causes[0].message,
                        "The disruption budget pdb1 needs 1 healthy pods and has 1 currently");
    assert_non_null(stored(f, "", "pods", "default", "p1"));
    kg_json *pdb = stored(f, "policy", "poddisruptionbudgets", "default", "pdb1");
    assert_int_equal(kg_json_path(pdb, "status.disruptionsAllowed")->u.i, 0);
    assert_int_equal(kg_json_path(pdb, "status.expectedPods")->u.i, 1);
    /* a second healthy pod: one disruption allowed */
    create_pod(f, "p2", READY);
    assert_true(evict(f, "p1", &res));
    assert_int_equal(res.code, 201);
    assert_true(res.object_is_status);
    assert_string_equal(kg_json_get_str(res.object, "status"), "Success");
    assert_null(stored(f, "", "pods", "default", "p1"));
    pdb = stored(f, "policy", "poddisruptionbudgets", "default", "pdb1");
    assert_non_null(kg_json_path(pdb, "status.disruptedPods.p1"));
    assert_int_equal(kg_json_path(pdb, "status.disruptionsAllowed")->u.i, 0);
    /* a Pending pod is evicted without a budget check */
    create_pod(f, "p3", NULL);
    assert_true(evict(f, "p3", &res));
    assert_null(stored(f, "", "pods", "default", "p3"));
    /* the Eviction must name the pod */
    kg_write_request rq;
    req(f, &rq, "", "pods", "default", "p2");
    rq.sub = kg_resource_subresource(rq.resource, "eviction");
    assert_false(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"x\"}}"),
        &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "name in URL does not match name in Eviction object");
    /* two budgets: a Status with code 500 in a 201 */
    create_pdb(f, "pdb2");
    assert_true(evict(f, "p2", &res));
    assert_int_equal(res.code, 201);
    assert_int_equal(kg_json_get(res.object, "code")->u.i, 500);
    assert_string_equal(kg_json_get_str(res.object, "message"),
                        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
                        "support.");
    assert_non_null(stored(f, "", "pods", "default", "p2"));
}

static void test_dry_run_create_stores_nothing(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    rq.dry_run = true;
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d\"}}"), &res));
    assert_int_equal(res.code, 201);
    assert_non_null(res.object);
    assert_null(res.bytes);
    assert_true(g_seen.dry_run);
    assert_null(stored(f, "", "configmaps", "default", "d"));
    /* a dry-run create of an existing object: 409 AlreadyExists as the real create */
    create_cm(f, "d", NULL);
    assert_false(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d\"}}"), &res));
    assert_int_equal(res.code, 409);
    assert_string_equal(res.status->message, "configmaps \"d\" already exists");
}

/* ---- update / patch ---- */

static void test_update_precondition_conflict_and_noop(void **state)
{
    fixture *f = *state;
    create_cm(f, "c", NULL);
    kg_json *cur = stored(f, "", "configmaps", "default", "c");
    const char *rv = kg_json_path_str(cur, "metadata.resourceVersion");
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "c");
    kg_write_result res;
    /* unchanged object: a no-op, nothing written (same revision) */
    assert_true(kg_pipeline_update(&f->p, &rq, kg_json_clone(&f->a, cur), &res));
    assert_int_equal(res.code, 200);
    assert_int_equal(res.rev, strtoll(rv, NULL, 10));
    assert_string_equal(g_seen.options_kind, "UpdateOptions");
    assert_int_equal(g_seen.op, KG_ADMISSION_UPDATE);
    /* a stale resourceVersion: 409 */
    kg_json *stale = kg_json_clone(&f->a, cur);
    kg_json_set(&f->a, kg_json_get(stale, "metadata"), "resourceVersion", kg_json_new_str(&f->a, "1"));
    kg_json_set(&f->a, kg_json_get(stale, "data"), "k", kg_json_new_str(&f->a, "changed"));
    assert_false(kg_pipeline_update(&f->p, &rq, stale, &res));
    assert_int_equal(res.code, 409);
    assert_string_equal(res.status->reason, "Conflict");
    /* a changed object at the current version: written at a new revision */
    kg_json *neu = kg_json_clone(&f->a, cur);
    kg_json_set(&f->a, kg_json_get(neu, "data"), "k", kg_json_new_str(&f->a, "v2"));
    assert_true(kg_pipeline_update(&f->p, &rq, neu, &res));
    assert_true(res.rev > strtoll(rv, NULL, 10));
    assert_string_equal(kg_json_path_str(stored(f, "", "configmaps", "default", "c"), "data.k"), "v2");
    /* the URL names another object */
    req(f, &rq, "", "configmaps", "default", "other");
    assert_false(kg_pipeline_update(&f->p, &rq, kg_json_clone(&f->a, cur), &res));
    assert_int_equal(res.code, 400);
}

static void test_update_of_missing_object_is_404(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "nope");
    kg_write_result res;
    assert_false(kg_pipeline_update(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"nope\"}}"),
        &res));
    assert_int_equal(res.code, 404);
    assert_string_equal(res.status->message, "configmaps \"nope\" not found");
}

static void test_patch_merge_json_and_errors(void **state)
{
    fixture *f = *state;
    create_cm(f, "p", NULL);
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "p");
    kg_write_result res;
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"data\":{\"x\":\"1\"}}"), &res));
    assert_string_equal(kg_json_path_str(stored(f, "", "configmaps", "default", "p"), "data.x"), "1");
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_JSON,
                                  tj(&f->a, "[{\"op\":\"replace\",\"path\":\"/data/x\",\"value\":\"2\"}]"), &res));
    assert_string_equal(kg_json_path_str(stored(f, "", "configmaps", "default", "p"), "data.x"), "2");
    /* a failing JSON patch: 422 with the error as its cause */
    assert_false(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_JSON,
                                   tj(&f->a, "[{\"op\":\"test\",\"path\":\"/data/x\",\"value\":\"3\"}]"), &res));
    assert_int_equal(res.code, 422);
    /* wrong document shape for the patch type */
    assert_false(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_JSON, tj(&f->a, "{}"), &res));
    assert_int_equal(res.code, 400);
    /* identity may not change */
    assert_false(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"kind\":\"Secret\"}"), &res));
    assert_int_equal(res.code, 400);
    assert_string_equal(res.status->message, "the patch may not change apiVersion or kind");
}

static void test_generation_bumps_on_spec_change_only(void **state)
{
    fixture *f = *state;
    const char *dep = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{"
                      "\"replicas\":1,\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{"
                      "\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}}}";
    kg_write_request rq;
    req(f, &rq, "apps", "deployments", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(&f->p, &rq, tj(&f->a, dep), &res));
    assert_int_equal(kg_json_path(result_obj(f, &res), "metadata.generation")->u.i, 1);
    req(f, &rq, "apps", "deployments", "default", "d");
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE,
                                  tj(&f->a, "{\"metadata\":{\"labels\":{\"x\":"
                                            "\"y\"}}}"),
                                  &res));
    assert_int_equal(kg_json_path(result_obj(f, &res), "metadata.generation")->u.i, 1);
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"spec\":{\"replicas\":3}}"), &res));
    assert_int_equal(kg_json_path(result_obj(f, &res), "metadata.generation")->u.i, 2);
    /* scale subresource: the Scale's replicas land in the parent, answered as a Scale */
    rq.sub = kg_resource_subresource(rq.resource, "scale");
    assert_non_null(rq.sub);
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"spec\":{\"replicas\":5}}"), &res));
    assert_string_equal(kg_json_get_str(res.object, "kind"), "Scale");
    assert_int_equal(kg_json_path(res.object, "spec.replicas")->u.i, 5);
    kg_json *d = stored(f, "apps", "deployments", "default", "d");
    assert_int_equal(kg_json_path(d, "spec.replicas")->u.i, 5);
    assert_int_equal(kg_json_path(d, "metadata.generation")->u.i, 3);
    assert_false(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, tj(&f->a, "{\"spec\":{\"replicas\":-1}}"), &res));
    assert_int_equal(res.code, 422);
}

static void test_status_subresource_keeps_spec(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "pods", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
                  "[{\"name\":\"c\",\"image\":\"nginx\"}]}}"),
        &res));
    req(f, &rq, "", "pods", "default", "p");
    rq.sub = kg_resource_subresource(rq.resource, "status");
    assert_true(kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE,
                                  tj(&f->a, "{\"status\":{\"phase\":\"Running\"},\"spec\":{\"nodeName\":\"n1\"}}"),
                                  &res));
    kg_json *pod = stored(f, "", "pods", "default", "p");
    assert_string_equal(kg_json_path_str(pod, "status.phase"), "Running");
    assert_null(kg_json_path(pod, "spec.nodeName")); /* the status subresource ignores spec */
    /* binding sets nodeName once */
    req(f, &rq, "", "pods", "default", "p");
    rq.sub = kg_resource_subresource(rq.resource, "binding");
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},\"target\":{\"name\":"
                  "\"n1\"}}"),
        &res));
    assert_int_equal(res.code, 201);
    assert_true(res.object_is_status);
    assert_string_equal(g_seen.request_kind, "v1/Binding");
    assert_string_equal(kg_json_path_str(stored(f, "", "pods", "default", "p"), "spec.nodeName"), "n1");
    assert_false(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"p\"},\"target\":{\"name\":"
                  "\"n2\"}}"),
        &res));
    assert_int_equal(res.code, 409);
    assert_string_equal(res.status->message, "Operation cannot be fulfilled on pods \"p\": pod p is already assigned "
                                             "to node \"n1\"");
}

/* ---- delete ---- */

static void test_delete_answers_and_preconditions(void **state)
{
    fixture *f = *state;
    create_cm(f, "c", NULL);
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "c");
    kg_json *opts;
    kg_status *st;
    const char *body = "{\"preconditions\":{\"uid\":\"wrong\"}}";
    assert_true(kg_delete_options_build(&f->a, body, strlen(body), NULL, NULL, false, &opts, &st));
    kg_write_result res;
    assert_false(kg_pipeline_delete(&f->p, &rq, opts, &res));
    assert_int_equal(res.code, 409);
    assert_true(strstr(res.status->message, "Precondition failed: UID in precondition: wrong") != NULL);
    /* dry-run in the options: admission sees it, nothing is deleted */
    assert_true(kg_delete_options_build(&f->a, NULL, 0, NULL, NULL, true, &opts, &st));
    assert_true(kg_pipeline_delete(&f->p, &rq, opts, &res));
    assert_true(g_seen.dry_run);
    assert_string_equal(g_seen.options_kind, "DeleteOptions");
    assert_non_null(stored(f, "", "configmaps", "default", "c"));
    /* a real delete of a configmap answers with a success Status */
    assert_true(kg_delete_options_build(&f->a, NULL, 0, "0", "Background", false, &opts, &st));
    assert_int_equal(kg_json_get(opts, "gracePeriodSeconds")->u.i, 0);
    assert_true(kg_pipeline_delete(&f->p, &rq, opts, &res));
    assert_true(res.object_is_status);
    assert_string_equal(kg_json_get_str(res.object, "status"), "Success");
    assert_null(stored(f, "", "configmaps", "default", "c"));
    assert_false(kg_pipeline_delete(&f->p, &rq, opts, &res));
    assert_int_equal(res.code, 404);
    /* an unknown propagation policy */
    assert_false(kg_delete_options_build(&f->a, NULL, 0, NULL, "Sideways", false, &opts, &st));
    assert_int_equal(kg_status_http_code(st), 422);
    assert_false(kg_delete_options_build(&f->a, "[1]", 3, NULL, NULL, false, &opts, &st));
    assert_int_equal(kg_status_http_code(st), 400);
}

static void test_delete_rejected_by_admission_keeps_object(void **state)
{
    fixture *f = *state;
    create_cm(f, "keep", "\"protect\":\"1\"");
    g_deny_label = "protect";
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "keep");
    kg_write_result res;
    assert_false(kg_pipeline_delete(&f->p, &rq, NULL, &res));
    assert_int_equal(res.code, 403);
    assert_int_equal(g_seen.op, KG_ADMISSION_DELETE);
    assert_non_null(stored(f, "", "configmaps", "default", "keep"));
}

static void test_namespace_delete_is_graceful(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "namespaces", "", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\"}}"),
        &res));
    assert_string_equal(g_seen.ns, "team"); /* admission sees a namespace's own name as its namespace */
    create_cm(f, "in-default", NULL);
    req(f, &rq, "", "namespaces", "", "team");
    assert_true(kg_pipeline_delete(&f->p, &rq, NULL, &res));
    assert_false(res.object_is_status);
    kg_json *ns = stored(f, "", "namespaces", "", "team");
    assert_non_null(ns);
    assert_string_equal(kg_json_path_str(ns, "status.phase"), "Terminating");
    assert_non_null(kg_json_path_str(ns, "metadata.deletionTimestamp"));
}

static bool name_starts_with_a(void *ud, const kg_json *obj)
{
    return kg_json_path_str(obj, "metadata.name")[0] == 'a';
}

static void test_delete_collection_with_predicate(void **state)
{
    fixture *f = *state;
    create_cm(f, "a1", NULL);
    create_cm(f, "a2", NULL);
    create_cm(f, "b1", NULL);
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_delete_collection(&f->p, &rq, NULL, name_starts_with_a, NULL, &res));
    assert_string_equal(kg_json_get_str(res.object, "kind"), "ConfigMapList");
    assert_int_equal(kg_json_get(res.object, "items")->len, 2);
    assert_null(stored(f, "", "configmaps", "default", "a1"));
    assert_null(stored(f, "", "configmaps", "default", "a2"));
    assert_non_null(stored(f, "", "configmaps", "default", "b1"));
}

static void test_pod_delete_returns_the_pod(void **state)
{
    fixture *f = *state;
    kg_write_request rq;
    req(f, &rq, "", "pods", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &f->p, &rq,
        tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":"
                  "[{\"name\":\"c\",\"image\":\"nginx\"}]}}"),
        &res));
    req(f, &rq, "", "pods", "default", "p");
    assert_true(kg_pipeline_delete(&f->p, &rq, NULL, &res));
    assert_false(res.object_is_status);
    assert_string_equal(kg_json_get_str(res.object, "kind"), "Pod");
}

static void test_without_chain_no_admission(void **state)
{
    fixture *f = *state;
    kg_pipeline bare = {.store = f->store, .chain = NULL};
    kg_write_request rq;
    req(f, &rq, "", "configmaps", "default", "");
    kg_write_result res;
    assert_true(kg_pipeline_create(
        &bare, &rq, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"n\"}}"), &res));
    assert_int_equal(g_seen.admits, 0);
}

static void test_warnings_are_bounded(void **state)
{
    fixture *f = *state;
    kg_warnings w;
    kg_warnings_init(&w, &f->a);
    /* 1000 distinct 17-character warnings: 240 fit in 4096 characters, the rest are dropped */
    for (int i = 0; i < 1000; i++)
        kg_warnings_addf(&w, "warning nr %06d", i);
    assert_int_equal(w.n, 4096 / 17);
    assert_int_equal(w.dropped, 1000 - 4096 / 17);
    assert_true(w.runes <= KG_WARNINGS_MAX_RUNES);
    assert_false(kg_warnings_add(&w, ""));
    assert_false(kg_warnings_add(&w, "warning nr 000001")); /* duplicate */
    /* a huge warning: once the total would be exceeded, every warning is cut to 256 characters (as upstream) */
    char big[6000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    kg_warnings w2;
    kg_warnings_init(&w2, &f->a);
    assert_true(kg_warnings_add(&w2, "short one"));
    assert_true(kg_warnings_add(&w2, big));
    assert_int_equal(w2.n, 2);
    assert_true(w2.truncating);
    assert_int_equal(strlen(w2.items[1]), KG_WARNINGS_ITEM_RUNES);
    assert_string_equal(w2.items[0], "short one");
    /* cutting counts characters, not bytes: a 300-character UTF-8 text keeps 256 whole characters */
    char utf[1000] = "";
    for (int i = 0; i < 300; i++)
        strcat(utf, "\xc3\xa9"); /* é */
    assert_true(kg_warnings_add(&w2, utf));
    assert_int_equal(strlen(w2.items[2]), 2 * KG_WARNINGS_ITEM_RUNES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_runs_both_phases_and_persists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_generates_a_uid_per_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_rejected_by_validating_phase_is_not_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_generate_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_decode_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_invalid_object_is_422, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_validation_warn_and_strict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_typed_decode_errors_and_unknown_dropping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secret_string_data_and_missing_type, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eviction_honours_budgets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_create_stores_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_precondition_conflict_and_noop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_of_missing_object_is_404, setup, teardown),
        cmocka_unit_test_setup_teardown(test_patch_merge_json_and_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generation_bumps_on_spec_change_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_status_subresource_keeps_spec, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_answers_and_preconditions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_rejected_by_admission_keeps_object, setup, teardown),
        cmocka_unit_test_setup_teardown(test_namespace_delete_is_graceful, setup, teardown),
        cmocka_unit_test_setup_teardown(test_delete_collection_with_predicate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pod_delete_returns_the_pod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_chain_no_admission, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warnings_are_bounded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
