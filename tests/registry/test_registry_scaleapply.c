/* Server-side apply to the scale subresource (registry/scaleapply.c) over the in-memory store: a StatefulSet whose
 * replicas another manager applied (409 with upstream's text, force moving the replicas path to the applier's
 * `scale` entry, the other entry keeping the rest), a second apply by the same manager, an Update owner, the body
 * checks; and a custom resource's specReplicasPath, with conversion None: written through v2, stored in the
 * storage version v1, answered in v2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/dynamic.h"
#include "api/resources.h"
#include "apiext/crd.h"
#include "registry/pipeline.h"
#include "storage/storage.h"

typedef struct fx {
    kg_store *store;
    kg_pipeline p;
    kg_arena a;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    kg_error err = {0};
    f->store = kg_store_open("memory", NULL, NULL, &err);
    assert_non_null(f->store);
    f->p.store = f->store;
    kg_arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_store_close(f->store);
    kg_arena_free(&f->a);
    kg_dynamic_reset();
    free(f);
    return 0;
}

static kg_json *J(fx *f, const char *text)
{
    kg_error e = {0};
    kg_json *v = kg_json_parse(&f->a, text, strlen(text), &e);
    if (!v)
        fail_msg("bad JSON %s", text);
    return v;
}

static int apply(fx *f, const kg_resource *r, const char *sub, const char *manager, const char *body, bool force,
                 kg_write_result *res)
{
    kg_write_request rq;
    kg_write_request_init(&rq, &f->a, r);
    rq.ns = "default";
    rq.name = "s";
    rq.sub = sub ? kg_resource_subresource(r, sub) : NULL;
    rq.field_manager = manager;
    kg_pipeline_apply(&f->p, &rq, J(f, body), force, res);
    return res->code;
}

static kg_json *stored(fx *f, const kg_resource *r)
{
    kg_store_kv kv;
    kg_error err;
    assert_true(kg_store_get(f->store, kg_resource_key(&f->a, r, "default", "s"), &f->a, &kv, &err));
    return kg_json_parse(&f->a, kv.value, kv.value_len, &err);
}

/* "manager:operation:subresource:apiVersion:fieldsV1;" for each entry */
static const char *managers(fx *f, const kg_json *obj)
{
    kg_json *mf = kg_json_path(obj, "metadata.managedFields");
    char *s = "";
    for (uint32_t i = 0; mf && i < mf->len; i++) {
        const kg_json *e = mf->u.items[i];
        const char *sub = kg_json_get_str(e, "subresource");
        s = kg_arena_sprintf(&f->a, "%s%s:%s:%s:%s:%s;", s, kg_json_get_str(e, "manager"),
                             kg_json_get_str(e, "operation"), sub ? sub : "", kg_json_get_str(e, "apiVersion"),
                             kg_json_to_string(&f->a, kg_json_get(e, "fieldsV1"), 0, NULL));
    }
    return s;
}

#define STS(replicas)                                                                                                  \
    "{\"apiVersion\":\"apps/"                                                                                          \
    "v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"replicas\":" replicas                     \
    ",\"serviceName\":\"s\",\"selector\":{\"matchLabels\":{\"a\":\"b\"}},\"template\":{\"metadata\":{"                 \
    "\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}}}"
#define SCALE(replicas)                                                                                                \
    "{\"apiVersion\":\"autoscaling/"                                                                                   \
    "v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"replicas\":" replicas "}}"

static void test_statefulset_scale_apply(void **state)
{
    fx *f = *state;
    const kg_resource *r = kg_resource_find_kind("apps", "StatefulSet");
    kg_write_result res;
    assert_int_equal(apply(f, r, NULL, "kubectl", STS("1"), false, &res), 201);
    /* another manager's replicas: 409 as upstream words it */
    assert_int_equal(apply(f, r, "scale", "hpa", SCALE("3"), false, &res), 409);
    assert_string_equal(res.status->message, "Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas");
    assert_string_equal(res.status->details.causes[0].field, ".spec.replicas");
    /* the same value is no conflict: both own it (the parent's kubectl entry keeps the path) */
    assert_int_equal(apply(f, r, "scale", "vpa", SCALE("1"), false, &res), 200);
    const char *m = managers(f, stored(f, r));
    assert_non_null(strstr(m, "vpa:Apply:scale:apps/v1:{\"f:spec\":{\"f:replicas\":{}}};"));
    assert_non_null(strstr(m, "kubectl:Apply::apps/v1:{\"f:spec\":{\"f:replicas\":{},"));
    /* force: hpa takes the replicas from both; kubectl keeps the rest, vpa's entry (replicas only) is gone */
    assert_int_equal(apply(f, r, "scale", "hpa", SCALE("3"), true, &res), 200);
    assert_string_equal(kg_json_get_str(res.object, "kind"), "Scale");
    assert_int_equal(kg_json_path(res.object, "spec.replicas")->u.i, 3);
    kg_json *obj = stored(f, r);
    assert_int_equal(kg_json_path(obj, "spec.replicas")->u.i, 3);
    m = managers(f, obj);
    assert_null(strstr(m, "vpa:"));
    assert_non_null(strstr(m, "hpa:Apply:scale:apps/v1:{\"f:spec\":{\"f:replicas\":{}}};"));
    assert_non_null(strstr(m, "kubectl:Apply::apps/v1:{\"f:spec\":{\"f:selector\""));
    /* hpa applies again: its entry stays the parent's, no conflict */
    assert_int_equal(apply(f, r, "scale", "hpa", SCALE("4"), false, &res), 200);
    assert_int_equal(kg_json_path(stored(f, r), "spec.replicas")->u.i, 4);
    /* the main resource's applier now conflicts with hpa's scale entry */
    assert_int_equal(apply(f, r, NULL, "kubectl", STS("1"), false, &res), 409);
    assert_string_equal(
        res.status->message,
        "Apply failed with 1 conflict: conflict with \"hpa\" with subresource \"scale\": .spec.replicas");
    /* body checks */
    assert_int_equal(apply(f, r, "scale", "x", STS("1"), false, &res), 400);
    assert_string_equal(res.status->message, "Incorrect version specified in apply patch. Specified patch version: "
                                             "apps/v1, expected: autoscaling/v1");
    assert_int_equal(apply(f, r, "scale", "x", SCALE("-1"), true, &res), 422);
    assert_string_equal(res.status->message,
                        "Scale.autoscaling \"s\" is invalid: spec.replicas: Invalid value: -1: must be greater than or "
                        "equal to 0");
}

