/* Strategic merge patch: upstream strategicpatch test cases (run against a schema shaped like upstream's test
 * struct MergeItem), directives, ordering, error texts, the built-in Kubernetes merge-key table, and a
 * kubectl-apply-like scenario. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "meta/patch.h"

static kg_arena A;

static int setup(void **s)
{
    (void)s;
    kg_arena_init(&A, 0);
    return 0;
}

static int teardown(void **s)
{
    (void)s;
    kg_arena_free(&A);
    return 0;
}

static kg_json *J(const char *text)
{
    kg_error e = {0};
    kg_json *v = kg_json_parse(&A, text, strlen(text), &e);
    if (!v)
        fail_msg("bad test JSON %s: %s", text, e.msg);
    return v;
}

/* ---- a schema like upstream's test struct:
 * type MergeItem struct {
 *     Name, Value, Other string
 *     MergingList           []MergeItem `patchStrategy:"merge" patchMergeKey:"name"`
 *     NonMergingList        []MergeItem
 *     MergingIntList        []int `patchStrategy:"merge"`
 *     NonMergingIntList     []int
 *     MergeItemPtr          *MergeItem `patchStrategy:"merge" patchMergeKey:"name"`
 *     SimpleMap             map[string]string
 *     ReplacingItem         runtime.RawExtension `patchStrategy:"replace"`
 *     RetainKeysMap         RetainKeysMergeItem `patchStrategy:"retainKeys"`
 *     RetainKeysMergingList []MergeItem `patchStrategy:"merge,retainKeys" patchMergeKey:"name"`
 * } */
static const char MERGE_ITEM[] = "MergeItem";

static kg_patch_type t_root(const kg_patch_schema *s, const char *kind)
{
    (void)s;
    return strcmp(kind, MERGE_ITEM) == 0 ? MERGE_ITEM : NULL;
}

static bool t_field(const kg_patch_schema *s, kg_patch_type t, const char *name, kg_patch_field *f)
{
    (void)s;
    (void)t;
    memset(f, 0, sizeof *f);
    if (!strcmp(name, "mergingList") || !strcmp(name, "mergeItemPtr")) {
        f->kind = strcmp(name, "mergingList") == 0 ? KG_PATCH_VALUE_LIST : KG_PATCH_VALUE_STRUCT;
        f->strategy = KG_PATCH_STRATEGY_MERGE;
        f->merge_key = "name";
        f->type = MERGE_ITEM;
    } else if (!strcmp(name, "nonMergingList")) {
        f->kind = KG_PATCH_VALUE_LIST;
        f->type = MERGE_ITEM;
    } else if (!strcmp(name, "mergingIntList")) {
        f->kind = KG_PATCH_VALUE_LIST;
        f->strategy = KG_PATCH_STRATEGY_MERGE;
    } else if (!strcmp(name, "replacingItem")) {
        f->strategy = KG_PATCH_STRATEGY_REPLACE;
    } else if (!strcmp(name, "retainKeysMap")) {
        f->kind = KG_PATCH_VALUE_STRUCT;
        f->strategy = KG_PATCH_STRATEGY_RETAIN_KEYS;
        f->type = MERGE_ITEM;
    } else if (!strcmp(name, "retainKeysMergingList")) {
        f->kind = KG_PATCH_VALUE_LIST;
        f->strategy = KG_PATCH_STRATEGY_MERGE | KG_PATCH_STRATEGY_RETAIN_KEYS;
        f->merge_key = "name";
        f->type = MERGE_ITEM;
    } else if (strcmp(name, "nonMergingIntList") && strcmp(name, "simpleMap") && strcmp(name, "name") &&
               strcmp(name, "value") && strcmp(name, "other")) {
        return false;
    }
    return true;
}

static const kg_patch_schema TEST_SCHEMA = {t_root, t_field, NULL};

static void smp_ok(const kg_patch_schema *sc, const char *kind, const char *doc, const char *patch, const char *expect)
{
    kg_error e = {0};
    kg_json *d = J(doc), *p = J(patch), *out = NULL;
    char *db = kg_json_to_string(&A, d, 0, NULL), *pb = kg_json_to_string(&A, p, 0, NULL);
    if (!kg_patch_strategic(&A, d, p, sc, kind, &out, &e))
        fail_msg("patch %s failed: %s", patch, e.msg);
    if (!kg_json_equal(out, J(expect)))
        fail_msg("patch %s on %s:\n got %s\nwant %s", patch, doc, kg_json_to_string(&A, out, 0, NULL), expect);
    /* inputs are untouched */
    assert_string_equal(db, kg_json_to_string(&A, d, 0, NULL));
    assert_string_equal(pb, kg_json_to_string(&A, p, 0, NULL));
}

static void smp_bad(const kg_patch_schema *sc, const char *kind, const char *doc, const char *patch, const char *msg)
{
    kg_error e = {0};
    kg_json *out = NULL;
    assert_false(kg_patch_strategic(&A, J(doc), J(patch), sc, kind, &out, &e));
    assert_null(out);
    assert_int_equal(e.code, KG_EINVAL);
    assert_string_equal(e.msg, msg);
}

#define T_OK(doc, patch, expect) smp_ok(&TEST_SCHEMA, MERGE_ITEM, doc, patch, expect)
#define T_BAD(doc, patch, msg) smp_bad(&TEST_SCHEMA, MERGE_ITEM, doc, patch, msg)

