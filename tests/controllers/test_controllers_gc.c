/* The garbage collector's graph and steps (controllers/gc), driven without its thread over a fake client: a small
 * object table with resourceVersion preconditions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controllers/gc/collector.h"
#include "controllers/gc/graph.h"

/* ---- the fake cluster ---- */

#define MAX_OBJS 32
typedef struct fobj {
    bool used;
    char resource[32], ns[32], name[32];
    kg_arena a;
    kg_json *obj;
    int64_t rv;
} fobj;

static fobj objs[MAX_OBJS];
static int64_t next_rv = 1;
static int writes, deletes;

static fobj *find(const char *resource, const char *ns, const char *name)
{
    for (int i = 0; i < MAX_OBJS; i++)
        if (objs[i].used && !strcmp(objs[i].resource, resource) && !strcmp(objs[i].ns, ns) &&
            !strcmp(objs[i].name, name))
            return &objs[i];
    return NULL;
}

static void set_rv(fobj *f)
{
    char rv[24];
    snprintf(rv, sizeof rv, "%lld", (long long)f->rv);
    kg_json_set(&f->a, kg_json_get_or_add_object(&f->a, f->obj, "metadata"), "resourceVersion",
                kg_json_new_str(&f->a, rv));
}

/* Store a configmap-like object from JSON text; returns its slot. */
static fobj *put(const char *resource, const char *ns, const char *name, const char *json)
{
    fobj *f = find(resource, ns, name);
    if (!f)
        for (int i = 0; i < MAX_OBJS && !f; i++)
            if (!objs[i].used)
                f = &objs[i];
    assert_non_null(f);
    if (f->used)
        kg_arena_free(&f->a);
    memset(f, 0, sizeof *f);
    f->used = true;
    snprintf(f->resource, sizeof f->resource, "%s", resource);
    snprintf(f->ns, sizeof f->ns, "%s", ns);
    snprintf(f->name, sizeof f->name, "%s", name);
    kg_arena_init(&f->a, 0);
    kg_error err;
    f->obj = kg_json_parse(&f->a, json, strlen(json), &err);
    assert_non_null(f->obj);
    f->rv = next_rv++;
    set_rv(f);
    return f;
}

static void drop(fobj *f)
{
    kg_arena_free(&f->a);
    memset(f, 0, sizeof *f);
}

static kg_json *f_get(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, kg_error *err)
{
    (void)ctx;
    fobj *f = find(resource, ns, name);
    if (!f) {
        kg_err_set(err, KG_ENOTFOUND, "not found");
        return NULL;
    }
    return kg_json_clone(a, f->obj);
}

static kg_json *f_update(void *ctx, kg_arena *a, const char *resource, const char *ns, const kg_json *obj,
                         kg_error *err)
{
    (void)ctx;
    const char *name = kg_json_path_str(obj, "metadata.name");
    fobj *f = find(resource, ns, name);
    if (!f) {
        kg_err_set(err, KG_ENOTFOUND, "not found");
        return NULL;
    }
    if (atoll(kg_json_path_str(obj, "metadata.resourceVersion")) != f->rv) {
        kg_err_set(err, KG_ECONFLICT, "conflict");
        return NULL;
    }
    f->obj = kg_json_clone(&f->a, obj);
    f->rv = next_rv++;
    set_rv(f);
    writes++;
    return kg_json_clone(a, f->obj);
}

static bool f_delete(void *ctx, kg_arena *a, const char *resource, const char *ns, const char *name, const char *rv,
                     kg_error *err)
{
    (void)ctx;
    (void)a;
    fobj *f = find(resource, ns, name);
    if (!f)
        return kg_err_set(err, KG_ENOTFOUND, "not found");
    if (rv && *rv && atoll(rv) != f->rv)
        return kg_err_set(err, KG_ECONFLICT, "conflict");
    drop(f);
    deletes++;
    return true;
}

static bool f_resource_for_kind(void *ctx, const char *group, const char *version, const char *kind,
                                const char **plural, bool *namespaced)
{
    (void)ctx;
    (void)version;
    if (*group)
        return false;
    if (!strcmp(kind, "ConfigMap")) {
        *plural = "configmaps";
        *namespaced = true;
        return true;
    }
    if (!strcmp(kind, "Namespace")) {
        *plural = "namespaces";
        *namespaced = false;
        return true;
    }
    return false;
}

