/* Deletes (pipeline.h): DeleteOptions, preconditions, admission of DELETE, graceful deletion (finalizers, and
 * namespaces, which the namespace controller finishes), deletecollection, and the namespace controller's
 * delete-everything step. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meta/object.h"
#include "api/dynamic.h"
#include "api/protobuf.h"
#include "api/versions.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

bool kg_delete_options_build(kg_arena *a, const char *body, size_t body_len, const char *grace_q,
                             const char *propagation_q, bool dry_run_q, kg_json **out, kg_status **st)
{
    kg_json *o = NULL;
    if (body && body_len >= 4 && !memcmp(body, "k8s\0", 4)) {
        /* client-go typed clients send DeleteOptions as protobuf (k8s\0 + runtime.Unknown) */
        kg_error err;
        o = kg_protobuf_decode(a, body, body_len, &err);
        if (!o || o->type != KG_JSON_OBJECT) {
            *st = kg_status_bad_request(a, kg_arena_sprintf(a, "error decoding DeleteOptions: %s", err.msg));
            return false;
        }
    } else if (body && body_len) {
        kg_error err;
        o = kg_json_parse(a, body, body_len, &err);
        if (!o || o->type != KG_JSON_OBJECT) {
            *st = kg_status_bad_request(
                a, kg_arena_sprintf(a, "error decoding DeleteOptions: %s", o ? "not an object" : err.msg));
            return false;
        }
    } else {
        o = kg_json_new_object(a);
    }
    kg_json_set(a, o, "kind", w_sref(a, "DeleteOptions"));
    kg_json_set(a, o, "apiVersion", w_sref(a, "meta.k8s.io/v1"));
    if (grace_q && grace_q[0])
        kg_json_set(a, o, "gracePeriodSeconds", kg_json_new_int(a, strtoll(grace_q, NULL, 10)));
    if (propagation_q && propagation_q[0])
        kg_json_set(a, o, "propagationPolicy", w_sref(a, propagation_q));
    if (dry_run_q && !kg_json_get(o, "dryRun")) {
        kg_json *dr = kg_json_new_array(a);
        kg_json_array_append(a, dr, w_sref(a, "All"));
        kg_json_set(a, o, "dryRun", dr);
    }
    const char *prop = kg_json_get_str(o, "propagationPolicy");
    const kg_json *orphan = kg_json_get(o, "orphanDependents");
    if (prop && orphan && orphan->type != KG_JSON_NULL) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        kg_field_invalid(a, &errs, "propagationPolicy", prop,
                         "orphanDependents and deletionPropagation cannot be both set");
        *st = kg_status_invalid(a, KG_GK("meta.k8s.io", "DeleteOptions"), "", &errs);
        return false;
    }
    if (prop && strcmp(prop, "Orphan") && strcmp(prop, "Background") && strcmp(prop, "Foreground")) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        static const char *const valid[] = {"Foreground", "Background", "Orphan", "nil"};
        kg_field_not_supported(a, &errs, "propagationPolicy", prop, valid, 4);
        *st = kg_status_invalid(a, KG_GK("meta.k8s.io", "DeleteOptions"), "", &errs);
        return false;
    }
    *out = o;
    return true;
}

static bool has_finalizer(const kg_json *fins, const char *f)
{
    for (size_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++)
        if (kg_json_at(fins, i)->type == KG_JSON_STRING && !strcmp(kg_json_at(fins, i)->u.s, f))
            return true;
    return false;
}

/* Resources whose objects are orphaned when a DELETE names no policy (upstream's strategies'
 * DefaultGarbageCollectionPolicy on the v1 paths): ReplicationControllers and Jobs. */
static bool orphans_by_default(const kg_resource *r)
{
    return (!*r->group && !strcmp(r->plural, "replicationcontrollers")) ||
           (!strcmp(r->group, "batch") && !strcmp(r->plural, "jobs"));
}

/* upstream deletionFinalizersForGarbageCollection: the object's finalizers with `orphan` and `foregroundDeletion`
 * as the options (orphanDependents, then propagationPolicy), the finalizers already there, then the resource's
 * default ask. NULL when they do not change. */