/* customStrategicMergePatchTestCaseData and createStrategicMergePatchTestCaseData (apply half) */
static void test_upstream_cases(void **s)
{
    (void)s;
    /* unique scalars when merging lists */
    T_OK("{\"mergingIntList\":[1,2]}", "{\"mergingIntList\":[2,3]}", "{\"mergingIntList\":[1,2,3]}");
    /* with $setElementOrder (what kubectl sends) the order is the declared one */
    T_OK("{\"mergingIntList\":[1,2]}", "{\"mergingIntList\":[3],\"$setElementOrder/mergingIntList\":[1,2,3]}",
         "{\"mergingIntList\":[1,2,3]}");
    /* delete map from nested map */
    T_OK("{\"simpleMap\":{\"key1\":1,\"key2\":1}}", "{\"simpleMap\":{\"$patch\":\"delete\"}}", "{\"simpleMap\":{}}");
    /* delete all items from merging list */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2}]}", "{\"mergingList\":[{\"$patch\":\"replace\"}]}",
         "{\"mergingList\":[]}");
    /* merge empty merging lists */
    T_OK("{\"mergingList\":[]}", "{\"mergingList\":[]}", "{\"mergingList\":[]}");
    /* delete all keys from map; add key and delete all keys from map */
    T_OK("{\"name\":1,\"value\":1}", "{\"$patch\":\"replace\"}", "{}");
    T_OK("{\"name\":1,\"value\":1}", "{\"other\":\"a\",\"$patch\":\"replace\"}", "{\"other\":\"a\"}");
    /* delete all duplicate entries in a merging list */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":1},{\"name\":2,\"value\":\"a\"},{\"name\":3},{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":1,\"$patch\":\"delete\"},{\"name\":3,\"$patch\":\"delete\"}]}",
         "{\"mergingList\":[{\"name\":2,\"value\":\"a\"}]}");
    /* add field and delete field from map (current has an extra field that must survive) */
    T_OK("{\"name\":1,\"other\":\"a\"}", "{\"name\":null,\"value\":1}", "{\"value\":1,\"other\":\"a\"}");
    /* delete field from nested map */
    T_OK("{\"simpleMap\":{\"key1\":1,\"key2\":1,\"other\":\"a\"}}", "{\"simpleMap\":{\"key2\":null}}",
         "{\"simpleMap\":{\"key1\":1,\"other\":\"a\"}}");
    /* replace list of scalars (no strategy) */
    T_OK("{\"nonMergingIntList\":[1,4]}", "{\"nonMergingIntList\":[2,3]}", "{\"nonMergingIntList\":[2,3]}");
    /* merge lists of scalars */
    T_OK("{\"mergingIntList\":[1,2,4]}", "{\"$setElementOrder/mergingIntList\":[1,2,3],\"mergingIntList\":[3]}",
         "{\"mergingIntList\":[1,2,3,4]}");
    /* merge lists of maps; add field to map in merging list (server-set fields survive) */
    T_OK("{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2},{\"name\":3}],"
         "\"mergingList\":[{\"name\":1,\"value\":1},{\"name\":3,\"value\":3}]}",
         "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"},"
         "{\"name\":3,\"value\":3}]}");
    /* nested merging list inside a merging list item */
    T_OK("{\"mergingList\":[{\"name\":1,\"mergingList\":[{\"name\":\"a\",\"value\":\"x\"}]}]}",
         "{\"mergingList\":[{\"name\":1,\"mergingList\":[{\"name\":\"a\",\"other\":\"y\"}]}]}",
         "{\"mergingList\":[{\"name\":1,\"mergingList\":[{\"name\":\"a\",\"value\":\"x\",\"other\":\"y\"}]}]}");
    /* non-merging list of maps is replaced */
    T_OK("{\"nonMergingList\":[{\"name\":1,\"value\":1},{\"name\":2}]}", "{\"nonMergingList\":[{\"name\":1}]}",
         "{\"nonMergingList\":[{\"name\":1}]}");
    /* merging struct pointer: maps merge */
    T_OK("{\"mergeItemPtr\":{\"name\":1,\"value\":1}}", "{\"mergeItemPtr\":{\"other\":\"o\"}}",
         "{\"mergeItemPtr\":{\"name\":1,\"value\":1,\"other\":\"o\"}}");
    /* patchStrategy replace on a map field: the patch value replaces */
    T_OK("{\"replacingItem\":{\"a\":1,\"b\":2}}", "{\"replacingItem\":{\"c\":3}}", "{\"replacingItem\":{\"c\":3}}");
    /* $patch: replace inside a nested map */
    T_OK("{\"simpleMap\":{\"a\":\"1\",\"b\":\"2\"}}", "{\"simpleMap\":{\"$patch\":\"replace\",\"c\":\"3\"}}",
         "{\"simpleMap\":{\"c\":\"3\"}}");
    /* $patch: replace in a list keeps only the patch's items, in patch order */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2}]}",
         "{\"mergingList\":[{\"name\":3},{\"$patch\":\"replace\"},{\"name\":2,\"value\":\"v\"}]}",
         "{\"mergingList\":[{\"name\":3},{\"name\":2,\"value\":\"v\"}]}");
    /* a new key whose value is a $patch directive map is dropped; nulls inside new values are discarded */
    T_OK("{}", "{\"simpleMap\":{\"$patch\":\"delete\"},\"mergeItemPtr\":{\"name\":1,\"value\":null}}",
         "{\"mergeItemPtr\":{\"name\":1}}");
    /* type change replaces (and discards nulls) */
    T_OK("{\"other\":[1]}", "{\"other\":{\"a\":null,\"b\":1}}", "{\"other\":{\"b\":1}}");
    /* deleting a missing key is a no-op; null patch is an empty patch */
    T_OK("{\"name\":1}", "{\"value\":null}", "{\"name\":1}");
    T_OK("{\"name\":1}", "null", "{\"name\":1}");
}

