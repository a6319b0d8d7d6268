/* Server-side apply to the scale subresource (pipeline_internal.h w_scale_apply): `kubectl apply --server-side
 * --subresource=scale` with an autoscaling/v1 Scale, for Deployments, ReplicaSets, StatefulSets, ReplicationControllers
 * and custom resources with a scale subresource. As upstream (apiserver's managedfields ScaleHandler, the scale REST
 * storages' scaleUpdatedObjectInfo):
 *
 *   1. the parent's managedFields entries owning the replicas field (.spec.replicas, or the CRD's specReplicasPath)
 *      become entries of the Scale owning .spec.replicas (ToSubresource), the others are left out;
 *   2. the apply runs on the Scale view of the parent with those entries: conflicts, force and removal as for any
 *      apply (the applier's entry is identified by manager and subresource "scale");
 *   3. the entries come back to the parent (ToParent): an entry still owning the Scale's replicas keeps its parent
 *      entry, an entry that lost it loses the parent's replicas path, and a new Scale entry (the applier's) becomes a
 *      parent entry owning the replicas path, at the parent's apiVersion, subresource "scale";
 *   4. the replicas value is written to the parent as a main-resource update (admission of the parent kind) and the
 *      Scale of the parent as written is the answer. */
#include <string.h>

#include "api/dynamic.h"
#include "api/table.h"
#include "meta/smd/smd.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

#define SCALE_API_VERSION "autoscaling/v1"

/* The field set of one dotted path (".spec.replicas"). */
static kg_fs *path_set(kg_arena *a, const char *path)
{
    kg_fs *root = kg_fs_new(a), *n = root;
    const char *p = path[0] == '.' ? path + 1 : path;
    while (*p) {
        const char *e = strchr(p, '.');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        n = kg_fs_child(a, n, kg_arena_sprintf(a, "f:%.*s", (int)len, p), true);
        p += len + (e ? 1 : 0);
    }
    n->member = n != root;
    return root;
}

/* Whether every member path of `path` (one path) is a member of s. */
static bool has_path(const kg_fs *s, const kg_fs *path)
{
    const kg_fs *x = s, *p = path;
    while (x && p->n) {
        p = p->kids[0];
        x = kg_fs_child(NULL, (kg_fs *)x, p->key, false);
    }
    return x && x->member;
}

static bool same_identity(const kg_smd_manager *x, const kg_smd_manager *y)
{
    return x->apply == y->apply && !strcmp(x->manager, y->manager) && !strcmp(x->subresource, y->subresource) &&
           (x->apply || !strcmp(x->api_version, y->api_version));
}

static void push(kg_arena *a, kg_smd_managers *m, kg_smd_manager e)
{
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 8;
        m->v = kg_arena_realloc(a, m->v, m->cap * sizeof *m->v, nc * sizeof *m->v);
        m->cap = nc;
    }
    m->v[m->n++] = e;
}

static kg_status *bad_request(wctx *c, const char *msg)
{
    return kg_status_bad_request(c->a, msg);
}

/* The version, kind and name checks of an apply configuration for the Scale. */
static bool check_config(wctx *c, const kg_json *config)
{
    const char *cav = kg_json_get_str(config, "apiVersion"), *ck = kg_json_get_str(config, "kind");
    if (!cav || strcmp(cav, SCALE_API_VERSION))
        return wfail(c, bad_request(c, kg_arena_sprintf(c->a,
                                                        "Incorrect version specified in apply patch. Specified patch "
                                                        "version: %s, expected: " SCALE_API_VERSION,
                                                        cav ? cav : "")));
    if (!ck || strcmp(ck, "Scale"))
        return wfail(c, bad_request(c, "Object 'Kind' is missing or does not match Scale"));
    const kg_json *cmd = kg_json_get(config, "metadata");
    const kg_json *cmf = cmd ? kg_json_get(cmd, "managedFields") : NULL;
    if (cmf && cmf->type != KG_JSON_NULL)
        return wfail(c, bad_request(c, "metadata.managedFields must be nil"));
    const char *cname = cmd ? kg_json_get_str(cmd, "name") : NULL;
    if (!cname || strcmp(cname, c->name))
        return wfail(c, bad_request(c, kg_arena_sprintf(c->a,
                                                        "the name of the object (%s) does not match the name on the "
                                                        "URL (%s)",
                                                        cname ? cname : "", c->name)));
    return true;
}

/* ToSubresource: the parent entries owning the replicas path, as Scale entries owning .spec.replicas. */
static void to_scale(kg_arena *a, const kg_smd_managers *parent, const kg_fs *rpath, const kg_fs *scale_path,
                     kg_smd_managers *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < parent->n; i++) {
        const kg_smd_manager *e = &parent->v[i];
        if (!has_path(e->set, rpath))
            continue;
        kg_smd_manager s = *e;
        s.set = kg_fs_clone(a, scale_path);
        push(a, out, s);
    }
}