static kg_json *gc_finalizers(kg_arena *a, const kg_resource *r, const kg_json *options, const kg_json *fins)
{
    const kg_json *od = options ? kg_json_get(options, "orphanDependents") : NULL;
    const char *prop = options ? kg_json_get_str(options, "propagationPolicy") : NULL;
    bool orphan, foreground;
    if (od && od->type == KG_JSON_BOOL) {
        orphan = od->b;
        foreground = false;
    } else if (prop) {
        orphan = !strcmp(prop, "Orphan");
        foreground = !strcmp(prop, "Foreground");
    } else {
        orphan = has_finalizer(fins, "orphan") || (!has_finalizer(fins, "foregroundDeletion") && orphans_by_default(r));
        foreground = has_finalizer(fins, "foregroundDeletion");
    }
    if (orphan == has_finalizer(fins, "orphan") && foreground == has_finalizer(fins, "foregroundDeletion"))
        return NULL;
    kg_json *out = kg_json_new_array(a);
    for (size_t i = 0; fins && fins->type == KG_JSON_ARRAY && i < fins->len; i++) {
        const kg_json *f = kg_json_at(fins, i);
        if (f->type == KG_JSON_STRING && (!strcmp(f->u.s, "orphan") || !strcmp(f->u.s, "foregroundDeletion")))
            continue;
        kg_json_array_append(a, out, kg_json_clone(a, f));
    }
    if (orphan)
        kg_json_array_append(a, out, kg_json_new_str(a, "orphan"));
    if (foreground)
        kg_json_array_append(a, out, kg_json_new_str(a, "foregroundDeletion"));
    return out;
}

/* Graceful pod deletion (upstream pod strategy CheckGracefulDelete): the grace period from the options, else
 * spec.terminationGracePeriodSeconds (default 30); 0 for a pod never scheduled or already finished; a negative value
 * becomes 1. */
static int64_t pod_grace_period(const kg_json *pod, const kg_json *options)
{
    const kg_json *g = options ? kg_json_get(options, "gracePeriodSeconds") : NULL;
    int64_t grace = 30;
    if (g && g->type == KG_JSON_INT) {
        grace = g->u.i;
    } else {
        const kg_json *t = kg_json_path(pod, "spec.terminationGracePeriodSeconds");
        if (t && t->type == KG_JSON_INT)
            grace = t->u.i;
    }
    const char *node = kg_json_path_str(pod, "spec.nodeName");
    const char *phase = kg_json_path_str(pod, "status.phase");
    if (!node || !*node || (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))))
        return 0;
    return grace < 0 ? 1 : grace;
}

static const char *rfc3339_in(kg_arena *a, int64_t seconds)
{
    char buf[32];
    return kg_arena_strdup(a, kg_time_format(time(NULL) + (time_t)seconds, buf));
}

typedef enum { MARK_DONE, MARK_FAILED, MARK_RETRY } mark_result;

/* Store neu, the object marked for deletion, over cur (dry run: only answer it); MARK_RETRY on a conflict. */
static mark_result store_marked(wctx *c, const char *key, const kg_store_kv *cur, kg_json *neu, bool dry_run)
{
    if (dry_run)
        return wdone_obj(c, 200, neu) ? MARK_DONE : MARK_FAILED;
    kg_error err;
    size_t len;
    const char *bytes = kg_obj_encode(c->a, kg_version_to_storage(c->a, c->r, neu), &len);
    int64_t rev;
    if (!kg_store_update(c->p->store, key, bytes, len, cur->mod_revision, &rev, &err)) {
        if (err.code == KG_ECONFLICT)
            return MARK_RETRY;
        wfail(c, kg_status_from_error(c->a, &err));
        return MARK_FAILED;
    }
    kg_json *stored = kg_version_from_storage(c->a, c->r, kg_obj_decode(c->a, bytes, len, rev, &err));
    return wdone_obj(c, 200, stored) ? MARK_DONE : MARK_FAILED;
}

/* dryRun in the DeleteOptions body counts like the query parameter */
static bool options_dry_run(const kg_json *o)
{
    kg_json *dr = o ? kg_json_get(o, "dryRun") : NULL;
    return dr && dr->type == KG_JSON_ARRAY && dr->len;
}