static void test_ordering(void **s)
{
    (void)s;
    /* $setElementOrder reorders without content changes */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2},{\"name\":3}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":3},{\"name\":2},{\"name\":1}]}",
         "{\"mergingList\":[{\"name\":3},{\"name\":2},{\"name\":1}]}");
    /* a new item is placed where $setElementOrder says */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":3},{\"name\":2}],\"mergingList\":[{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":1},{\"name\":3},{\"name\":2}]}");
    /* server-only items keep their place relative to the live list */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":4},{\"name\":2}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":3},{\"name\":2}],\"mergingList\":[{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":1},{\"name\":3},{\"name\":4},{\"name\":2}]}");
    /* without $setElementOrder, items new to the live list come before the remaining server-only items */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2}]}", "{\"mergingList\":[{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":3},{\"name\":1},{\"name\":2}]}");
    /* patched existing items keep the live order */
    T_OK("{\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}",
         "{\"mergingList\":[{\"name\":\"b\",\"value\":\"x\"}]}",
         "{\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\",\"value\":\"x\"},{\"name\":\"c\"}]}");
    /* patch items are ordered by the patch, interleaved with server-only items by live position */
    T_OK("{\"mergingList\":[{\"name\":1},{\"name\":2},{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":3,\"value\":\"x\"},{\"name\":1,\"value\":\"y\"}]}",
         "{\"mergingList\":[{\"name\":2},{\"name\":3,\"value\":\"x\"},{\"name\":1,\"value\":\"y\"}]}");
    /* merge keys compare like Go values: 1 and "1" are different items */
    T_OK("{\"mergingList\":[{\"name\":1,\"value\":\"int\"}]}", "{\"mergingList\":[{\"name\":\"1\",\"value\":\"str\"}]}",
         "{\"mergingList\":[{\"name\":\"1\",\"value\":\"str\"},{\"name\":1,\"value\":\"int\"}]}");
}

static void test_primitive_list_directives(void **s)
{
    (void)s;
    T_OK("{\"mergingIntList\":[1,2,3]}", "{\"$deleteFromPrimitiveList/mergingIntList\":[2]}",
         "{\"mergingIntList\":[1,3]}");
    /* kubectl's form: order + deletion list together */
    T_OK("{\"mergingIntList\":[1,2,3]}",
         "{\"$setElementOrder/mergingIntList\":[1,3],\"$deleteFromPrimitiveList/mergingIntList\":[2]}",
         "{\"mergingIntList\":[1,3]}");
    /* deletion and addition in one patch */
    T_OK("{\"mergingIntList\":[1,2]}",
         "{\"$setElementOrder/mergingIntList\":[1,5],\"$deleteFromPrimitiveList/mergingIntList\":[2],"
         "\"mergingIntList\":[5]}",
         "{\"mergingIntList\":[1,5]}");
    /* deletion lists apply to lists without a merge strategy too (kubernetes#110472) */
    T_OK("{\"nonMergingIntList\":[1,2,3,2]}", "{\"$deleteFromPrimitiveList/nonMergingIntList\":[2]}",
         "{\"nonMergingIntList\":[1,3]}");
    T_BAD("{\"nonMergingList\":[{\"name\":1}]}", "{\"$deleteFromPrimitiveList/nonMergingList\":[{\"name\":1}]}",
          "cannot merge lists without merge key for struct");
    /* deleting from a missing list does nothing */
    T_OK("{}", "{\"$deleteFromPrimitiveList/mergingIntList\":[2]}", "{}");
    /* $retainKeys on a retainKeys map clears the other fields */
    T_OK("{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"other\":\"x\"}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"],\"value\":\"baz\"}}",
         "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"baz\"}}");
    /* and inside items of a merge,retainKeys list */
    T_OK("{\"retainKeysMergingList\":[{\"name\":\"a\",\"value\":\"1\",\"other\":\"2\"},{\"name\":\"b\",\"other\":\"3\"}"
         "]}",
         "{\"retainKeysMergingList\":[{\"name\":\"a\",\"$retainKeys\":[\"name\",\"other\"],\"other\":\"4\"}]}",
         "{\"retainKeysMergingList\":[{\"name\":\"a\",\"other\":\"4\"},{\"name\":\"b\",\"other\":\"3\"}]}");
}