static kg_admission_services svc = {.resource_for_kind = f_resource_for_kind};
static const kg_controller_client client = {
    .get = f_get, .update = f_update, .delete_object = f_delete, .services = &svc};

static void observe(kg_gc_state *s, kg_client_event_type t, const fobj *f)
{
    kg_client_event ev = {
        .type = t, .group = "", .resource = f->resource, .ns = f->ns, .name = f->name, .object = f->obj};
    kg_gc_state_observe(s, &ev);
}

/* Observe the deletion of f (as the watch reports it: the last state), then free the slot. */
static void observe_gone(kg_gc_state *s, const char *resource, const char *ns, const char *name, kg_json *last)
{
    kg_client_event ev = {
        .type = KG_CLIENT_DELETED, .group = "", .resource = resource, .ns = ns, .name = name, .object = last};
    kg_gc_state_observe(s, &ev);
}

static int reset(void **state)
{
    (void)state;
    for (int i = 0; i < MAX_OBJS; i++)
        if (objs[i].used)
            drop(&objs[i]);
    writes = deletes = 0;
    return 0;
}

#define CM(name, extra) "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\"" extra "}}"
#define OWNER(name, uid, block)                                                                                        \
    "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"" name "\",\"uid\":\"" uid                               \
    "\",\"blockOwnerDeletion\":" block "}"

/* ---- the graph ---- */

static void graph_links(void **state)
{
    (void)state;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    const char *dj = CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "true") "]");
    const char *oj = CM("o", ",\"uid\":\"O\"");
    kg_gc_graph g;
    kg_gc_graph_init(&g);
    bool changed;
    kg_gc_entry *d =
        kg_gc_graph_upsert(&g, "", "configmaps", "ns", "d", kg_json_parse(&a, dj, strlen(dj), &err), &changed);
    assert_true(changed);
    kg_gc_entry *o = kg_gc_graph_find(&g, "O");
    assert_non_null(o);
    assert_null(o->node); /* virtual: known only as an owner */
    assert_int_equal(o->ndeps, 1);
    assert_ptr_equal(o->deps[0], d);
    assert_true(kg_gc_node_owner(d->node, "O")->block_owner_deletion);
    kg_gc_graph_upsert(&g, "", "configmaps", "ns", "o", kg_json_parse(&a, oj, strlen(oj), &err), &changed);
    assert_non_null(o->node);
    /* the same owners again: no change */
    kg_gc_graph_upsert(&g, "", "configmaps", "ns", "d", kg_json_parse(&a, dj, strlen(dj), &err), &changed);
    assert_false(changed);
    /* the owner goes: its entry stays while a dependent names it */
    kg_gc_graph_remove(&g, "O");
    o = kg_gc_graph_find(&g, "O");
    assert_non_null(o);
    assert_null(o->node);
    assert_int_equal(o->ndeps, 1);
    /* the dependent drops its owner: the owner's entry goes */
    const char *dj2 = CM("d", ",\"uid\":\"D\"");
    kg_gc_graph_upsert(&g, "", "configmaps", "ns", "d", kg_json_parse(&a, dj2, strlen(dj2), &err), &changed);
    assert_true(changed);
    assert_null(kg_gc_graph_find(&g, "O"));
    kg_gc_graph_remove(&g, "D");
    assert_null(kg_gc_graph_find(&g, "D"));
    assert_int_equal(g.count, 0);
    kg_gc_graph_free(&g);
    kg_arena_free(&a);
}

/* ---- the collector's steps ---- */

static void background_after_owner_deleted(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    fobj *o = put("configmaps", "ns", "o", CM("o", ",\"uid\":\"O\""));
    fobj *d =
        put("configmaps", "ns", "d", CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "false") "]"));
    fobj *x = put("configmaps", "ns", "x", CM("x", ",\"uid\":\"X\""));
    observe(s, KG_CLIENT_ADDED, o);
    observe(s, KG_CLIENT_ADDED, d);
    observe(s, KG_CLIENT_ADDED, x);
    kg_gc_state_work(s, 100);
    assert_int_equal(deletes, 0); /* the owner is there */
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *last = kg_json_clone(&a, o->obj);
    drop(o);
    observe_gone(s, "configmaps", "ns", "o", last);
    assert_int_equal(kg_gc_state_work(s, 100), 1);
    assert_null(find("configmaps", "ns", "d"));
    assert_non_null(find("configmaps", "ns", "x"));
    kg_gc_state_free(s);
    kg_arena_free(&a);
}