/* Delete c's object. Success: c->out holds the answer (the object, or a success Status). */
static bool delete_one(wctx *c, bool dry_run)
{
    kg_arena *a = c->a;
    const kg_json *o = c->options;
    const char *uid_pre = o ? kg_json_path_str(o, "preconditions.uid") : NULL;
    const char *rv_pre = o ? kg_json_path_str(o, "preconditions.resourceVersion") : NULL;
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_error err;
        const char *key = kg_resource_key(a, c->r, c->ns, c->name);
        if (!kg_store_get(c->p->store, key, a, &cur, &err))
            return wfail_err(c, &err);
        kg_json *old = kg_obj_decode(a, cur.value, cur.value_len, cur.mod_revision, &err);
        if (!old)
            return wfail(c, kg_status_internal(a, "stored object is corrupt"));
        old = kg_version_from_storage(a, c->r, old); /* admission and the answer see the requested version */
        kg_json *omd = w_metadata(a, old);
        const char *uid = kg_json_get_str(omd, "uid");
        if (uid_pre && (!uid || strcmp(uid_pre, uid)))
            return wfail(c, kg_status_conflict(a, c->gr, c->name,
                                               kg_arena_sprintf(a,
                                                                "Precondition failed: UID in precondition: %s, UID in "
                                                                "object meta: %s",
                                                                uid_pre, uid ? uid : "")));
        const char *orv = kg_json_get_str(omd, "resourceVersion");
        if (rv_pre && strcmp(rv_pre, orv))
            return wfail(c, kg_status_conflict(a, c->gr, c->name,
                                               kg_arena_sprintf(a,
                                                                "Precondition failed: ResourceVersion in precondition: "
                                                                "%s, ResourceVersion in object meta: %s",
                                                                rv_pre, orv)));
        kg_admission_attributes at;
        w_attrs(c, &at, KG_ADMISSION_DELETE, c->r->group, c->r->version, c->r->kind, NULL, old);
        at.dry_run = dry_run;
        kg_status *st = w_admit(c, &at);
        if (!st)
            st = w_validate(c, &at);
        if (st)
            return wfail(c, st);
        kg_json *fins = kg_json_get(omd, "finalizers");
        /* once deleting, DeleteOptions no longer change the finalizers */
        kg_json *gc_fins = c->p->garbage_collection && !c->strat->is_namespace && !kg_json_get(omd, "deletionTimestamp")
                               ? gc_finalizers(a, c->r, o, fins)
                               : NULL;
        if (gc_fins)
            fins = gc_fins;
        bool has_fins = fins && fins->type == KG_JSON_ARRAY && fins->len;
        bool is_pod = !*c->r->group && !strcmp(c->r->plural, "pods") && !c->sub;
        int64_t grace = is_pod ? pod_grace_period(old, o) : 0;
        const kg_json *deleting = kg_json_get(omd, "deletionTimestamp");
        if (is_pod && deleting) {
            /* a later DELETE may only shorten the grace period; 0 deletes (once no finalizer is left) */
            const kg_json *cur_grace = kg_json_get(omd, "deletionGracePeriodSeconds");
            int64_t had = cur_grace && cur_grace->type == KG_JSON_INT ? cur_grace->u.i : 0;
            if (grace >= had || (grace == 0 && has_fins))
                return wdone_obj(c, 200, old);
            if (grace > 0) {
                kg_json *neu = kg_json_clone(a, old);
                kg_json *nmd = w_metadata(a, neu);
                time_t was = 0, want = time(NULL) + (time_t)grace;
                if (!(deleting->type == KG_JSON_STRING && kg_time_parse(deleting->u.s, &was) && was <= want))
                    kg_json_set(a, nmd, "deletionTimestamp", kg_json_new_str(a, rfc3339_in(a, grace)));
                kg_json_set(a, nmd, "deletionGracePeriodSeconds", kg_json_new_int(a, grace));
                mark_result m = store_marked(c, key, &cur, neu, dry_run);
                if (m == MARK_RETRY)
                    continue;
                return m == MARK_DONE;
            }
            /* grace 0 and no finalizer: removed below */
        } else if (c->strat->is_namespace || has_fins || grace > 0) {
            /* graceful: mark for deletion; finalizers, the namespace controller or the grace period finish it */
            if (deleting)
                return wdone_obj(c, 200, old);
            kg_json *neu = kg_json_clone(a, old);
            kg_json *nmd = w_metadata(a, neu);
            if (gc_fins)
                kg_json_set(a, nmd, "finalizers", gc_fins);
            kg_json_set(a, nmd, "deletionTimestamp", kg_json_new_str(a, rfc3339_in(a, grace)));
            kg_json_set(a, nmd, "deletionGracePeriodSeconds", kg_json_new_int(a, grace));
            const kg_json *gen = kg_json_get(nmd, "generation");
            if (grace > 0 && gen && gen->type == KG_JSON_INT)
                kg_json_set(a, nmd, "generation", kg_json_new_int(a, gen->u.i + 1));
            if (c->strat->is_namespace)
                kg_json_set(a, kg_json_get_or_add_object(a, neu, "status"), "phase", w_sref(a, "Terminating"));
            mark_result m = store_marked(c, key, &cur, neu, dry_run);
            if (m == MARK_RETRY)
                continue;
            return m == MARK_DONE;
        }
        if (dry_run)
            return wdone_obj(c, 200, old);
        int64_t rev;
        kg_store_kv deleted;
        if (!kg_store_delete(c->p->store, key, cur.mod_revision, a, &deleted, &rev, &err)) {
            if (err.code == KG_ECONFLICT)
                continue;
            return wfail_err(c, &err);
        }
        if (c->strat->delete_returns_object)
            return wdone_obj(c, 200, kg_version_from_storage(a, c->r, kg_obj_decode(a, cur.value, cur.value_len, rev, &err)));
        c->out->object_is_status = true;
        return wdone_obj(c, 200, kg_status_to_json(a, kg_status_success_delete(a, c->gr, c->name, uid ? uid : "")));
    }
    return wfail(c, kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}