static void test_errors(void **s)
{
    (void)s;
    T_BAD("{\"mergingList\":[{\"name\":1}]}", "{\"mergingList\":[{\"value\":\"x\"}]}",
          "map: map[value:x] does not contain declared merge key: name");
    T_BAD("{\"mergingList\":[{\"name\":1}]}", "{\"mergingList\":[{\"value\":\"x\",\"$patch\":\"delete\"}]}",
          "map: map[$patch:delete value:x] does not contain declared merge key: name");
    T_BAD("{\"simpleMap\":{\"a\":\"1\"}}", "{\"simpleMap\":{\"$patch\":\"foo\",\"a\":\"1\"}}",
          "unknown patch type: foo in map: map[$patch:foo a:1]");
    T_BAD("{\"name\":1}", "{\"$patch\":\"merge\"}", "unknown patch type: merge in map: map[$patch:merge]");
    T_BAD("{\"mergingList\":[{\"name\":1}]}", "{\"mergingList\":[{\"$patch\":\"merge\"}]}",
          "merging lists cannot yet be specified in the patch");
    T_BAD("{\"mergingList\":[{\"name\":1}]}", "{\"mergingList\":[{\"name\":1,\"$patch\":\"bogus\"}]}",
          "unknown patch type: bogus in map: map[$patch:bogus name:1]");
    T_BAD("{\"retainKeysMap\":{\"name\":\"a\"}}", "{\"retainKeysMap\":{\"$retainKeys\":[\"name\"],\"value\":\"x\"}}",
          "invalid patch format of retainKeys");
    T_BAD("{\"retainKeysMap\":{\"name\":\"a\"}}", "{\"retainKeysMap\":{\"$retainKeys\":\"name\"}}",
          "invalid patch format of retainKeys");
    T_BAD("{\"mergingIntList\":[1]}", "{\"$deleteFromPrimitiveListX/mergingIntList\":[1]}",
          "invalid patch format of primitive list");
    T_BAD("{\"mergingList\":[]}", "{\"$setElementOrder/mergingList\":\"x\"}",
          "expected a []interface {}, but received a string");
    T_BAD("{\"mergingList\":[]}", "{\"$setElementOrderX\":[1]}", "invalid patch format of setElementOrder list");
    T_BAD("{\"mergingList\":[{\"name\":1},{\"name\":2}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],"
          "\"mergingList\":[{\"name\":2,\"value\":\"b\"},{\"name\":1,\"value\":\"a\"}]}",
          "the order in patch list:\n[map[name:2 value:b] map[name:1 value:a]]\n doesn't match $setElementOrder "
          "list:\n[map[name:1] map[name:2]]");
    T_BAD("{\"mergingIntList\":[[1]]}", "{\"mergingIntList\":[[2]]}", "lists of lists are not supported");
    T_BAD("{\"mergingIntList\":[1]}", "{\"mergingIntList\":[\"a\"]}",
          "list element types are not identical: [[1] [a]]");
    smp_bad(&TEST_SCHEMA, MERGE_ITEM, "{}", "[1]",
            "json: cannot unmarshal array into Go value of type map[string]interface {}");
}

/* ---- the built-in Kubernetes table ---- */

#define K_OK(kind, doc, patch, expect) smp_ok(kg_patch_schema_builtin(), kind, doc, patch, expect)

static void test_builtin_pod(void **s)
{
    (void)s;
    const char *pod = "{\"metadata\":{\"name\":\"p\",\"finalizers\":[\"a\"]},\"spec\":{"
                      "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
                      "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]}],"
                      "\"tolerations\":[{\"key\":\"k1\",\"operator\":\"Exists\"}],"
                      "\"volumes\":[{\"name\":\"data\",\"hostPath\":{\"path\":\"/x\"}}]}}";
    /* env merges by name; ports by containerPort */
    K_OK("Pod", pod,
         "{\"spec\":{\"containers\":[{\"name\":\"app\",\"env\":[{\"name\":\"B\",\"value\":\"3\"}],"
         "\"ports\":[{\"containerPort\":443}]}]}}",
         "{\"metadata\":{\"name\":\"p\",\"finalizers\":[\"a\"]},\"spec\":{"
         "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":443},{\"containerPort\":"
         "80}],"
         "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"3\"}]}],"
         "\"tolerations\":[{\"key\":\"k1\",\"operator\":\"Exists\"}],"
         "\"volumes\":[{\"name\":\"data\",\"hostPath\":{\"path\":\"/x\"}}]}}");
    /* tolerations carry no patch strategy: replaced; finalizers merge as a set */
    K_OK(
        "/Pod", pod,
        "{\"metadata\":{\"finalizers\":[\"b\"]},\"spec\":{\"tolerations\":[{\"key\":\"k2\",\"operator\":\"Exists\"}]}}",
        "{\"metadata\":{\"name\":\"p\",\"finalizers\":[\"b\",\"a\"]},\"spec\":{"
        "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
        "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]}],"
        "\"tolerations\":[{\"key\":\"k2\",\"operator\":\"Exists\"}],"
        "\"volumes\":[{\"name\":\"data\",\"hostPath\":{\"path\":\"/x\"}}]}}");
    /* volumes are merge,retainKeys: switching the volume source drops the old one */
    K_OK("Pod", pod,
         "{\"spec\":{\"volumes\":[{\"name\":\"data\",\"emptyDir\":{},\"$retainKeys\":[\"emptyDir\",\"name\"]}]}}",
         "{\"metadata\":{\"name\":\"p\",\"finalizers\":[\"a\"]},\"spec\":{"
         "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
         "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]}],"
         "\"tolerations\":[{\"key\":\"k1\",\"operator\":\"Exists\"}],"
         "\"volumes\":[{\"name\":\"data\",\"emptyDir\":{}}]}}");
    /* delete a container's env var by merge key */
    K_OK("Pod", pod,
         "{\"spec\":{\"containers\":[{\"name\":\"app\",\"env\":[{\"name\":\"A\",\"$patch\":\"delete\"}]}]}}",
         "{\"metadata\":{\"name\":\"p\",\"finalizers\":[\"a\"]},\"spec\":{"
         "\"containers\":[{\"name\":\"app\",\"image\":\"nginx\",\"ports\":[{\"containerPort\":80}],"
         "\"env\":[{\"name\":\"B\",\"value\":\"2\"}]}],"
         "\"tolerations\":[{\"key\":\"k1\",\"operator\":\"Exists\"}],"
         "\"volumes\":[{\"name\":\"data\",\"hostPath\":{\"path\":\"/x\"}}]}}");
    /* a container without its merge key is an error */
    smp_bad(kg_patch_schema_builtin(), "Pod", pod, "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}",
            "map: map[image:x] does not contain declared merge key: name");
}