/* ToParent: the Scale entries after the apply, merged back into the parent's. */
static void to_parent(wctx *c, const kg_smd_managers *parent, const kg_smd_managers *scale, const kg_fs *rpath,
                      const kg_fs *scale_path, kg_smd_managers *out)
{
    kg_arena *a = c->a;
    memset(out, 0, sizeof *out);
    bool *used = kg_arena_alloc(a, (scale->n + 1) * sizeof *used);
    memset(used, 0, (scale->n + 1) * sizeof *used);
    for (size_t i = 0; i < parent->n; i++) {
        kg_smd_manager e = parent->v[i];
        if (!has_path(e.set, rpath)) {
            push(a, out, e);
            continue;
        }
        long match = -1;
        for (size_t k = 0; k < scale->n && match < 0; k++)
            if (!used[k] && !kg_fs_empty(scale->v[k].set) && same_identity(&e, &scale->v[k]))
                match = (long)k;
        if (match >= 0) { /* still owns the replicas: the entry stays as it is */
            used[match] = true;
            push(a, out, e);
            continue;
        }
        e.set = kg_fs_difference(a, e.set, rpath); /* the replicas were taken from it */
        if (!kg_fs_empty(e.set))
            push(a, out, e);
    }
    for (size_t k = 0; k < scale->n; k++) {
        const kg_smd_manager *s = &scale->v[k];
        if (used[k] || !has_path(s->set, scale_path))
            continue;
        kg_smd_manager e = *s;
        e.api_version = c->r->api_version;
        e.set = kg_fs_clone(a, rpath);
        push(a, out, e);
    }
}

bool w_scale_apply(wctx *c, const kg_json *config, bool force)
{
    kg_arena *a = c->a;
    if (!check_config(c, config))
        return false;
    const kg_dynamic_info *info = c->r->ext ? kg_dynamic_info_of(c->r) : NULL;
    const char *replicas = info && info->spec_replicas_path ? info->spec_replicas_path : ".spec.replicas";
    const kg_fs *rpath = path_set(a, replicas), *scale_path = path_set(a, ".spec.replicas");
    const char *pre = kg_json_path_str(config, "metadata.resourceVersion");
    kg_smd_op op;
    memset(&op, 0, sizeof op);
    op.root = kg_smd_root(NULL); /* the Scale: plain fields, deduced */
    op.manager = c->rq->field_manager;
    op.api_version = SCALE_API_VERSION;
    op.subresource = "scale";
    op.now = kg_obj_now_rfc3339(a);
    op.ignored = kg_smd_ignored_fields(a, true); /* the Scale's status is not the applier's */
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!w_load(c, &cur, &old))
            return false;
        if (info && info->spec_replicas_path && !kg_dynamic_json_path(old, info->spec_replicas_path))
            return wfail(c, kg_status_internal(a, kg_arena_sprintf(a, "the spec replicas field \"%s\" does not exist",
                                                                   info->spec_replicas_path)));
        kg_json *scale = kg_api_scale_from(a, c->r, old);
        kg_smd_managers parent = {0}, sm;
        const char *e = NULL;
        if (!kg_smd_managers_decode(a, kg_json_path(old, "metadata.managedFields"), &parent, &e))
            memset(&parent, 0, sizeof parent);
        to_scale(a, &parent, rpath, scale_path, &sm);
        if (!sm.n) { /* nothing tracked for the Scale: its fields are credited to "before-first-apply" */
            kg_smd_op bfa = op;
            bfa.manager = "before-first-apply";
            if (!kg_smd_update(a, &bfa, NULL, scale, &sm, &e))
                return wfail(c, kg_status_internal(a, e));
        }
        kg_smd_apply_result res;
        if (!kg_smd_apply(a, &op, scale, config, force, &sm, &res, &e))
            return wfail(c, kg_status_internal(a, e));
        if (res.nconflicts) {
            kg_status *st =
                kg_status_new(a, 409, KG_REASON_CONFLICT, kg_smd_conflict_message(a, res.conflicts, res.nconflicts));
            for (size_t i = 0; i < res.nconflicts; i++)
                kg_status_add_cause(
                    a, st, "FieldManagerConflict",
                    kg_arena_sprintf(a, "conflict with %s", kg_smd_manager_describe(a, res.conflicts[i].owner)),
                    res.conflicts[i].path);
            return wfail(c, st);
        }
        kg_json *rep = kg_json_path(res.object, "spec.replicas");
        if (!rep || rep->type != KG_JSON_INT || rep->u.i < 0) {
            kg_field_errors errs = KG_FIELD_ERRORS_INIT;
            if (rep && rep->type == KG_JSON_INT)
                kg_field_invalid_int(a, &errs, "spec.replicas", rep->u.i, "must be greater than or equal to 0");
            else
                kg_field_required(a, &errs, "spec.replicas", NULL);
            return wfail(c, kg_status_invalid(a, KG_GK("autoscaling", "Scale"), c->name, &errs));
        }
        kg_smd_managers back;
        to_parent(c, &parent, &sm, rpath, scale_path, &back);
        kg_json *neu = kg_json_clone(a, old);
        kg_dynamic_set_path(a, neu, replicas, kg_json_new_int(a, rep->u.i));
        kg_json *mf = kg_smd_managers_encode(a, &back);
        kg_json *md = w_metadata(a, neu);
        if (mf->len)
            kg_json_set(a, md, "managedFields", mf);
        else
            kg_json_del(md, "managedFields");
        c->managed_done = true;
        const kg_subresource *sub = c->sub;
        c->sub = NULL;
        c->out->status = NULL;
        upd_result r = w_finish_update(c, &cur, old, neu, pre, 200);
        c->sub = sub;
        if (r == UPD_RETRY)
            continue;
        if (c->out->status)
            return false;
        kg_json *written = c->out->object;
        if (!written && c->out->bytes) {
            kg_error err;
            written = kg_obj_decode(a, c->out->bytes, c->out->len, c->out->rev, &err);
        }
        c->out->bytes = NULL;
        c->out->len = 0;
        return wdone_obj(c, 200, kg_api_scale_from(a, c->r, written ? written : neu));
    }
    return wfail(c, kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}
