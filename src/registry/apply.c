/* Server-side apply and managedFields in the write pipeline (pipeline.h kg_pipeline_apply, pipeline_internal.h
 * w_managed_fields), over the structured merge engine (meta/smd/smd.h) with the built-in kinds' schemas
 * (api/smd_schema.h). Upstream: apiserver handlers/patch.go (applyPatcher), apimachinery managedfields. */
#include <string.h>

#include "api/smd_schema.h"
#include "apiext/crd.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

/* managerOrUserAgent: the fieldManager, else the User-Agent up to its first '/', printable characters only, at
 * most 128 bytes. */
static const char *manager_name(wctx *c)
{
    if (c->rq->field_manager && c->rq->field_manager[0])
        return c->rq->field_manager;
    const char *ua = c->rq->user_agent ? c->rq->user_agent : "";
    char buf[129];
    size_t n = 0;
    for (const char *p = ua; *p && *p != '/' && n < 128; p++)
        if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
            buf[n++] = *p;
    return kg_arena_strndup(c->a, buf, n);
}

static void op_init(wctx *c, kg_smd_op *op)
{
    memset(op, 0, sizeof *op);
    /* custom resources merge by their CRD's schema for the version written (compiled with the CRD) */
    op->schema = kg_cr_smd_schema(c->r, &op->root);
    if (!op->schema) {
        op->schema = kg_api_smd_schema();
        op->root = kg_api_smd_root(c->r);
    }
    op->manager = manager_name(c);
    op->api_version = c->r->api_version;
    op->subresource = c->rq->sub ? c->rq->sub->name : ""; /* c->sub is cleared while /scale writes the parent */
    op->now = kg_obj_now_rfc3339(c->a);
    /* the main resource does not own .status where the status subresource does (upstream's reset fields) */
    op->ignored = kg_smd_ignored_fields(c->a, !c->sub && c->r->has_status);
}

/* managedFields: [] or [{}] asks to clear the list (isResetManagedFields). */
static bool is_reset(const kg_json *mf)
{
    return mf && mf->type == KG_JSON_ARRAY &&
           (!mf->len || (mf->len == 1 && mf->u.items[0]->type == KG_JSON_OBJECT && !mf->u.items[0]->len));
}

kg_json *w_managed_fields(wctx *c, const kg_json *old, kg_json *neu)
{
    kg_json *md = w_metadata(c->a, neu);
    if (c->managed_done)
        return kg_json_get(md, "managedFields");
    kg_json *given = kg_json_get(md, "managedFields");
    if (is_reset(given)) {
        kg_json_del(md, "managedFields");
        return NULL;
    }
    kg_smd_managers m;
    const char *err;
    bool from_new = given && given->type == KG_JSON_ARRAY && !c->sub && kg_smd_managers_decode(c->a, given, &m, &err);
    if (!from_new || !m.n) {
        const kg_json *live = old ? kg_json_path(old, "metadata.managedFields") : NULL;
        if (old && (!live || live->type != KG_JSON_ARRAY || !live->len)) {
            kg_json_del(md, "managedFields"); /* untracked (cleared earlier): stays untracked */
            return NULL;
        }
        if (!kg_smd_managers_decode(c->a, live, &m, &err)) {
            kg_json_set(c->a, md, "managedFields", (kg_json *)live); /* a broken live list is kept as it is */
            return (kg_json *)live;
        }
    }
    kg_smd_op op;
    op_init(c, &op);
    if (!kg_smd_update(c->a, &op, old, neu, &m, &err)) {
        kg_json_del(md, "managedFields"); /* UpdateNoErrors: no garbage in managedFields */
        return NULL;
    }
    kg_json *mf = kg_smd_managers_encode(c->a, &m);
    if (mf->len)
        kg_json_set(c->a, md, "managedFields", mf);
    else
        kg_json_del(md, "managedFields");
    return mf->len ? mf : NULL;
}

void w_restore_managed_fields(wctx *c, kg_json *neu, kg_json *mf)
{
    kg_json *md = w_metadata(c->a, neu);
    if (mf)
        kg_json_set(c->a, md, "managedFields", mf);
    else
        kg_json_del(md, "managedFields");
}

#define LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"