/* the kubernetes.io "Update API Objects in Place Using kubectl patch" walkthrough */
static void test_builtin_deployment_docs_example(void **s)
{
    (void)s;
    const char *dep = "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"patch-demo\"},"
                      "\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":"
                      "[{\"name\":\"patch-demo-ctr\",\"image\":\"nginx\"}],"
                      "\"tolerations\":[{\"effect\":\"NoSchedule\",\"key\":\"dedicated\",\"value\":\"test-team\"}]}}}}";
    /* strategic: the container list is merged (the new container comes first) */
    K_OK("apps/Deployment", dep,
         "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"patch-demo-ctr-2\",\"image\":\"redis\"}]}}}}",
         "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"patch-demo\"},"
         "\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":"
         "[{\"name\":\"patch-demo-ctr-2\",\"image\":\"redis\"},{\"name\":\"patch-demo-ctr\",\"image\":\"nginx\"}],"
         "\"tolerations\":[{\"effect\":\"NoSchedule\",\"key\":\"dedicated\",\"value\":\"test-team\"}]}}}}");
    /* tolerations are replaced */
    K_OK("apps/Deployment", dep,
         "{\"spec\":{\"template\":{\"spec\":{\"tolerations\":[{\"effect\":\"NoSchedule\",\"key\":\"disktype\","
         "\"value\":\"ssd\"}]}}}}",
         "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"patch-demo\"},"
         "\"spec\":{\"replicas\":2,\"template\":{\"spec\":{\"containers\":"
         "[{\"name\":\"patch-demo-ctr\",\"image\":\"nginx\"}],"
         "\"tolerations\":[{\"effect\":\"NoSchedule\",\"key\":\"disktype\",\"value\":\"ssd\"}]}}}}");
    /* strategy is retainKeys: switching to Recreate drops rollingUpdate */
    K_OK("apps/Deployment",
         "{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"25%\"}}}}",
         "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\"}}}",
         "{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}");
    /* CronJob reaches the pod template through jobTemplate */
    K_OK("batch/CronJob",
         "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":"
         "\"1\"},"
         "{\"name\":\"b\",\"image\":\"1\"}]}}}}}}",
         "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"b\",\"image\":"
         "\"2\"}]}}}}}}",
         "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":"
         "\"1\"},"
         "{\"name\":\"b\",\"image\":\"2\"}]}}}}}}");
    /* Service ports merge by port */
    K_OK("Service", "{\"spec\":{\"ports\":[{\"port\":80,\"targetPort\":8080},{\"port\":443,\"targetPort\":8443}]}}",
         "{\"spec\":{\"ports\":[{\"port\":443,\"targetPort\":9443}]}}",
         "{\"spec\":{\"ports\":[{\"port\":80,\"targetPort\":8080},{\"port\":443,\"targetPort\":9443}]}}");
    /* Node status conditions merge by type (kubelet's heartbeat patch) */
    K_OK("Node",
         "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"},{\"type\":\"MemoryPressure\","
         "\"status\":\"False\"}]}}",
         "{\"status\":{\"$setElementOrder/conditions\":[{\"type\":\"Ready\"},{\"type\":\"MemoryPressure\"}],"
         "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
         "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"MemoryPressure\","
         "\"status\":\"False\"}]}}");
}

/* kubectl apply: last-applied had image A and label x; the user changed the image to B and added label y.
 * kubectl's three-way patch must update exactly that and keep every server-set field. */
