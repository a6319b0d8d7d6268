/* Subresource writes (pipeline.h): which part of an update survives on status / approval / ephemeralcontainers,
 * the Scale view of spec.replicas, and pods/binding. The subresource's kind comes from the resource registry
 * entry (api/resources.h kg_subresource_kind). */
#include <string.h>

#include "api/dynamic.h"
#include "api/table.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

kg_json *w_merge_for_subresource(wctx *c, kg_json *old, kg_json *neu)
{
    kg_arena *a = c->a;
    if (!c->sub) {
        if (c->r->has_status) { /* the main resource ignores status changes */
            kg_json *os = kg_json_get(old, "status");
            if (os)
                kg_json_set(a, neu, "status", os);
            else
                kg_json_del(neu, "status");
        }
        return neu;
    }
    kg_json *res = kg_json_clone(a, old);
    switch (c->sub->kind) {
    case KG_SUB_STATUS:
    case KG_SUB_APPROVAL: {
        kg_json *ns = kg_json_get(neu, "status");
        if (ns)
            kg_json_set(a, res, "status", ns);
        else
            kg_json_del(res, "status");
        break;
    }
    case KG_SUB_EPHEMERAL: {
        kg_json *spec = kg_json_get_or_add_object(a, res, "spec");
        kg_json *ec = kg_json_path(neu, "spec.ephemeralContainers");
        if (ec)
            kg_json_set(a, spec, "ephemeralContainers", ec);
        else
            kg_json_del(spec, "ephemeralContainers");
        break;
    }
    default: break;
    }
    return res;
}

/* Scale subresource writes (PUT with a Scale, or PATCH of the Scale view): the Scale's spec.replicas lands in the
 * parent's spec.replicas, written as a main-resource update (status preserved, generation bumped, admission of the
 * parent kind). patch NULL: scale_in is the PUT body. */
bool w_scale_write(wctx *c, kg_json *scale_in, kg_patch_format patch_type, const kg_json *patch)
{
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!w_load(c, &cur, &old))
            return false;
        kg_json *scale = kg_api_scale_from(c->a, c->r, old);
        kg_json *in = scale_in;
        if (patch && !w_apply_patch(c, patch_type, scale, patch, "autoscaling/Scale", &in))
            return false;
        kg_json *rep = kg_json_path(in, "spec.replicas");
        if (!rep || rep->type != KG_JSON_INT || rep->u.i < 0) {
            kg_field_errors errs = KG_FIELD_ERRORS_INIT;
            if (rep && rep->type == KG_JSON_INT)
                kg_field_invalid_int(c->a, &errs, "spec.replicas", rep->u.i, "must be greater than or equal to 0");
            else
                kg_field_required(c->a, &errs, "spec.replicas", NULL);
            return wfail(c, kg_status_invalid(c->a, KG_GK("autoscaling", "Scale"), c->name, &errs));
        }
        const char *rv_pre = kg_json_path_str(in, "metadata.resourceVersion");
        kg_json *neu = kg_json_clone(c->a, old);
        const kg_dynamic_info *info = c->r->ext ? kg_dynamic_info_of(c->r) : NULL;
        if (info && info->spec_replicas_path) /* a custom resource: its CRD's specReplicasPath */
            kg_dynamic_set_path(c->a, neu, info->spec_replicas_path, kg_json_new_int(c->a, rep->u.i));
        else
            kg_json_set(c->a, kg_json_get_or_add_object(c->a, neu, "spec"), "replicas",
                        kg_json_new_int(c->a, rep->u.i));
        const kg_subresource *sub = c->sub;
        c->sub = NULL;
        c->out->status = NULL;
        upd_result r = w_finish_update(c, &cur, old, neu, patch ? NULL : rv_pre, 200);
        c->sub = sub;
        if (r == UPD_RETRY)
            continue;
        if (c->out->status)
            return false;
        /* answer with the Scale of the parent as written */
        kg_json *parent = c->out->object;
        if (!parent && c->out->bytes) {
            kg_error err;
            parent = kg_obj_decode(c->a, c->out->bytes, c->out->len, c->out->rev, &err);
        }
        c->out->bytes = NULL;
        c->out->len = 0;
        return wdone_obj(c, 200, parent ? kg_api_scale_from(c->a, c->r, parent) : scale);
    }
    return wfail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}

