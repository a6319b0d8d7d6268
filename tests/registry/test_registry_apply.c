/* Server-side apply and managedFields through the write pipeline (registry/apply.c) over the in-memory store:
 * create-on-apply (201) and update (200), the option and body errors with upstream's texts, the 409 conflict
 * Status with its FieldManagerConflict causes, force, dry-run, before-first-apply, Update entries of ordinary
 * writes named after the User-Agent, and managedFields: [] clearing the list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/resources.h"
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

static void rq_init(fx *f, kg_write_request *rq, const char *manager)
{
    kg_write_request_init(rq, &f->a, kg_resource_find_kind("", "ConfigMap"));
    rq->ns = "default";
    rq->name = "cfg";
    rq->field_manager = manager;
}

static int apply(fx *f, const char *manager, const char *body, bool force, kg_write_result *res)
{
    kg_write_request rq;
    rq_init(f, &rq, manager);
    kg_pipeline_apply(&f->p, &rq, J(f, body), force, res);
    return res->code;
}

static kg_json *get(fx *f)
{
    kg_store_kv kv;
    kg_error err;
    assert_true(kg_store_get(f->store, kg_resource_key(&f->a, kg_resource_find_kind("", "ConfigMap"), "default", "cfg"),
                             &f->a, &kv, &err));
    return kg_json_parse(&f->a, kv.value, kv.value_len, &err);
}

static const char *managers(fx *f)
{
    kg_json *mf = kg_json_path(get(f), "metadata.managedFields");
    if (!mf)
        return "";
    char *s = "";
    for (size_t i = 0; i < mf->len; i++)
        s = kg_arena_sprintf(&f->a, "%s%s:%s ", s, kg_json_get_str(mf->u.items[i], "manager"),
                             kg_json_get_str(mf->u.items[i], "operation"));
    return s;
}

#define CM(data) "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"},\"data\":" data "}"

static void test_apply_create_update_conflict_force(void **state)
{
    fx *f = *state;
    kg_write_result r;
    assert_int_equal(apply(f, "a", CM("{\"x\":\"1\",\"y\":\"1\"}"), false, &r), 201);
    assert_string_equal(managers(f), "a:Apply ");
    assert_int_equal(apply(f, "b", CM("{\"x\":\"2\"}"), false, &r), 409);
    assert_string_equal(r.status->reason, "Conflict");
    assert_string_equal(r.status->message, "Apply failed with 1 conflict: conflict with \"a\": .data.x");
    assert_int_equal(r.status->details.ncauses, 1);
    assert_string_equal(r.status->details.causes[0].reason, "FieldManagerConflict");
    assert_string_equal(r.status->details.causes[0].message, "conflict with \"a\"");
    assert_string_equal(r.status->details.causes[0].field, ".data.x");
    assert_int_equal(apply(f, "b", CM("{\"x\":\"2\"}"), true, &r), 200);
    assert_string_equal(kg_json_path_str(get(f), "data.x"), "2");
    /* dry-run: the full apply, nothing stored */
    kg_write_request rq;
    rq_init(f, &rq, "b");
    rq.dry_run = true;
    kg_pipeline_apply(&f->p, &rq, J(f, CM("{\"x\":\"3\"}")), false, &r);
    assert_int_equal(r.code, 200);
    assert_string_equal(kg_json_path_str(r.object, "data.x"), "3");
    assert_string_equal(kg_json_path_str(get(f), "data.x"), "2");
    /* a removes y by not applying it any more */
    assert_int_equal(apply(f, "a", CM("{}"), false, &r), 200);
    assert_null(kg_json_path(get(f), "data.y"));
}

static void test_apply_errors(void **state)
{
    fx *f = *state;
    kg_write_result r;
    assert_int_equal(apply(f, NULL, CM("{}"), false, &r), 422);
    assert_string_equal(r.status->message, "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is "
                                           "required for apply patch");
    char longname[140];
    memset(longname, 'm', 129);
    longname[129] = 0;
    assert_int_equal(apply(f, longname, CM("{}"), false, &r), 422);
    assert_string_equal(r.status->message,
                        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be "
                        "more than 128 bytes");
    assert_int_equal(
        apply(f, "a", "{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\"}}", false, &r),
        400);
    assert_string_equal(r.status->message,
                        "Incorrect version specified in apply patch. Specified patch version: v2, expected: v1");
    assert_int_equal(apply(f, "a",
                           "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cfg\","
                           "\"managedFields\":[]}}",
                           false, &r),
                     400);
    assert_string_equal(r.status->message, "metadata.managedFields must be nil");
}

static void test_update_entries_and_before_first_apply(void **state)
{
    fx *f = *state;
    kg_write_request rq;
    kg_write_result r;
    rq_init(f, &rq, NULL);
    rq.user_agent = "kubectl-create/v1.33.0 (linux/amd64)";
    assert_true(kg_pipeline_create(&f->p, &rq, J(f, CM("{\"x\":\"1\"}")), &r));
    assert_string_equal(managers(f), "kubectl-create:Update ");
    /* managedFields: [] clears the list; the next apply credits the fields to before-first-apply */
    rq_init(f, &rq, "editor");
    assert_true(
        kg_pipeline_patch(&f->p, &rq, KG_PATCH_FORMAT_MERGE, J(f, "{\"metadata\":{\"managedFields\":[]}}"), &r));
    assert_string_equal(managers(f), "");
    assert_int_equal(apply(f, "kubectl", CM("{\"x\":\"2\"}"), false, &r), 409);
    assert_string_equal(r.status->message,
                        "Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .data.x");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_apply_create_update_conflict_force, setup, teardown),
        cmocka_unit_test_setup_teardown(test_apply_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_update_entries_and_before_first_apply, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