static void test_kubectl_apply_scenario(void **s)
{
    (void)s;
    const char *live =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"namespace\":\"default\","
        "\"uid\":\"7c3a\",\"resourceVersion\":\"41\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","
        "\"labels\":{\"x\":\"1\"},\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"old\"}},"
        "\"spec\":{\"nodeName\":\"node-1\",\"serviceAccountName\":\"default\",\"containers\":[{\"name\":\"app\","
        "\"image\":\"A\",\"terminationMessagePath\":\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\","
        "\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],\"volumeMounts\":[{\"name\":\"kube-api-access-x\","
        "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\",\"readOnly\":true}]}],"
        "\"volumes\":[{\"name\":\"kube-api-access-x\",\"projected\":{\"sources\":[{\"serviceAccountToken\":"
        "{\"path\":\"token\"}}]}}],\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
        "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},"
        "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\"}}";
    /* what CreateThreeWayMergePatch produces for that change */
    const char *patch = "{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"new\"},"
                        "\"labels\":{\"y\":\"2\"}},\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"app\"}],"
                        "\"containers\":[{\"image\":\"B\",\"name\":\"app\"}]}}";
    const char *want =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"namespace\":\"default\","
        "\"uid\":\"7c3a\",\"resourceVersion\":\"41\",\"creationTimestamp\":\"2026-01-01T00:00:00Z\","
        "\"labels\":{\"x\":\"1\",\"y\":\"2\"},\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
        "\"new\"}},"
        "\"spec\":{\"nodeName\":\"node-1\",\"serviceAccountName\":\"default\",\"containers\":[{\"name\":\"app\","
        "\"image\":\"B\",\"terminationMessagePath\":\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\","
        "\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],\"volumeMounts\":[{\"name\":\"kube-api-access-x\","
        "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\",\"readOnly\":true}]}],"
        "\"volumes\":[{\"name\":\"kube-api-access-x\",\"projected\":{\"sources\":[{\"serviceAccountToken\":"
        "{\"path\":\"token\"}}]}}],\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
        "\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},"
        "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\"}}";
    K_OK("Pod", live, patch, want);

    /* next apply: port 80 replaced by 8080 in the manifest, label x removed */
    const char *patch2 =
        "{\"metadata\":{\"labels\":{\"x\":null}},\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"app\"}],"
        "\"containers\":[{\"$setElementOrder/ports\":[{\"containerPort\":8080}],\"name\":\"app\","
        "\"ports\":[{\"containerPort\":8080},{\"$patch\":\"delete\",\"containerPort\":80}]}]}}";
    kg_error e = {0};
    kg_json *out = NULL;
    assert_true(kg_patch_strategic(&A, J(live), J(patch2), kg_patch_schema_builtin(), "Pod", &out, &e));
    assert_true(kg_json_equal(kg_json_path(out, "metadata.labels"), J("{}")));
    const kg_json *c0 = kg_json_at(kg_json_path(out, "spec.containers"), 0);
    assert_true(kg_json_equal(kg_json_get(c0, "ports"), J("[{\"containerPort\":8080}]")));
    assert_string_equal(kg_json_get_str(c0, "image"), "A");
    assert_non_null(kg_json_get(c0, "volumeMounts"));
    /* no directive survives into the stored object */
    char *txt = kg_json_to_string(&A, out, 0, NULL);
    assert_null(strstr(txt, "$setElementOrder"));
    assert_null(strstr(txt, "$patch"));
}

static void test_unknown_kinds_and_no_schema(void **s)
{
    (void)s;
    /* kinds outside the table: metadata is still known, everything else merges like RFC 7386 */
    K_OK("example.com/Widget",
         "{\"metadata\":{\"finalizers\":[\"a\"]},\"spec\":{\"containers\":[{\"name\":\"a\"}],\"m\":{\"k\":1}}}",
         "{\"metadata\":{\"finalizers\":[\"b\"]},\"spec\":{\"containers\":[{\"name\":\"b\"}],\"m\":{\"j\":2}}}",
         "{\"metadata\":{\"finalizers\":[\"b\",\"a\"]},\"spec\":{\"containers\":[{\"name\":\"b\"}],"
         "\"m\":{\"k\":1,\"j\":2}}}");
    /* no schema at all: merge patch semantics, directives still honoured and never stored */
    smp_ok(NULL, NULL, "{\"a\":{\"b\":1,\"c\":2},\"l\":[1,2]}",
           "{\"a\":{\"$patch\":\"replace\",\"d\":3},\"l\":[{\"x\":1,\"$patch\":\"delete\"}]}",
           "{\"a\":{\"d\":3},\"l\":[{\"x\":1}]}");
}

static void test_schema_lookup(void **s)
{
    (void)s;
    const kg_patch_schema *b = kg_patch_schema_builtin();
    kg_patch_field f;
    const char *ports[] = {"spec", "template", "spec", "containers", "ports"};
    assert_true(kg_patch_schema_lookup(b, "apps/Deployment", ports, 5, &f));
    assert_int_equal(f.kind, KG_PATCH_VALUE_LIST);
    assert_int_equal(f.strategy, KG_PATCH_STRATEGY_MERGE);
    assert_string_equal(f.merge_key, "containerPort");
    const char *vols[] = {"spec", "volumes"};
    assert_true(kg_patch_schema_lookup(b, "Pod", vols, 2, &f));
    assert_int_equal(f.strategy, KG_PATCH_STRATEGY_MERGE | KG_PATCH_STRATEGY_RETAIN_KEYS);
    assert_string_equal(f.merge_key, "name");
    const char *mounts[] = {"spec", "jobTemplate", "spec", "template", "spec", "initContainers", "volumeMounts"};
    assert_true(kg_patch_schema_lookup(b, "batch/CronJob", mounts, 7, &f));
    assert_string_equal(f.merge_key, "mountPath");
    const char *owners[] = {"metadata", "ownerReferences"};
    assert_true(kg_patch_schema_lookup(b, "rbac.authorization.k8s.io/Role", owners, 2, &f));
    assert_string_equal(f.merge_key, "uid");
    const char *fin[] = {"metadata", "finalizers"};
    assert_true(kg_patch_schema_lookup(b, "ConfigMap", fin, 2, &f));
    assert_int_equal(f.elem_kind, KG_PATCH_VALUE_PRIMITIVE);
    assert_null(f.merge_key);
    const char *conds[] = {"status", "conditions"};
    assert_true(kg_patch_schema_lookup(b, "Pod", conds, 2, &f));
    assert_string_equal(f.merge_key, "type");
    const char *addrs[] = {"status", "addresses"};
    assert_true(kg_patch_schema_lookup(b, "Node", addrs, 2, &f));
    assert_string_equal(f.merge_key, "type");
    const char *hosts[] = {"spec", "hostAliases"};
    assert_true(kg_patch_schema_lookup(b, "Pod", hosts, 2, &f));
    assert_string_equal(f.merge_key, "ip");
    const char *webhooks[] = {"webhooks"};
    assert_true(
        kg_patch_schema_lookup(b, "admissionregistration.k8s.io/MutatingWebhookConfiguration", webhooks, 1, &f));
    assert_string_equal(f.merge_key, "name");
    /* the kind may be spelled the ways the server has at hand */
    assert_true(kg_patch_schema_lookup(b, "apps/v1, Kind=Deployment", ports, 5, &f));
    assert_string_equal(f.merge_key, "containerPort");
    assert_true(kg_patch_schema_lookup(b, "apps/v1/Deployment", ports, 5, &f));
    assert_true(kg_patch_schema_lookup(b, "v1/Pod", vols, 2, &f));
    /* untagged fields are not in the table: they merge like JSON merge patch */
    const char *tol[] = {"spec", "tolerations"};
    assert_false(kg_patch_schema_lookup(b, "Pod", tol, 2, &f));
    const char *nope[] = {"spec", "nope", "x"};
    assert_false(kg_patch_schema_lookup(b, "Pod", nope, 3, &f));
    assert_false(kg_patch_schema_lookup(b, "", vols, 2, &f));
}