bool kg_pipeline_delete(const kg_pipeline *p, const kg_write_request *rq, const kg_json *options, kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    c.options = options;
    return delete_one(&c, rq->dry_run || options_dry_run(options));
}

bool kg_pipeline_delete_collection(const kg_pipeline *p, const kg_write_request *rq, const kg_json *options,
                                   bool (*match)(void *ud, const kg_json *obj), void *match_ud, kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    c.options = options;
    bool dry_run = rq->dry_run || options_dry_run(options);
    kg_arena *a = c.a;
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    kg_error err;
    if (!kg_store_list(p->store, kg_resource_list_prefix(a, c.r, c.ns), &lo, a, &res, &err))
        return wfail_err(&c, &err);
    kg_json *items = kg_json_new_array(a);
    for (size_t i = 0; i < res.n; i++) {
        kg_json *obj = kg_obj_decode(a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &err);
        obj = kg_version_from_storage(a, c.r, obj); /* selectors and the answer: the requested version */
        if (!obj || (match && !match(match_ud, obj)))
            continue;
        kg_obj_set_api_version(a, obj, kg_dynamic_read_as(c.r)); /* custom resources: the requested version */
        const char *nm = kg_json_path_str(obj, "metadata.name");
        const char *ns = kg_json_path_str(obj, "metadata.namespace");
        wctx one = c;
        kg_write_result r1 = {0};
        one.out = &r1;
        one.name = nm ? nm : "";
        one.ns = ns ? ns : "";
        if (!delete_one(&one, dry_run)) {
            if (r1.status && kg_status_is(r1.status, KG_REASON_NOT_FOUND))
                continue;
            return wfail(&c, r1.status);
        }
        kg_json_array_append(a, items, obj);
    }
    kg_json *list = kg_json_new_object(a);
    kg_json_set(a, list, "kind", w_sref(a, c.r->list_kind));
    kg_json_set(a, list, "apiVersion", w_sref(a, c.r->api_version));
    kg_json *md = kg_json_new_object(a);
    kg_json_set(a, md, "resourceVersion",
                kg_json_new_str(a, kg_arena_sprintf(a, "%lld", (long long)kg_store_current_revision(p->store))));
    kg_json_set(a, list, "metadata", md);
    kg_json_set(a, list, "items", items);
    return wdone_obj(&c, 200, list);
}

bool kg_pipeline_delete_namespace_contents(kg_store *store, const char *ns, size_t *remaining, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    *remaining = 0;
    bool ok = true;
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        if (!r->namespaced || r->conv) /* a resource stored as another one: deleted through that one */
            continue;
        kg_store_list_opts lo = {.keys_only = true};
        kg_store_list_result res;
        if (!kg_store_list(store, kg_resource_list_prefix(&a, r, ns), &lo, &a, &res, err)) {
            ok = false;
            break;
        }
        for (size_t k = 0; k < res.n; k++) {
            kg_store_kv cur;
            kg_error e2;
            if (!kg_store_get(store, res.items[k].key, &a, &cur, &e2))
                continue;
            kg_json *obj = kg_json_parse(&a, cur.value, cur.value_len, &e2);
            kg_json *fins = obj ? kg_json_path(obj, "metadata.finalizers") : NULL;
            if (fins && fins->type == KG_JSON_ARRAY && fins->len) {
                /* objects with finalizers get a deletionTimestamp and are waited for */
                if (!kg_json_path(obj, "metadata.deletionTimestamp")) {
                    kg_json_set(&a, kg_json_get_or_add_object(&a, obj, "metadata"), "deletionTimestamp",
                                kg_json_new_str(&a, kg_obj_now_rfc3339(&a)));
                    size_t len;
                    const char *bytes = kg_obj_encode(&a, obj, &len);
                    kg_store_update(store, res.items[k].key, bytes, len, cur.mod_revision, NULL, &e2);
                }
                (*remaining)++;
                continue;
            }
            if (!kg_store_delete(store, res.items[k].key, cur.mod_revision, &a, NULL, NULL, &e2) &&
                e2.code != KG_ENOTFOUND)
                (*remaining)++;
        }
    }
    kg_arena_free(&a);
    return ok;
}