static void dangling_and_scope(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    /* an owner never seen and absent: collected after a live check */
    fobj *d =
        put("configmaps", "ns", "d", CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("gone", "G", "false") "]"));
    /* an owner of a kind that is not served: kept */
    fobj *k = put("configmaps", "ns", "k",
                  CM("k", ",\"uid\":\"K\",\"ownerReferences\":[{\"apiVersion\":\"x.io/v1\",\"kind\":\"Thing\","
                          "\"name\":\"t\",\"uid\":\"T\"}]"));
    /* an owner present under the same name but another uid: dangling */
    put("configmaps", "ns", "same", CM("same", ",\"uid\":\"NEW\""));
    fobj *r =
        put("configmaps", "ns", "r", CM("r", ",\"uid\":\"R\",\"ownerReferences\":[" OWNER("same", "OLD", "false") "]"));
    /* a namespaced owner in another namespace: dangling for this dependent */
    fobj *other =
        put("configmaps", "other", "o2", "{\"metadata\":{\"name\":\"o2\",\"namespace\":\"other\",\"uid\":\"O2\"}}");
    fobj *n =
        put("configmaps", "ns", "n", CM("n", ",\"uid\":\"N\",\"ownerReferences\":[" OWNER("o2", "O2", "false") "]"));
    observe(s, KG_CLIENT_ADDED, other);
    observe(s, KG_CLIENT_ADDED, d);
    observe(s, KG_CLIENT_ADDED, k);
    observe(s, KG_CLIENT_ADDED, r);
    observe(s, KG_CLIENT_ADDED, n);
    kg_gc_state_work(s, 100);
    assert_null(find("configmaps", "ns", "d"));
    assert_non_null(find("configmaps", "ns", "k"));
    assert_null(find("configmaps", "ns", "r"));
    assert_null(find("configmaps", "ns", "n"));
    assert_non_null(find("configmaps", "other", "o2"));
    kg_gc_state_free(s);
}

static void live_owner_keeps_dependent(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    fobj *o = put("configmaps", "ns", "o", CM("o", ",\"uid\":\"O\""));
    fobj *d =
        put("configmaps", "ns", "d",
            CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "false") "," OWNER("g", "G", "false") "]"));
    observe(s, KG_CLIENT_ADDED, o);
    observe(s, KG_CLIENT_ADDED, d);
    kg_gc_state_work(s, 100);
    fobj *dd = find("configmaps", "ns", "d");
    assert_non_null(dd);
    const kg_json *refs = kg_json_path(dd->obj, "metadata.ownerReferences");
    assert_int_equal(refs->len, 1);
    assert_string_equal(kg_json_get_str(kg_json_at(refs, 0), "uid"), "O");
    kg_gc_state_free(s);
}

static void orphan_owner(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    fobj *o = put("configmaps", "ns", "o",
                  CM("o", ",\"uid\":\"O\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\",\"finalizers\":[\"orphan\"]"));
    fobj *d = put("configmaps", "ns", "d", CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "true") "]"));
    observe(s, KG_CLIENT_ADDED, d);
    observe(s, KG_CLIENT_MODIFIED, o);
    kg_gc_state_work(s, 100);
    fobj *dd = find("configmaps", "ns", "d");
    assert_non_null(dd);
    assert_null(kg_json_path(dd->obj, "metadata.ownerReferences"));
    assert_null(find("configmaps", "ns", "o")); /* its last finalizer removed: deleted */
    kg_gc_state_free(s);
}

