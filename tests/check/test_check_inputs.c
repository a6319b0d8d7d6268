/* The input reader of kgate check: multi-document YAML with lines, JSON, Lists, empty documents, errors that name
 * their file and document, directories (recursive, by extension, in name order), stdin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/inputs.h"

typedef struct fx {
    kg_arena a;
    kg_check_inputs in;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    kg_arena_init(&f->a, 0);
    kg_check_inputs_init(&f->in, &f->a);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    kg_arena_free(&f->a);
    free(f);
    return 0;
}

static void read_text(fx *f, const char *file, const char *text)
{
    kg_check_read_text(&f->in, file, text, strlen(text));
}

static void multi_document_yaml_with_lines(void **state)
{
    fx *f = *state;
    read_text(f, "a.yaml",
              "# leading comment\n"
              "apiVersion: v1\nkind: Namespace\nmetadata: {name: one}\n"
              "---\n"
              "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
              "--- # an empty document is skipped, as kubectl does\n"
              "---\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    assert_int_equal(f->in.n, 3);
    assert_string_equal(kg_json_path_str(f->in.docs[0].obj, "metadata.name"), "one");
    assert_int_equal(f->in.docs[0].document, 1);
    assert_int_equal(f->in.docs[0].line, 1);
    assert_string_equal(kg_json_get_str(f->in.docs[1].obj, "kind"), "Pod");
    assert_int_equal(f->in.docs[1].document, 2);
    assert_int_equal(f->in.docs[1].line, 5);
    assert_int_equal(f->in.docs[2].document, 3);
    assert_int_equal(f->in.docs[2].line, 10);
    assert_string_equal(f->in.docs[2].file, "a.yaml");
    assert_null(f->in.docs[2].error);
}

static void lists_expand_into_items(void **state)
{
    fx *f = *state;
    read_text(f, "l.json",
              "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\"}},"
              "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"b\"}}]}");
    read_text(f, "pl.yaml",
              "apiVersion: v1\nkind: PodList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: c}\n");
    assert_int_equal(f->in.n, 3);
    assert_int_equal(f->in.docs[0].item, 1);
    assert_int_equal(f->in.docs[1].item, 2);
    assert_string_equal(kg_json_path_str(f->in.docs[1].obj, "metadata.name"), "b");
    assert_int_equal(f->in.docs[1].document, 1);
    assert_string_equal(f->in.docs[2].file, "pl.yaml");
    assert_int_equal(f->in.docs[2].item, 1);
    assert_string_equal(kg_check_doc_where(&f->a, &f->in.docs[1]), "l.json:1 (document 1, item 2)");
}

static void errors_name_file_and_document(void **state)
{
    fx *f = *state;
    read_text(f, "bad.yaml",
              "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\n"
              "---\n"
              "apiVersion: v1\nkind: [unclosed\n"
              "---\n"
              "metadata: {name: nokind}\n"
              "---\n"
              "- just\n- a list\n");
    assert_int_equal(f->in.n, 4);
    assert_non_null(f->in.docs[0].obj);
    assert_null(f->in.docs[1].obj);
    assert_non_null(strstr(f->in.docs[1].error, "error parsing YAML"));
    assert_int_equal(f->in.docs[1].document, 2);
    assert_int_equal(f->in.docs[1].line, 4);
    assert_string_equal(f->in.docs[2].error, "Object 'Kind' is missing");
    assert_int_equal(f->in.docs[2].document, 3);
    assert_string_equal(f->in.docs[3].error, "not a Kubernetes object: a array");
    assert_string_equal(kg_check_doc_where(&f->a, &f->in.docs[2]), "bad.yaml:7 (document 3)");

    read_text(f, "bad.json", "{\"apiVersion\": \"v1\", ");
    assert_int_equal(f->in.n, 5);
    assert_non_null(strstr(f->in.docs[4].error, "error parsing JSON"));
}

static void empty_input_has_no_objects(void **state)
{
    fx *f = *state;
    read_text(f, "empty.yaml", "");
    read_text(f, "comments.yaml", "# nothing\n---\n# still nothing\n");
    assert_int_equal(f->in.n, 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void directories_recursive_by_extension(void **state)
{
    fx *f = *state;
    char dir[] = "/tmp/kgate-check-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[4096];
    snprintf(p, sizeof p, "%s/sub", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    static const char obj[] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n";
    const char *files[] = {"b.yaml", "a.yml", "sub/c.json", "notes.txt", "README"};
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        write_file(p,
                   strstr(files[i], ".json") ? "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}}" : obj);
    }
    kg_error err;
    assert_true(kg_check_read_path(&f->in, dir, &err));
    assert_int_equal(f->in.n, 3);
    assert_non_null(strstr(f->in.docs[0].file, "/a.yml"));
    assert_non_null(strstr(f->in.docs[1].file, "/b.yaml"));
    assert_non_null(strstr(f->in.docs[2].file, "/sub/c.json"));
    /* a file named explicitly is read whatever its name */
    snprintf(p, sizeof p, "%s/README", dir);
    assert_true(kg_check_read_path(&f->in, p, &err));
    assert_int_equal(f->in.n, 4);
    /* a missing path is an error naming it */
    snprintf(p, sizeof p, "%s/missing.yaml", dir);
    assert_false(kg_check_read_path(&f->in, p, &err));
    assert_non_null(strstr(err.msg, "missing.yaml"));
    for (size_t i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
}

static void stdin_is_dash(void **state)
{
    fx *f = *state;
    FILE *tmp = tmpfile();
    fputs("apiVersion: v1\nkind: Pod\nmetadata: {name: from-stdin}\n", tmp);
    rewind(tmp);
    FILE *saved = stdin;
    stdin = tmp;
    kg_error err;
    bool ok = kg_check_read_path(&f->in, "-", &err);
    stdin = saved;
    fclose(tmp);
    assert_true(ok);
    assert_int_equal(f->in.n, 1);
    assert_string_equal(f->in.docs[0].file, "<stdin>");
    assert_string_equal(kg_json_path_str(f->in.docs[0].obj, "metadata.name"), "from-stdin");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(multi_document_yaml_with_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(lists_expand_into_items, setup, teardown),
        cmocka_unit_test_setup_teardown(errors_name_file_and_document, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_input_has_no_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(directories_recursive_by_extension, setup, teardown),
        cmocka_unit_test_setup_teardown(stdin_is_dash, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