/* big maps and lists: the indexed paths give the same results as the small ones */
static void test_large_objects(void **s)
{
    (void)s;
    kg_buf doc = KG_BUF_INIT, patch = KG_BUF_INIT, want = KG_BUF_INIT;
    /* 300 labels: 0-99 deleted, 100-199 changed, 200-299 kept, 300-399 added; 500 env vars merged by name */
    kg_buf_puts(&doc, "{\"metadata\":{\"labels\":{");
    kg_buf_puts(&patch, "{\"metadata\":{\"labels\":{");
    kg_buf_puts(&want, "{\"metadata\":{\"labels\":{");
    for (int i = 0; i < 300; i++)
        kg_buf_printf(&doc, "%s\"l%d\":\"v\"", i ? "," : "", i);
    for (int i = 0; i < 400; i++) {
        if (i < 100)
            kg_buf_printf(&patch, "%s\"l%d\":null", i ? "," : "", i);
        else if (i < 200 || i >= 300)
            kg_buf_printf(&patch, ",\"l%d\":\"w\"", i);
        if (i >= 100)
            kg_buf_printf(&want, "%s\"l%d\":\"%c\"", i > 100 ? "," : "", i, (i < 200 || i >= 300) ? 'w' : 'v');
    }
    kg_buf_puts(&doc, "}},\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[");
    kg_buf_puts(&patch, "}},\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[");
    kg_buf_puts(&want, "}},\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[");
    for (int i = 0; i < 500; i++) {
        kg_buf_printf(&doc, "%s{\"name\":\"E%d\",\"value\":\"old\"}", i ? "," : "", i);
        kg_buf_printf(&want, "%s{\"name\":\"E%d\",\"value\":\"%s\"}", i ? "," : "", i, i % 2 ? "new" : "old");
    }
    for (int i = 1, first = 1; i < 500; i += 2, first = 0)
        kg_buf_printf(&patch, "%s{\"name\":\"E%d\",\"value\":\"new\"}", first ? "" : ",", i);
    kg_buf_puts(&doc, "]}]}}");
    kg_buf_puts(&patch, "]}]}}");
    kg_buf_puts(&want, "]}]}}");
    K_OK("Pod", kg_buf_cstr(&doc), kg_buf_cstr(&patch), kg_buf_cstr(&want));
    kg_buf_free(&doc);
    kg_buf_free(&patch);
    kg_buf_free(&want);
}

/* upstream panics (and answers 500) on $setElementOrder for a list of maps without a merge key; we must not crash */
static void test_set_order_without_merge_key(void **s)
{
    (void)s;
    kg_error e = {0};
    kg_json *out = NULL;
    assert_false(
        kg_patch_strategic(&A, J("{\"nonMergingList\":[{\"name\":1},{\"name\":2}]}"),
                           J("{\"$setElementOrder/nonMergingList\":[{\"name\":2}],\"nonMergingList\":[{\"name\":2}]}"),
                           &TEST_SCHEMA, MERGE_ITEM, &out, &e));
    assert_int_equal(e.code, KG_EINTERNAL);
    assert_string_equal(e.msg, "runtime error: comparing uncomparable type map[string]interface {}");
    /* without a patch list there is nothing to compare: the live list is kept */
    T_OK("{\"nonMergingList\":[{\"name\":1},{\"name\":2}]}", "{\"$setElementOrder/nonMergingList\":[{\"name\":2}]}",
         "{\"nonMergingList\":[{\"name\":1},{\"name\":2}]}");
    smp_ok(NULL, NULL, "{\"x\":[{\"a\":1}]}", "{\"$setElementOrder/x\":[{\"a\":1}]}", "{\"x\":[{\"a\":1}]}");
}

/* strategicpatch/patch_test.go strategicMergePatchRawTestCases: the three-way patch applied to "current" must give
 * "result" (list order included). */