/* The last-applied configuration client-side apply left on live, when it is of the endpoint's apiVersion. */
static const kg_json *last_applied(wctx *c, const kg_json *live)
{
    const kg_json *ann = live ? kg_json_path(live, "metadata.annotations") : NULL;
    const char *text = ann && ann->type == KG_JSON_OBJECT ? kg_json_get_str(ann, LAST_APPLIED) : NULL;
    if (!text)
        return NULL;
    kg_error err;
    kg_json *v = kg_json_parse(c->a, text, strlen(text), &err);
    const char *av = v && v->type == KG_JSON_OBJECT ? kg_json_get_str(v, "apiVersion") : NULL;
    return av && !strcmp(av, c->r->api_version) ? v : NULL;
}

/* lastAppliedManager: for manager "kubectl", paths client-side apply set whose live value is still the
 * last-applied one are taken over without a conflict (kubectl's migration from client-side apply). */
static const kg_fs *forgiven_paths(wctx *c, const kg_smd_op *op, const kg_json *live)
{
    if (strcmp(op->manager, "kubectl"))
        return NULL;
    const kg_json *la = last_applied(c, live);
    kg_fs *set;
    kg_smd_comparison cmp;
    const char *err;
    if (!la || !kg_smd_fieldset(c->a, op->schema, op->root, la, &set, &err) ||
        !kg_smd_compare(c->a, op->schema, op->root, la, live, &cmp, &err))
        return NULL;
    return kg_fs_difference(c->a, set, cmp.modified);
}

/* lastAppliedUpdater: an existing last-applied annotation is rewritten from the applied configuration (dropped
 * when that would exceed the 256 KiB annotation limit). */
static void update_last_applied(wctx *c, kg_json *obj, const kg_json *config)
{
    kg_json *ann = kg_json_path(obj, "metadata.annotations");
    if (!ann || ann->type != KG_JSON_OBJECT || !kg_json_get(ann, LAST_APPLIED))
        return;
    kg_json *cfg = kg_json_clone(c->a, config);
    kg_json *cann = kg_json_path(cfg, "metadata.annotations");
    if (cann && cann->type == KG_JSON_OBJECT)
        kg_json_del(cann, LAST_APPLIED);
    size_t len;
    char *text = kg_json_to_string(c->a, cfg, 0, &len);
    if (len > 256 * 1024)
        kg_json_del(ann, LAST_APPLIED);
    else
        kg_json_set(c->a, ann, LAST_APPLIED, kg_json_new_strn(c->a, text, len));
}

static kg_status *invalid_options(wctx *c, const char *field, const char *detail)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_field_required(c->a, &errs, field, detail);
    return kg_status_invalid(c->a, KG_GK("meta.k8s.io", "PatchOptions"), "", &errs);
}

static kg_status *conflict_status(wctx *c, const kg_smd_apply_result *res)
{
    kg_status *st =
        kg_status_new(c->a, 409, KG_REASON_CONFLICT, kg_smd_conflict_message(c->a, res->conflicts, res->nconflicts));
    for (size_t i = 0; i < res->nconflicts; i++)
        kg_status_add_cause(
            c->a, st, "FieldManagerConflict",
            kg_arena_sprintf(c->a, "conflict with %s", kg_smd_manager_describe(c->a, res->conflicts[i].owner)),
            res->conflicts[i].path);
    return st;
}

