/* The fault-injection wrapper of the admission services (faulty_services.h) over an in-memory cluster: which calls
 * fail, with which code, and that everything else passes through. */
#include "admission_testutil.h"
#include "faulty_services.h"

typedef struct fixture {
    kg_admission_memcluster *m;
    kg_faulty_services *fs;
    kg_admission_services svc;
    kg_arena a;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    kg_admission_services inner = kg_admission_memcluster_services(f->m, NULL);
    f->fs = kg_faulty_services_new(&inner);
    f->svc = kg_faulty_services_get(f->fs);
    kg_arena_init(&f->a, 0);
    tput(f->m, "namespaces", "{\"metadata\":{\"name\":\"a\"}}", 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_arena_free(&f->a);
    kg_faulty_services_free(f->fs);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

static kg_errcode get_code(fixture *f, const char *resource, unsigned flags)
{
    KG_ERROR_DECL(e);
    return kg_admission_get(&f->svc, &f->a, resource, "", "a", flags, &e) ? KG_OK : e.code;
}

static kg_errcode create_code(fixture *f, const char *name)
{
    KG_ERROR_DECL(e);
    char json[128];
    snprintf(json, sizeof json, "{\"metadata\":{\"name\":\"%s\"}}", name);
    return f->svc.create(f->svc.ctx, &f->a, "namespaces", "", tj(&f->a, json), &e) ? KG_OK : e.code;
}

static void passthrough(void **state)
{
    fixture *f = *state;
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK);
    assert_int_equal(get_code(f, "pods", 0), KG_ENOTFOUND);
    assert_int_equal(create_code(f, "b"), KG_OK);
    KG_ERROR_DECL(e);
    assert_int_equal(kg_admission_view_list(&f->svc, &f->a, "namespaces", "", &(kg_json_shared **){0}, &e), 2);
    kg_admission_memcluster_set_clock(f->m, 7);
    assert_int_equal(kg_admission_now_ns(&f->svc), 7);
}

static void reads_by_resource_and_liveness(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_EIO);
    assert_int_equal(get_code(f, "namespaces", 0), KG_EIO);
    assert_int_equal(get_code(f, "namespaces", KG_ADMISSION_GET_LIVE), KG_OK);
    KG_ERROR_DECL(e);
    assert_null(kg_admission_view(&f->svc, &f->a, "namespaces", "", "a", &e));
    assert_int_equal(e.code, KG_EIO);
    assert_string_equal(e.msg, "injected read failure for namespaces \"a\"");
    kg_faulty_fail_reads(f->fs, "namespaces", 1, KG_ETIMEOUT);
    assert_int_equal(get_code(f, "namespaces", KG_ADMISSION_GET_LIVE), KG_ETIMEOUT);
    kg_faulty_fail_reads(f->fs, "namespaces", 0, KG_OK);
    kg_faulty_fail_reads(f->fs, "namespaces", 1, KG_OK);
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK);
    assert_int_equal(create_code(f, "b"), KG_OK); /* writes unaffected */
}

static void writes_nth_and_all(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_writes(f->fs, 2, KG_ECONFLICT);
    assert_int_equal(create_code(f, "b"), KG_ECONFLICT);
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK); /* reads unaffected */
    assert_int_equal(create_code(f, "b"), KG_ECONFLICT);
    assert_int_equal(create_code(f, "b"), KG_OK);
    /* the 2nd call from now, whatever it is */
    kg_faulty_fail_nth(f->fs, 2, KG_ETIMEOUT);
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK);
    assert_int_equal(get_code(f, "namespaces", 0), KG_ETIMEOUT);
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK);
    kg_faulty_fail_all(f->fs, true, false, KG_EIO);
    assert_int_equal(get_code(f, "namespaces", KG_ADMISSION_GET_LIVE), KG_EIO);
    assert_int_equal(create_code(f, "c"), KG_OK);
    kg_faulty_fail_all(f->fs, false, true, KG_EIO);
    assert_int_equal(get_code(f, "namespaces", 0), KG_OK);
    assert_int_equal(create_code(f, "d"), KG_EIO);
    kg_faulty_fail_all(f->fs, false, false, KG_OK);
    assert_int_equal(create_code(f, "d"), KG_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(passthrough, setup, teardown),
        cmocka_unit_test_setup_teardown(reads_by_resource_and_liveness, setup, teardown),
        cmocka_unit_test_setup_teardown(writes_nth_and_all, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