static void test_upstream_apply_cases(void **s)
{
    (void)s;
    static const struct {
        const char *name, *current, *patch, *result;
    } cases[] = {
        {"delete all duplicate items in lists of scalars", "{\"mergingIntList\":[1,2,3,3,4]}",
         "{\"$setElementOrder/mergingIntList\":[1,2],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
         "{\"mergingIntList\":[1,2,4]}"},
        {"merge lists of maps",
         "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":4},{\"name\":1},{\"name\":2},{\"name\":3}],"
         "\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}",
         "{\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":"
         "\"b\"},"
         "{\"name\":3,\"value\":3}]}"},
        {"set elements order in a list with server-only items 2",
         "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2},{\"name\":9},{\"name\":3,\"value\":3}"
         ","
         "{\"name\":4,\"value\":4}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1},{\"name\":4},{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":2,\"value\":2},{\"name\":1,\"other\":\"a\"},{\"name\":9},{\"name\":4,\"value\":4}"
         ","
         "{\"name\":3,\"value\":3}]}"},
        {"set elements order in a list with server-only items 3",
         "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2},{\"name\":7},{\"name\":9},{\"name\":"
         "8},"
         "{\"name\":3,\"value\":3},{\"name\":4,\"value\":4}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1},{\"name\":4},{\"name\":3}]}",
         "{\"mergingList\":[{\"name\":2,\"value\":2},{\"name\":1,\"other\":\"a\"},{\"name\":7},{\"name\":9},{\"name\":"
         "8},"
         "{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}"},
        {"add an item in a int list and preserve order", "{\"mergingIntList\":[1,2]}",
         "{\"$setElementOrder/mergingIntList\":[3,1,2],\"mergingIntList\":[3]}", "{\"mergingIntList\":[3,1,2]}"},
        {"add multiple items in a int list and preserve order", "{\"mergingIntList\":[1,2]}",
         "{\"$setElementOrder/mergingIntList\":[1,4,2,3],\"mergingIntList\":[4,3]}", "{\"mergingIntList\":[1,4,2,3]}"},
        {"delete an item in a int list and preserve order", "{\"mergingIntList\":[1,2,3]}",
         "{\"$setElementOrder/mergingIntList\":[2,1],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
         "{\"mergingIntList\":[2,1]}"},
        {"add and delete an item in a int list and preserve order", "{\"mergingIntList\":[1,2,3]}",
         "{\"$setElementOrder/mergingIntList\":[4,2,1],\"mergingIntList\":[4],"
         "\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
         "{\"mergingIntList\":[4,2,1]}"},
        {"set elements order in a int list with server-only items", "{\"mergingIntList\":[1,3,4,2,9]}",
         "{\"$setElementOrder/mergingIntList\":[4,2,3,1]}", "{\"mergingIntList\":[4,2,3,1,9]}"},
        {"set elements order in a int list with server-only items 3", "{\"mergingIntList\":[1,2,7,9,8,3,4]}",
         "{\"$setElementOrder/mergingIntList\":[2,1,4,3]}", "{\"mergingIntList\":[2,1,7,9,8,4,3]}"},
        {"behavior of set element order for a merging list with duplicate",
         "{\"mergingList\":[{\"name\":1},{\"name\":2,\"value\":\"dup1\"},{\"name\":3},{\"name\":2,\"value\":\"dup2\"},"
         "{\"name\":4}]}",
         "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1},{\"name\":4},{\"name\":3},{\"name\":2}]}",
         "{\"mergingList\":[{\"name\":2,\"value\":\"dup1\"},{\"name\":2,\"value\":\"dup2\"},{\"name\":1},{\"name\":4},"
         "{\"name\":3}]}"},
        {"behavior of set element order for a merging int list with duplicate", "{\"mergingIntList\":[1,2,3,2,4]}",
         "{\"$setElementOrder/mergingIntList\":[2,1,4,3,2]}", "{\"mergingIntList\":[2,2,1,4,3]}"},
        {"retainKeys map should clear defaulted field", "{\"retainKeysMap\":{\"value\":\"foo\"}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"other\"],\"other\":\"bar\"}}",
         "{\"retainKeysMap\":{\"other\":\"bar\"}}"},
        {"retainKeys map should clear defaulted field with conflict (discriminated union)",
         "{\"retainKeysMap\":{\"name\":\"type1\",\"value\":\"foo\"}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"other\"],\"name\":\"type2\",\"other\":\"bar\"}}",
         "{\"retainKeysMap\":{\"name\":\"type2\",\"other\":\"bar\"}}"},
        {"retainKeys map deletes a field and clears a field",
         "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"other\":\"a\"}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"name\"],\"value\":null}}", "{\"retainKeysMap\":{\"name\":\"foo\"}}"},
        {"retainKeys map clears a field", "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"other\":\"a\"}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"]}}",
         "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}"},
        {"retainKeys map adds a field in a nested map",
         "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key3\":\"c\"}}}",
         "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"simpleMap\",\"value\"],\"simpleMap\":{\"key2\":\"b\"}}}",
         "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key2\":\"b\",\"key3\":"
         "\"c\"}}}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kg_error e = {0};
        kg_json *out = NULL;
        if (!kg_patch_strategic(&A, J(cases[i].current), J(cases[i].patch), &TEST_SCHEMA, MERGE_ITEM, &out, &e))
            fail_msg("%s: %s", cases[i].name, e.msg);
        if (!kg_json_equal(out, J(cases[i].result)))
            fail_msg("%s:\n got %s\nwant %s", cases[i].name, kg_json_to_string(&A, out, 0, NULL), cases[i].result);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_upstream_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ordering, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upstream_apply_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_primitive_list_directives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builtin_pod, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builtin_deployment_docs_example, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kubectl_apply_scenario, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_kinds_and_no_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_order_without_merge_key, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