bool kg_pipeline_apply(const kg_pipeline *p, const kg_write_request *rq, const kg_json *config, bool force,
                       kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    if (!rq->field_manager || !rq->field_manager[0])
        return wfail(&c, invalid_options(&c, "fieldManager", "is required for apply patch"));
    if (strlen(rq->field_manager) > 128) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        kg_field_too_long(c.a, &errs, "fieldManager", 128);
        return wfail(&c, kg_status_invalid(c.a, KG_GK("meta.k8s.io", "PatchOptions"), "", &errs));
    }
    if (c.sub && c.sub->kind != KG_SUB_STATUS && c.sub->kind != KG_SUB_SCALE)
        return wfail(&c, kg_status_method_not_supported(c.a, c.gr, "apply"));
    if (!config || config->type != KG_JSON_OBJECT)
        return wfail(&c, kg_status_bad_request(c.a, "error decoding YAML: the apply configuration is not an object"));
    if (c.sub && c.sub->kind == KG_SUB_SCALE)
        return w_scale_apply(&c, config, force);
    const char *cav = kg_json_get_str(config, "apiVersion"), *ck = kg_json_get_str(config, "kind");
    if (!cav || strcmp(cav, c.r->api_version))
        return wfail(&c, kg_status_bad_request(
                             c.a, kg_arena_sprintf(c.a,
                                                   "Incorrect version specified in apply patch. Specified patch "
                                                   "version: %s, expected: %s",
                                                   cav ? cav : "", c.r->api_version)));
    if (!ck || strcmp(ck, c.r->kind))
        return wfail(&c, kg_status_bad_request(
                             c.a, kg_arena_sprintf(c.a, "Object 'Kind' is missing or does not match %s", c.r->kind)));
    const kg_json *cmd = kg_json_get(config, "metadata");
    const kg_json *cmf = cmd ? kg_json_get(cmd, "managedFields") : NULL;
    if (cmf && cmf->type != KG_JSON_NULL)
        return wfail(&c, kg_status_bad_request(c.a, "metadata.managedFields must be nil"));
    const char *cname = cmd ? kg_json_get_str(cmd, "name") : NULL;
    if (!cname || strcmp(cname, c.name))
        return wfail(&c, kg_status_bad_request(c.a, kg_arena_sprintf(c.a,
                                                                     "the name of the object (%s) does not match the "
                                                                     "name on the URL (%s)",
                                                                     cname ? cname : "", c.name)));
    const char *pre = cmd ? kg_json_get_str(cmd, "resourceVersion") : NULL;
    kg_smd_op op;
    op_init(&c, &op);
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old = NULL;
        kg_error err;
        bool exists = kg_store_get(p->store, kg_resource_key(c.a, c.r, c.ns, c.name), c.a, &cur, &err);
        if (!exists && err.code != KG_ENOTFOUND)
            return wfail_err(&c, &err);
        if (exists && !w_load(&c, &cur, &old))
            return false;
        if (!exists && c.sub)
            return wfail(&c, kg_status_not_found(c.a, c.gr, c.name));
        kg_smd_managers m = {0};
        const char *e = NULL;
        if (exists && !kg_smd_managers_decode(c.a, kg_json_path(old, "metadata.managedFields"), &m, &e))
            memset(&m, 0, sizeof m);
        if (exists && !m.n) { /* the existing fields are credited to "before-first-apply" */
            kg_smd_op bfa = op;
            bfa.manager = "before-first-apply";
            bfa.subresource = "";
            if (!kg_smd_update(c.a, &bfa, NULL, old, &m, &e))
                return wfail(&c, kg_status_internal(c.a, e));
        }
        kg_smd_apply_result res;
        op.forgiven = force ? NULL : forgiven_paths(&c, &op, old);
        if (!kg_smd_apply(c.a, &op, old, config, force, &m, &res, &e))
            return wfail(&c, kg_status_internal(
                                 c.a, kg_arena_sprintf(
                                          c.a, "failed to create typed patch object (%s%s%s; %s, Kind=%s): %s", c.ns,
                                          c.ns[0] ? "/" : "", c.name,
                                          c.r->group[0] ? c.r->api_version : kg_arena_sprintf(c.a, "/%s", c.r->version),
                                          c.r->kind, e)));
        if (res.nconflicts)
            return wfail(&c, conflict_status(&c, &res));
        kg_json *neu = res.object;
        if (!strcmp(op.manager, "kubectl"))
            update_last_applied(&c, neu, config);
        kg_json *md = w_metadata(c.a, neu);
        kg_json *mf = kg_smd_managers_encode(c.a, &m);
        if (mf->len)
            kg_json_set(c.a, md, "managedFields", mf);
        else
            kg_json_del(md, "managedFields");
        c.managed_done = true;
        if (!exists) {
            if (cmd && kg_json_get_str(cmd, "uid"))
                return wfail(&c, kg_status_conflict(c.a, c.gr, c.name,
                                                    kg_arena_sprintf(c.a,
                                                                     "uid mismatch: the provided object specified uid "
                                                                     "%s, and no existing object was found",
                                                                     kg_json_get_str(cmd, "uid"))));
            kg_json_del(md, "resourceVersion");
            if (!w_create(&c, neu) && c.out->status && c.out->code == 409 && attempt + 1 < KG_PIPELINE_MAX_RETRIES &&
                !strcmp(c.out->status->reason, KG_REASON_ALREADY_EXISTS)) {
                c.out->status = NULL; /* created meanwhile: apply to it */
                continue;
            }
            return c.out->status == NULL;
        }
        c.out->status = NULL;
        if (w_finish_update(&c, &cur, old, neu, pre, 200) == UPD_DONE)
            return c.out->status == NULL;
    }
    return wfail(&c, kg_status_conflict(c.a, c.gr, c.name, KG_OPTIMISTIC_LOCK_MSG));
}