static void foreground_owner(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    fobj *o = put("configmaps", "ns", "o",
                  CM("o", ",\"uid\":\"O\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\",\"finalizers\":["
                          "\"foregroundDeletion\",\"keep\"]"));
    fobj *d = put("configmaps", "ns", "d", CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "true") "]"));
    /* a dependent of the dependent: the dependent is deleted in the foreground too */
    fobj *dd =
        put("configmaps", "ns", "dd", CM("dd", ",\"uid\":\"DD\",\"ownerReferences\":[" OWNER("d", "D", "true") "]"));
    observe(s, KG_CLIENT_ADDED, d);
    observe(s, KG_CLIENT_ADDED, dd);
    observe(s, KG_CLIENT_MODIFIED, o);
    kg_gc_state_work(s, 100);
    d = find("configmaps", "ns", "d");
    assert_non_null(d); /* deleting, waiting for dd */
    assert_non_null(kg_json_path(d->obj, "metadata.deletionTimestamp"));
    assert_string_equal(kg_json_at(kg_json_path(d->obj, "metadata.finalizers"), 0)->u.s, "foregroundDeletion");
    o = find("configmaps", "ns", "o");
    assert_non_null(o); /* blocked by d */
    /* the watch reports d's new state: dd gets deleted, then d, then o's finalizer goes */
    observe(s, KG_CLIENT_MODIFIED, d);
    kg_gc_state_work(s, 100);
    assert_null(find("configmaps", "ns", "dd"));
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error perr;
    const char *dd_text = CM("dd", ",\"uid\":\"DD\",\"ownerReferences\":[" OWNER("d", "D", "true") "]");
    const char *d_text = CM("d", ",\"uid\":\"D\",\"ownerReferences\":[" OWNER("o", "O", "true") "]");
    observe_gone(s, "configmaps", "ns", "dd", kg_json_parse(&a, dd_text, strlen(dd_text), &perr));
    kg_gc_state_work(s, 100);
    assert_null(find("configmaps", "ns", "d")); /* its foregroundDeletion removed, no finalizer left */
    kg_json *dlast = kg_json_parse(&a, d_text, strlen(d_text), &perr);
    observe_gone(s, "configmaps", "ns", "d", dlast);
    kg_gc_state_work(s, 100);
    o = find("configmaps", "ns", "o");
    assert_non_null(o); /* another finalizer ("keep") still holds it */
    const kg_json *fins = kg_json_path(o->obj, "metadata.finalizers");
    assert_int_equal(fins->len, 1);
    assert_string_equal(kg_json_at(fins, 0)->u.s, "keep");
    kg_gc_state_free(s);
    kg_arena_free(&a);
}

#define POD(name, node, when)                                                                                          \
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ns\",\"uid\":\"P-" name                     \
    "\",\"deletionTimestamp\":\"" when "\",\"deletionGracePeriodSeconds\":30},\"spec\":{\"nodeName\":\"" node "\"}}"

static void terminating_pods(void **state)
{
    (void)state;
    kg_gc_state *s = kg_gc_state_new(&client);
    put("nodes", "", "real", "{\"metadata\":{\"name\":\"real\",\"uid\":\"NODE\"}}");
    fobj *gone = put("pods", "ns", "gone", POD("gone", "missing", "2026-01-01T00:00:30Z"));
    fobj *real = put("pods", "ns", "real", POD("real", "real", "2026-01-01T00:00:30Z"));
    fobj *later = put("pods", "ns", "later", POD("later", "missing", "2026-01-01T00:10:00Z"));
    observe(s, KG_CLIENT_MODIFIED, gone);
    observe(s, KG_CLIENT_MODIFIED, real);
    observe(s, KG_CLIENT_MODIFIED, later);
    long long t0 = 1767225600;                    /* 2026-01-01T00:00:00Z */
    assert_int_equal(kg_gc_state_reap(s, t0), 0); /* no grace period is over */
    assert_int_equal(kg_gc_state_reap(s, t0 + 31), 1);
    assert_null(find("pods", "ns", "gone"));     /* its node does not exist */
    assert_non_null(find("pods", "ns", "real")); /* a kubelet would confirm: waits for grace 0 */
    assert_non_null(find("pods", "ns", "later"));
    assert_int_equal(kg_gc_state_reap(s, t0 + 601), 1);
    assert_null(find("pods", "ns", "later"));
    kg_gc_state_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(graph_links, reset),
        cmocka_unit_test_setup(background_after_owner_deleted, reset),
        cmocka_unit_test_setup(dangling_and_scope, reset),
        cmocka_unit_test_setup(live_owner_keeps_dependent, reset),
        cmocka_unit_test_setup(orphan_owner, reset),
        cmocka_unit_test_setup(foreground_owner, reset),
        cmocka_unit_test_setup(terminating_pods, reset),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    reset(NULL);
    return rc;
}