/* setPodNodeAndMetadata: spec.nodeName from the Binding's target, its annotations and labels copied onto the pod. */
static kg_json *bound_pod(kg_arena *a, const kg_json *old, const kg_json *binding, const char *node)
{
    kg_json *neu = kg_json_clone(a, old);
    kg_json_set(a, kg_json_get_or_add_object(a, neu, "spec"), "nodeName", kg_json_new_str(a, node));
    static const char *const maps[] = {"annotations", "labels"};
    for (int mi = 0; mi < 2; mi++) {
        kg_json *src = kg_json_path(binding, mi ? "metadata.labels" : "metadata.annotations");
        if (!src || src->type != KG_JSON_OBJECT || !src->len)
            continue;
        kg_json *dst = kg_json_get_or_add_object(a, w_metadata(a, neu), maps[mi]);
        for (uint32_t k = 0; k < src->len; k++)
            kg_json_setn(a, dst, src->u.members[k].key, src->u.members[k].key_len, src->u.members[k].val);
    }
    kg_json_del(w_metadata(a, neu), "resourceVersion");
    return neu;
}

/* CREATE pods/binding: admitted like any create (PodTopologyLabels labels the Binding), then the pod is updated. */
bool w_bind(wctx *c, kg_json *b)
{
    const char *node = kg_json_path_str(b, "target.name");
    if (!node || !node[0]) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        kg_field_required(c->a, &errs, "target.name", NULL);
        return wfail(c, kg_status_invalid(c->a, KG_GK("", "Binding"), c->name, &errs));
    }
    kg_admission_attributes at;
    w_attrs(c, &at, KG_ADMISSION_CREATE, "", "v1", "Binding", b, NULL);
    kg_status *st = w_admit(c, &at);
    if (!st)
        st = w_validate(c, &at);
    if (st)
        return wfail(c, st);
    node = kg_json_path_str(b, "target.name");
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!w_load(c, &cur, &old))
            return false;
        const char *have = kg_json_path_str(old, "spec.nodeName");
        if (have && have[0])
            return wfail(c, kg_status_conflict(
                                c->a, c->gr, c->name,
                                kg_arena_sprintf(c->a, "pod %s is already assigned to node \"%s\"", c->name, have)));
        if (kg_json_path(old, "metadata.deletionTimestamp"))
            return wfail(c,
                         kg_status_conflict(
                             c->a, c->gr, c->name,
                             kg_arena_sprintf(c->a, "pod %s is being deleted, cannot be assigned to a host", c->name)));
        kg_json *neu = bound_pod(c->a, old, b, node);
        if (c->rq->dry_run)
            break;
        size_t len;
        const char *bytes = kg_obj_encode(c->a, neu, &len);
        kg_error err;
        int64_t rev;
        if (!kg_store_update(c->p->store, kg_resource_key(c->a, c->r, c->ns, c->name), bytes, len, cur.mod_revision,
                             &rev, &err)) {
            if (err.code == KG_ECONFLICT)
                continue;
            return wfail_err(c, &err);
        }
        break;
    }
    kg_json *ok = kg_json_new_object(c->a);
    kg_json_set(c->a, ok, "kind", w_sref(c->a, "Status"));
    kg_json_set(c->a, ok, "apiVersion", w_sref(c->a, "v1"));
    kg_json_set(c->a, ok, "metadata", kg_json_new_object(c->a));
    kg_json_set(c->a, ok, "status", w_sref(c->a, "Success"));
    kg_json_set(c->a, ok, "code", kg_json_new_int(c->a, 201));
    c->out->object_is_status = true;
    return wdone_obj(c, 201, ok);
}