/* A two-version CRD (v1 stored) with a scale subresource at .spec.count. */
static const char CRD[] =
    "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":"
    "\"things.ex.com\"},\"spec\":{\"group\":\"ex.com\",\"scope\":\"Namespaced\",\"names\":{\"plural\":\"things\","
    "\"singular\":\"thing\",\"kind\":\"Thing\",\"listKind\":\"ThingList\"},\"versions\":["
    "{\"name\":\"v1\",\"served\":true,\"storage\":true,\"subresources\":{\"scale\":{\"specReplicasPath\":"
    "\".spec.count\",\"statusReplicasPath\":\".status.count\"}},\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
    "\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\"},\"ports\":{"
    "\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],\"items\":{"
    "\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"port\":{\"type\":\"integer\"}}}}}},"
    "\"status\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}}},"
    "{\"name\":\"v2\",\"served\":true,\"storage\":false,\"subresources\":{\"scale\":{\"specReplicasPath\":"
    "\".spec.count\",\"statusReplicasPath\":\".status.count\"}},\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\","
    "\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\",\"maximum\":5},"
    "\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"name\"],"
    "\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"port\":{\"type\":\"integer\"}}}"
    "}}},\"status\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true}}}}}]}}";

#define THING(v, spec)                                                                                                 \
    "{\"apiVersion\":\"ex.com/" v "\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"s\"},\"spec\":" spec "}"

static void test_custom_resource_versions_and_scale(void **state)
{
    fx *f = *state;
    kg_json *crd = J(f, CRD);
    kg_crd_default(&f->a, crd, "2026-01-01T00:00:00Z");
    const kg_json *crds[] = {crd};
    kg_crd_publish(crds, 1);
    const kg_resource *v1 = kg_resource_find("ex.com", "v1", "things"),
                      *v2 = kg_resource_find("ex.com", "v2", "things");
    assert_non_null(v1);
    assert_non_null(v2);
    kg_write_result res;
    /* applied through v2: answered in v2, stored in v1, managedFields at v2; v2's schema validates */
    assert_int_equal(apply(f, v2, NULL, "a", THING("v2", "{\"count\":9}"), false, &res), 422);
    assert_int_equal(
        apply(f, v2, NULL, "a", THING("v2", "{\"count\":1,\"ports\":[{\"name\":\"x\",\"port\":1}]}"), false, &res),
        201);
    assert_non_null(res.bytes);
    assert_true(!strncmp(res.bytes, "{\"apiVersion\":\"ex.com/v2\"", 25));
    kg_json *obj = stored(f, v1);
    assert_string_equal(kg_json_get_str(obj, "apiVersion"), "ex.com/v1");
    assert_string_equal(managers(f, obj),
                        "a:Apply::ex.com/v2:{\"f:spec\":{\"f:count\":{},\"f:ports\":{\"k:{\\\"name\\\":\\\"x\\\"}\":{"
                        "\".\":{},\"f:name\":{},\"f:port\":{}}}}};");
    /* a second manager's entry of the keyed list, through v1: merged, not replaced */
    assert_int_equal(apply(f, v1, NULL, "b", THING("v1", "{\"ports\":[{\"name\":\"y\",\"port\":2}]}"), false, &res),
                     200);
    assert_true(!strncmp(res.bytes, "{\"apiVersion\":\"ex.com/v1\"", 25));
    assert_int_equal(kg_json_path(stored(f, v1), "spec.ports")->len, 2);
    /* apply to /scale through v2 maps to specReplicasPath */
    assert_int_equal(apply(f, v2, "scale", "hpa", SCALE("3"), false, &res), 409);
    /* the conflict is found on the Scale, so it names the Scale's path (as upstream's scale field manager does) */
    assert_string_equal(res.status->message, "Apply failed with 1 conflict: conflict with \"a\": .spec.replicas");
    assert_int_equal(apply(f, v2, "scale", "hpa", SCALE("3"), true, &res), 200);
    obj = stored(f, v1);
    assert_int_equal(kg_json_path(obj, "spec.count")->u.i, 3);
    assert_string_equal(kg_json_get_str(obj, "apiVersion"), "ex.com/v1");
    assert_non_null(strstr(managers(f, obj), "hpa:Apply:scale:ex.com/v2:{\"f:spec\":{\"f:count\":{}}};"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_statefulset_scale_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_custom_resource_versions_and_scale, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
