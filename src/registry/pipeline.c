/* The write pipeline (pipeline.h): the shared steps, create, update and patch. Deletes are in delete.c, the
 * status / scale / binding / ephemeralcontainers subresources in subresource.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/convert.h"
#include "api/defaults.h"
#include "api/schema.h"
#include "api/validation.h"
#include "api/versions.h"
#include "apiext/crd.h"
#include "meta/names.h"
#include "registry/codec.h"
#include "registry/pipeline_internal.h"

/* ---- request and result ---- */

void kg_write_request_init(kg_write_request *rq, kg_arena *a, const kg_resource *r)
{
    memset(rq, 0, sizeof *rq);
    rq->arena = a;
    rq->resource = r;
    rq->ns = "";
    rq->name = "";
    rq->user.name = "";
    rq->user.uid = "";
}

bool kg_field_validation_parse(kg_arena *a, const char *s, kg_field_validation *out, kg_status **st)
{
    if (!s || !s[0] || !strcmp(s, "Warn"))
        *out = KG_FIELD_VALIDATION_WARN;
    else if (!strcmp(s, "Strict"))
        *out = KG_FIELD_VALIDATION_STRICT;
    else if (!strcmp(s, "Ignore"))
        *out = KG_FIELD_VALIDATION_IGNORE;
    else {
        *st = kg_status_bad_request(
            a,
            kg_arena_sprintf(a, "fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\", got \"%s\"", s));
        return false;
    }
    return true;
}

void wctx_init(wctx *c, const kg_pipeline *p, const kg_write_request *rq, kg_write_result *out)
{
    memset(c, 0, sizeof *c);
    memset(out, 0, sizeof *out);
    c->p = p;
    c->rq = rq;
    c->a = rq->arena;
    c->r = rq->resource;
    c->sub = rq->sub;
    c->strat = kg_strategy_for(c->r);
    c->ns = c->strat->is_namespace ? "" : (rq->ns ? rq->ns : "");
    c->name = rq->name ? rq->name : "";
    c->gr = KG_GR(c->r->group, c->r->plural);
    c->uid = rq->uid && rq->uid[0] ? rq->uid : kg_obj_new_uid(c->a);
    c->out = out;
    if (rq->deadline_ns > 0) {
        c->deadline_ns = rq->deadline_ns;
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        c->deadline_ns =
            (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + (int64_t)KG_ADMISSION_DEFAULT_DEADLINE_S * 1000000000;
    }
}

bool wfail(wctx *c, kg_status *st)
{
    c->out->status = st;
    c->out->code = kg_status_http_code(st);
    return false;
}

bool wfail_err(wctx *c, const kg_error *err)
{
    if (err->code == KG_ENOTFOUND)
        return wfail(c, kg_status_not_found(c->a, c->gr, c->name));
    if (err->code == KG_EEXIST)
        return wfail(c, kg_status_already_exists(c->a, c->gr, c->name));
    if (err->code == KG_ECONFLICT)
        return wfail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
    return wfail(c, kg_status_from_error(c->a, err));
}

bool wdone_stored(wctx *c, int code, const char *bytes, size_t len, int64_t rev)
{
    bytes = kg_obj_with_api_version(c->a, bytes, len, kg_dynamic_read_as(c->r), &len); /* conversion None */
    c->out->code = code;
    c->out->bytes = bytes;
    c->out->len = len;
    c->out->rev = rev;
    return true;
}

bool wdone_obj(wctx *c, int code, kg_json *obj)
{
    const char *kind = obj && obj->type == KG_JSON_OBJECT ? kg_json_get_str(obj, "kind") : NULL;
    if (kind && !strcmp(kind, c->r->kind)) /* a custom resource in the requested version (not a Scale or Status) */
        kg_obj_set_api_version(c->a, obj, kg_dynamic_read_as(c->r));
    c->out->code = code;
    c->out->object = obj;
    return true;
}

/* Custom resources are stored in their CRD's storage version (conversion None: only apiVersion changes). */
static void w_to_storage_version(wctx *c, kg_json *obj)
{
    const kg_dynamic_info *info = c->r->ext ? kg_dynamic_info_of(c->r) : NULL;
    if (info)
        kg_obj_set_api_version(c->a, obj, info->storage_api_version);
}

kg_json *w_sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

kg_json *w_metadata(kg_arena *a, kg_json *obj)
{
    kg_json *md = kg_json_get(obj, "metadata");
    if (!md || md->type != KG_JSON_OBJECT) {
        md = kg_json_new_object(a);
        kg_json_set(a, obj, "metadata", md);
    }
    return md;
}

/* ---- admission ---- */

/* Create/UpdateOptions as admission sees them (meta.k8s.io/v1; dryRun, fieldManager, fieldValidation). */
static kg_json *write_options(wctx *c, const char *kind)
{
    kg_arena *a = c->a;
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", w_sref(a, kind));
    kg_json_set(a, o, "apiVersion", w_sref(a, "meta.k8s.io/v1"));
    if (c->rq->dry_run) {
        kg_json *dr = kg_json_new_array(a);
        kg_json_array_append(a, dr, w_sref(a, "All"));
        kg_json_set(a, o, "dryRun", dr);
    }
    if (c->rq->field_manager && c->rq->field_manager[0])
        kg_json_set(a, o, "fieldManager", w_sref(a, c->rq->field_manager));
    if (c->rq->field_validation == KG_FIELD_VALIDATION_STRICT)
        kg_json_set(a, o, "fieldValidation", w_sref(a, "Strict"));
    else if (c->rq->field_validation == KG_FIELD_VALIDATION_IGNORE)
        kg_json_set(a, o, "fieldValidation", w_sref(a, "Ignore"));
    return o;
}

void w_attrs(wctx *c, kg_admission_attributes *at, kg_admission_op op, const char *kind_group, const char *kind_version,
             const char *kind, kg_json *obj, kg_json *old)
{
    kg_admission_attrs_init(at, c->a);
    at->uid = c->uid;
    at->operation = op;
    at->kind = (kg_gvk){kind_group, kind_version, kind};
    at->resource = (kg_gvr){c->r->group, c->r->version, c->r->plural};
    at->subresource = c->sub ? c->sub->name : "";
    /* one served version per resource: what the client asked for is what admission sees */
    at->request_kind = at->kind;
    at->request_resource = at->resource;
    at->request_subresource = at->subresource;
    at->name = c->name;
    at->ns = c->strat->is_namespace ? c->name : c->ns;
    at->object = obj;
    at->old_object = old;
    at->dry_run = c->rq->dry_run;
    at->deadline_ns = c->deadline_ns;
    if (!c->options)
        c->options = write_options(c, op == KG_ADMISSION_CREATE ? "CreateOptions" : "UpdateOptions");
    at->options = c->options;
    at->user = c->rq->user;
    at->warnings = c->rq->warnings;
    at->tracer = c->rq->tracer;
}

/* Copy what admission annotated into the door's audit record (the last attempt's value wins on a retry). */
static void w_audit_annotations(wctx *c, const kg_admission_attributes *at)
{
    kg_json *dst = c->rq->audit_annotations;
    if (!dst || !at->annotations)
        return;
    for (uint32_t i = 0; i < at->annotations->len; i++) {
        const kg_json_member *m = &at->annotations->u.members[i];
        kg_json_set(c->a, dst, m->key, m->val);
    }
}

kg_status *w_admit(wctx *c, kg_admission_attributes *at)
{
    kg_status *st = c->p->chain ? kg_admission_chain_admit(c->p->chain, at) : NULL;
    w_audit_annotations(c, at);
    return st;
}

kg_status *w_validate(wctx *c, kg_admission_attributes *at)
{
    kg_status *st = c->p->chain ? kg_admission_chain_validate(c->p->chain, at) : NULL;
    w_audit_annotations(c, at);
    return st;
}

/* ---- decode checks ---- */

/* apiVersion and kind of the body against what the URL expects. A missing kind, or a missing apiVersion, is taken
 * from the URL as upstream's decoder defaults them (typed clients commonly send objects without them). */
static bool check_type(wctx *c, kg_json *obj, const char *want_api_version, const char *want_kind)
{
    if (!obj || obj->type != KG_JSON_OBJECT) /* a body that is no object: apimachinery's version/kind probe fails */
        return wfail(c, kg_status_bad_request(
                            c->a, kg_arena_sprintf(c->a,
                                                   "couldn't get version/kind; json parse error: json: cannot "
                                                   "unmarshal %s into Go value of type struct { APIVersion string "
                                                   "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                                                   "\"json:\\\"kind,omitempty\\\"\" }",
                                                   !obj || obj->type == KG_JSON_NULL ? "null"
                                                   : obj->type == KG_JSON_STRING     ? "string"
                                                   : obj->type == KG_JSON_ARRAY      ? "array"
                                                   : obj->type == KG_JSON_BOOL       ? "bool"
                                                                                     : "number")));
    kg_json *av = kg_json_get(obj, "apiVersion"), *k = kg_json_get(obj, "kind");
    if (!k || k->type != KG_JSON_STRING || !k->len) {
        if (k && k->type != KG_JSON_STRING && k->type != KG_JSON_NULL)
            return wfail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                                         "couldn't get version/kind; json parse "
                                                                         "error: json: cannot unmarshal %s into Go "
                                                                         "struct field .kind of type string",
                                                                         k->type == KG_JSON_OBJECT  ? "object"
                                                                         : k->type == KG_JSON_ARRAY ? "array"
                                                                         : k->type == KG_JSON_BOOL  ? "bool"
                                                                                                    : "number")));
        k = w_sref(c->a, want_kind);
        kg_json_set(c->a, obj, "kind", k);
    }
    if (!av || av->type != KG_JSON_STRING || !av->len) {
        if (av && av->type != KG_JSON_STRING && av->type != KG_JSON_NULL)
            return wfail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                                         "couldn't get version/kind; json parse "
                                                                         "error: json: cannot unmarshal %s into Go "
                                                                         "struct field .apiVersion of type string",
                                                                         av->type == KG_JSON_OBJECT  ? "object"
                                                                         : av->type == KG_JSON_ARRAY ? "array"
                                                                         : av->type == KG_JSON_BOOL  ? "bool"
                                                                                                     : "number")));
        av = w_sref(c->a, want_api_version);
        kg_json_set(c->a, obj, "apiVersion", av);
    }
    if (strcmp(av->u.s, want_api_version))
        return wfail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                                     "the API version in the data (%s) does not "
                                                                     "match the expected API version (%s)",
                                                                     av->u.s, want_api_version)));
    if (strcmp(k->u.s, want_kind))
        return wfail(c,
                     kg_status_bad_request(
                         c->a, kg_arena_sprintf(c->a, "the kind in the data (%s) does not match the expected kind (%s)",
                                                k->u.s, want_kind)));
    return true;
}

static bool check_namespace(wctx *c, kg_json *md)
{
    const char *ons = kg_json_get_str(md, "namespace");
    if (c->r->namespaced) {
        if (ons && ons[0] && strcmp(ons, c->ns))
            return wfail(c, kg_status_bad_request(c->a, "the namespace of the provided object does not match the "
                                                        "namespace sent on the request"));
        kg_json_set(c->a, md, "namespace", w_sref(c->a, c->ns));
    } else {
        kg_json_del(md, "namespace");
    }
    return true;
}

bool w_field_validation(wctx *c, kg_json *obj, const char *schema_type)
{
    const kg_write_request *rq = c->rq;
    /* runtime.NewStrictDecodingError and decode errors, wrapped by the handler's "cannot be handled as" */
    const char *kind = schema_type ? strrchr(schema_type, '.') + 1 : c->r->kind;
    const char *version = schema_type ? "v1" : c->r->version; /* only Scale (autoscaling/v1) passes a type */
    const char **unknown = NULL;
    size_t nunknown = 0;
    if (!schema_type &&
        c->r->ext) { /* a custom resource: pruned and defaulted as decoded; what was pruned is unknown */
        kg_cr_decode(c->a, c->r, obj, &unknown, &nunknown);
        if (rq->field_validation == KG_FIELD_VALIDATION_IGNORE)
            return true;
    } else {
        /* the typed decode: wrong JSON types are a 400 in every mode; unknown fields are dropped unless Strict */
        kg_schema_decode d;
        const char *type = schema_type ? schema_type : kg_schema_type_name(c->a, c->r);
        kg_schema_decode_check(c->a, type, obj, rq->field_validation != KG_FIELD_VALIDATION_STRICT, &d);
        if (d.error) {
            if (c->patched)
                return wfail(c, w_patch_decode_failure(c, obj, d.error));
            return wfail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                                         "%s in version \"%s\" cannot be handled as "
                                                                         "a %s: %s",
                                                                         kind, version, kind, d.error)));
        }
        if (rq->field_validation == KG_FIELD_VALIDATION_IGNORE)
            return true;
        unknown = d.unknown;
        nunknown = d.nunknown;
    }
    if (!nunknown && !rq->ndup_fields)
        return true;
    if (rq->field_validation == KG_FIELD_VALIDATION_STRICT) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_printf(&b, "%s in version \"%s\" cannot be handled as a %s: strict decoding error: ", kind, version,
                      kind);
        for (size_t i = 0; i < nunknown; i++) /* field names are client input: echoed bounded (status.h) */
            kg_buf_printf(&b, "%sunknown field \"%s\"", i ? ", " : "", kg_meta_echo_a(c->a, unknown[i]));
        for (size_t i = 0; i < rq->ndup_fields; i++)
            kg_buf_printf(&b, "%sduplicate field \"%s\"", (i || nunknown) ? ", " : "",
                          kg_meta_echo_a(c->a, rq->dup_fields[i]));
        kg_status *st = kg_status_bad_request(c->a, kg_buf_cstr(&b));
        kg_buf_free(&b);
        return wfail(c, st);
    }
    for (size_t i = 0; i < nunknown && rq->warnings; i++)
        kg_warnings_addf(rq->warnings, "unknown field \"%s\"", unknown[i]);
    for (size_t i = 0; i < rq->ndup_fields && rq->warnings; i++)
        kg_warnings_addf(rq->warnings, "duplicate field \"%s\"", rq->dup_fields[i]);
    return true;
}

/* A patched object that does not decode: upstream's patcher reports it as 422 Invalid with an empty kind and
 * name, on the field "patch" with the patched object as the value (kubectl: "The request is invalid: patch: ..."). */
kg_status *w_patch_decode_failure(wctx *c, const kg_json *obj, const char *err)
{
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, obj, 0);
    kg_field_invalid(c->a, &errs, "patch", kg_arena_strdup(c->a, kg_buf_cstr(&b)), err);
    kg_buf_free(&b);
    return kg_status_invalid(c->a, KG_GK("", ""), "", &errs);
}

bool w_load(wctx *c, kg_store_kv *kv, kg_json **old)
{
    kg_error err;
    if (!kg_store_get(c->p->store, kg_resource_key(c->a, c->r, c->ns, c->name), c->a, kv, &err))
        return wfail_err(c, &err);
    *old = kg_obj_decode(c->a, kv->value, kv->value_len, kv->mod_revision, &err);
    if (!*old)
        return wfail(c, kg_status_internal(c->a, kg_arena_sprintf(c->a, "stored object is corrupt: %s", err.msg)));
    *old = kg_version_from_storage(c->a, c->r, *old); /* the requested version's shape (api/versions.h) */
    kg_obj_set_api_version(c->a, *old, kg_dynamic_read_as(c->r)); /* conversion None: the request's version */
    return true;
}

/* ---- create ---- */

/* PrepareForCreate + BeforeCreate: system metadata, defaults, status reset. */
static void prepare_create(wctx *c, kg_json *obj, kg_json *md)
{
    kg_arena *a = c->a;
    kg_json_set(a, md, "uid", kg_json_new_str(a, kg_obj_new_uid(a)));
    kg_json_set(a, md, "creationTimestamp", kg_json_new_str(a, kg_obj_now_rfc3339(a)));
    kg_json_del(md, "deletionTimestamp");
    kg_json_del(md, "deletionGracePeriodSeconds");
    kg_json_del(md, "resourceVersion");
    kg_json_del(md, "selfLink");
    if (c->r->tracks_generation)
        kg_json_set(a, md, "generation", kg_json_new_int(a, 1));
    else
        kg_json_del(md, "generation");
    kg_api_prepare_for_create(a, c->r, obj);
}

/* The strategy's write checks, once the object validated (a policy's paramKind authorization, warnings). */
static void w_check_write(wctx *c, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    if (errs->len || !c->strat->check_write)
        return;
    kg_strategy_ctx sc = {c->a, &c->rq->user, c->p->services, c->rq->warnings};
    c->strat->check_write(&sc, obj, old, errs);
}

bool kg_pipeline_create(const kg_pipeline *p, const kg_write_request *rq, kg_json *obj, kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    if (c.sub && c.sub->kind == KG_SUB_EVICTION) {
        c.options = write_options(&c, "CreateOptions");
        const char *eav = kg_json_get_str(obj, "apiVersion");
        bool beta = eav && !strcmp(eav, "policy/v1beta1");
        if (!check_type(&c, obj, beta ? "policy/v1beta1" : "policy/v1", "Eviction"))
            return false;
        return w_evict(&c, obj);
    }
    return w_create(&c, obj);
}

bool w_create(wctx *cp, kg_json *obj)
{
    wctx c = *cp;
    const kg_pipeline *p = c.p;
    const kg_write_request *rq = c.rq;
    if (c.sub) {
        if (c.sub->kind != KG_SUB_BINDING)
            return wfail(&c, kg_status_method_not_supported(c.a, c.gr, "create"));
        c.options = write_options(&c, "CreateOptions");
        if (!check_type(&c, obj, "v1", "Binding"))
            return false;
        return w_bind(&c, obj);
    }
    if (c.r->ext && ((const kg_crd_version *)c.r->ext)->terminating)
        return wfail(&c, kg_status_new(c.a, 405, KG_REASON_METHOD_NOT_ALLOWED,
                                       "create not allowed while custom resource definition is terminating"));
    if (!check_type(&c, obj, c.r->api_version, c.r->kind))
        return false;
    if (!w_field_validation(&c, obj, NULL))
        return false;
    kg_api_convert_in(c.a, c.r, obj);
    kg_json *md = w_metadata(c.a, obj);
    if (!check_namespace(&c, md))
        return false;
    kg_api_default(c.a, c.r, obj);
    kg_json *mf = w_managed_fields(&c, NULL, obj);
    const char *name = kg_json_get_str(md, "name");
    c.name = name ? name : "";
    if (c.strat->authorize_write && p->authz.authorizer) {
        kg_status *ast = c.strat->authorize_write(c.a, &p->authz, &rq->user, c.ns, "", obj, NULL);
        if (ast)
            return wfail(&c, ast);
    }
    kg_admission_attributes at;
    w_attrs(&c, &at, KG_ADMISSION_CREATE, c.r->group, c.r->version, c.r->kind, obj, NULL);
    kg_status *st = w_admit(&c, &at);
    if (st)
        return wfail(&c, st);
    kg_api_default(c.a, c.r, obj); /* what admission added gets its defaults too (idempotent) */
    w_restore_managed_fields(&c, obj, mf);
    md = w_metadata(c.a, obj);
    name = kg_json_get_str(md, "name");
    const char *gen = kg_json_get_str(md, "generateName");
    if ((!name || !name[0]) && gen && gen[0]) {
        name = kg_generate_name(c.a, gen);
        kg_json_set(c.a, md, "name", w_sref(c.a, name));
    }
    c.name = name ? name : "";
    prepare_create(&c, obj, md);
    if (c.strat->prepare_for_create)
        c.strat->prepare_for_create(c.a, &rq->user, obj);
    if (c.strat->default_on_write)
        c.strat->default_on_write(c.a, obj);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(c.a, c.r, obj, NULL, &errs);
    if (c.strat->validate)
        c.strat->validate(c.a, obj, NULL, &errs);
    w_check_write(&c, obj, NULL, &errs);
    if (errs.len)
        return wfail(&c, kg_status_invalid(c.a, KG_GK(c.r->group, c.r->kind), c.name, &errs));
    at.name = c.name;
    if (c.strat->is_namespace)
        at.ns = c.name;
    st = w_validate(&c, &at);
    if (st)
        return wfail(&c, st);
    if (rq->dry_run) {
        /* DryRunnableStorage.Create: an existing object is a conflict even though nothing would be written */
        kg_store_kv kv;
        kg_error gerr;
        if (kg_store_get(p->store, kg_resource_key(c.a, c.r, c.ns, c.name), c.a, &kv, &gerr))
            return wfail(&c, kg_status_already_exists(c.a, c.gr, c.name));
        return wdone_obj(&c, 201, obj);
    }
    size_t len; /* stored (and answered: readers convert) in the storage version */
    w_to_storage_version(&c, obj);
    const char *bytes = kg_obj_encode(c.a, kg_version_to_storage(c.a, c.r, obj), &len);
    kg_error err;
    int64_t rev;
    if (!kg_store_create(p->store, kg_resource_key(c.a, c.r, c.ns, c.name), bytes, len, &rev, &err)) {
        if (err.code == KG_EEXIST && gen && gen[0] && (!kg_json_get_str(md, "name") || strcmp(gen, c.name)))
            return wfail(&c, kg_status_generate_name_conflict(c.a, c.gr, c.name, 1));
        return wfail_err(&c, &err);
    }
    return wdone_stored(&c, 201, bytes, len, rev);
}

/* ---- update / patch ---- */

/* Copy system-owned metadata from old to new (BeforeUpdate). */
static void preserve_metadata(kg_arena *a, kg_json *nmd, const kg_json *omd)
{
    static const char *const keep[] = {
        "uid",  "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
        "name", "namespace"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        kg_json *v = kg_json_get(omd, keep[i]);
        if (v)
            kg_json_set(a, nmd, keep[i], v);
        else
            kg_json_del(nmd, keep[i]);
    }
}

static bool spec_changed(const kg_json *old, const kg_json *neu)
{
    return !kg_json_equal(kg_json_get(old, "spec"), kg_json_get(neu, "spec"));
}

/* old is the stored object (decoded, with resourceVersion), neu the proposed one. rv_precond: the caller's
 * resourceVersion (NULL = unconditional; a conflict is then retried by the caller). */
upd_result w_finish_update(wctx *c, const kg_store_kv *cur, kg_json *old, kg_json *neu, const char *rv_precond,
                           int code_on_success)
{
    kg_arena *a = c->a;
    if (rv_precond && rv_precond[0]) {
        char *cur_rv = kg_arena_sprintf(a, "%lld", (long long)cur->mod_revision);
        if (strcmp(rv_precond, cur_rv)) {
            wfail(c, kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
            return UPD_DONE;
        }
    }
    neu = w_merge_for_subresource(c, old, neu);
    kg_json *nmd = w_metadata(a, neu);
    const kg_json *omd = kg_json_get(old, "metadata");
    preserve_metadata(a, nmd, omd);
    if (!c->sub) {
        kg_api_prepare_for_update(a, c->r, neu, old);
        kg_api_default(a, c->r, neu);
    }
    kg_json *mf = w_managed_fields(c, old, neu);
    if (!c->sub && c->strat->authorize_write && c->p->authz.authorizer) {
        kg_status *ast = c->strat->authorize_write(a, &c->p->authz, &c->rq->user, c->ns, c->name, neu, old);
        if (ast) {
            wfail(c, ast);
            return UPD_DONE;
        }
    }
    kg_admission_attributes at;
    w_attrs(c, &at, KG_ADMISSION_UPDATE, c->r->group, c->r->version, c->r->kind, neu, old);
    kg_status *st = w_admit(c, &at);
    if (st) {
        wfail(c, st);
        return UPD_DONE;
    }
    if (!c->sub)
        kg_api_default(a, c->r, neu); /* what admission added gets its defaults too (idempotent) */
    w_restore_managed_fields(c, neu, mf);
    nmd = w_metadata(a, neu);
    preserve_metadata(a, nmd, omd); /* admission may not change system metadata either */
    if (c->r->tracks_generation && !c->sub && spec_changed(old, neu)) {
        kg_json *g = kg_json_get(omd, "generation");
        kg_json_set(a, nmd, "generation", kg_json_new_int(a, (g && g->type == KG_JSON_INT ? g->u.i : 0) + 1));
    }
    if (c->strat->default_on_write)
        c->strat->default_on_write(a, neu);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(a, c->r, neu, old, &errs);
    if (c->strat->validate)
        c->strat->validate(a, neu, old, &errs);
    if (!c->sub)
        w_check_write(c, neu, old, &errs);
    if (errs.len) {
        wfail(c, kg_status_invalid(a, KG_GK(c->r->group, c->r->kind), c->name, &errs));
        return UPD_DONE;
    }
    st = w_validate(c, &at);
    if (st) {
        wfail(c, st);
        return UPD_DONE;
    }
    /* finalization: an object being deleted whose last finalizer went away is deleted now */
    kg_json *fins = kg_json_get(nmd, "finalizers");
    bool finalize = kg_json_get(nmd, "deletionTimestamp") && (!fins || fins->type != KG_JSON_ARRAY || !fins->len);
    if (c->rq->dry_run) {
        wdone_obj(c, code_on_success, neu);
        return UPD_DONE;
    }
    kg_json_del(nmd, "resourceVersion");
    kg_json *cmp_old = kg_json_clone(a, old);
    kg_json_del(w_metadata(a, cmp_old), "resourceVersion");
    /* no-op update: nothing written, like upstream, unless the stored bytes are stale (encrypted with an older key:
     * rewriting re-encrypts them, which is how keys are rotated) */
    if (kg_json_equal(cmp_old, neu) && !finalize && !cur->stale) {
        wdone_stored(c, 200, cur->value, cur->value_len, cur->mod_revision);
        return UPD_DONE;
    }
    const char *key = kg_resource_key(a, c->r, c->ns, c->name);
    kg_error err;
    size_t len;
    w_to_storage_version(c, neu);
    const char *bytes = kg_obj_encode(a, kg_version_to_storage(a, c->r, neu), &len);
    int64_t rev;
    bool unconditional = !(rv_precond && rv_precond[0]);
    if (finalize) {
        kg_store_kv deleted;
        if (!kg_store_delete(c->p->store, key, cur->mod_revision, a, &deleted, &rev, &err)) {
            if (err.code == KG_ECONFLICT && unconditional)
                return UPD_RETRY;
            wfail_err(c, &err);
            return UPD_DONE;
        }
        wdone_stored(c, 200, bytes, len, rev);
        return UPD_DONE;
    }
    if (!kg_store_update(c->p->store, key, bytes, len, cur->mod_revision, &rev, &err)) {
        if (err.code == KG_ECONFLICT && unconditional)
            return UPD_RETRY;
        wfail_err(c, &err);
        return UPD_DONE;
    }
    wdone_stored(c, code_on_success, bytes, len, rev);
    return UPD_DONE;
}

bool kg_pipeline_update(const kg_pipeline *p, const kg_write_request *rq, kg_json *obj, kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    if (c.sub && c.sub->kind == KG_SUB_SCALE) {
        if (!check_type(&c, obj, "autoscaling/v1", "Scale"))
            return false;
        if (!w_field_validation(&c, obj, "io.k8s.api.autoscaling.v1.Scale"))
            return false;
        return w_scale_write(&c, obj, KG_PATCH_FORMAT_JSON, NULL);
    }
    if (c.sub && c.sub->kind == KG_SUB_BINDING)
        return wfail(&c, kg_status_method_not_supported(c.a, c.gr, "update"));
    if (!check_type(&c, obj, c.r->api_version, c.r->kind))
        return false;
    if (!w_field_validation(&c, obj, NULL))
        return false;
    kg_api_convert_in(c.a, c.r, obj);
    kg_json *md = w_metadata(c.a, obj);
    const char *oname = kg_json_get_str(md, "name");
    if (!oname || strcmp(oname, c.name))
        return wfail(&c, kg_status_bad_request(c.a, kg_arena_sprintf(c.a,
                                                                     "the name of the object (%s) does not match the "
                                                                     "name on the URL (%s)",
                                                                     oname ? oname : "", c.name)));
    if (!check_namespace(&c, md))
        return false;
    const char *rv_pre = kg_json_get_str(md, "resourceVersion");
    rv_pre = rv_pre ? kg_arena_strdup(c.a, rv_pre) : NULL;
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!w_load(&c, &cur, &old))
            return false;
        c.out->status = NULL;
        if (w_finish_update(&c, &cur, old, kg_json_clone(c.a, obj), rv_pre, 200) == UPD_DONE)
            return c.out->status == NULL;
    }
    return wfail(&c, kg_status_conflict(c.a, c.gr, c.name, KG_OPTIMISTIC_LOCK_MSG));
}

/* A failed PATCH, as upstream reports it: 400 for a malformed patch, 422 with the generic message and the error
 * as the cause when applying a JSON patch failed, 500 for other strategic merge errors. */
static kg_status *patch_failure(wctx *c, kg_patch_format f, const kg_error *err)
{
    int code = kg_patch_http_status(f, err);
    if (code == 400)
        return kg_status_bad_request(c->a, err->msg);
    if (code == 422) {
        kg_status *st = kg_status_new(c->a, 422, KG_REASON_INVALID,
                                      "the server rejected our request due to an error in our request");
        kg_status_add_cause(c->a, st, "UnexpectedServerResponse", err->msg, NULL);
        return st;
    }
    return kg_status_internal(c->a, err->msg);
}

bool w_apply_patch(wctx *c, kg_patch_format type, const kg_json *doc, const kg_json *patch, const char *kindkey,
                   kg_json **out)
{
    kg_error err;
    kg_json *res = NULL;
    bool ok = type == KG_PATCH_FORMAT_JSON ? kg_patch_json(c->a, doc, patch, &res, &err)
              : type == KG_PATCH_FORMAT_MERGE
                  ? kg_patch_merge(c->a, doc, patch, &res, &err)
                  : kg_patch_strategic(c->a, doc, patch, kg_patch_schema_builtin(), kindkey, &res, &err);
    if (!ok)
        return wfail(c, patch_failure(c, type, &err));
    *out = kg_json_clone(c->a, res);
    return true;
}

bool kg_pipeline_patch(const kg_pipeline *p, const kg_write_request *rq, kg_patch_format type, const kg_json *patch,
                       kg_write_result *out)
{
    wctx c;
    wctx_init(&c, p, rq, out);
    if (type == KG_PATCH_FORMAT_JSON ? patch->type != KG_JSON_ARRAY : patch->type != KG_JSON_OBJECT)
        return wfail(&c, kg_status_bad_request(
                             c.a, type == KG_PATCH_FORMAT_JSON
                                      ? "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
                                      : "json: cannot unmarshal array into Go value of type map[string]interface "
                                        "{}"));
    if (type == KG_PATCH_FORMAT_JSON && patch->len > KG_PATCH_JSON_MAX_OPS)
        return wfail(&c, kg_status_request_entity_too_large(
                             c.a, kg_arena_sprintf(c.a, "The allowed maximum operations in a JSON patch is %d, got %u",
                                                   KG_PATCH_JSON_MAX_OPS, patch->len)));
    if (c.r->ext && type == KG_PATCH_FORMAT_STRATEGIC) { /* custom resources have no patch strategies */
        static const char *const cr_patch_types[] = {"application/json-patch+json", "application/merge-patch+json",
                                                     "application/apply-patch+yaml"};
        return wfail(&c, kg_status_unsupported_media_type(c.a, cr_patch_types, 3));
    }
    if (c.sub && c.sub->kind == KG_SUB_SCALE)
        return w_scale_write(&c, NULL, type, patch);
    if (c.sub && c.sub->kind == KG_SUB_BINDING)
        return wfail(&c, kg_status_method_not_supported(c.a, c.gr, "patch"));
    const char *kindkey = c.r->group[0] ? kg_arena_sprintf(c.a, "%s/%s", c.r->group, c.r->kind) : c.r->kind;
    for (int attempt = 0; attempt < KG_PIPELINE_MAX_RETRIES; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!w_load(&c, &cur, &old))
            return false;
        kg_json *neu;
        if (!w_apply_patch(&c, type, old, patch, kindkey, &neu))
            return false;
        if (neu->type != KG_JSON_OBJECT)
            return wfail(&c, kg_status_bad_request(c.a, "the patch produced a value that is not an object"));
        /* the patch may not change identity */
        const char *pav = kg_json_get_str(neu, "apiVersion"), *pk = kg_json_get_str(neu, "kind");
        if (!pav || strcmp(pav, c.r->api_version) || !pk || strcmp(pk, c.r->kind))
            return wfail(&c, kg_status_bad_request(c.a, "the patch may not change apiVersion or kind"));
        c.patched = true;
        if (!w_field_validation(&c, neu, NULL)) /* every attempt: unknown fields are dropped from neu */
            return false;
        kg_api_convert_in(c.a, c.r, neu);
        c.patched = false;
        kg_json *nmd = w_metadata(c.a, neu);
        const char *nname = kg_json_get_str(nmd, "name");
        if (!nname || strcmp(nname, c.name))
            return wfail(&c, kg_status_bad_request(c.a, kg_arena_sprintf(c.a,
                                                                         "the name of the object (%s) does not match "
                                                                         "the name on the URL (%s)",
                                                                         nname ? nname : "", c.name)));
        /* a resourceVersion set by the patch is a precondition */
        const char *prv = kg_json_get_str(nmd, "resourceVersion");
        const char *orv = kg_json_path_str(old, "metadata.resourceVersion");
        const char *pre = (prv && orv && strcmp(prv, orv)) ? prv : NULL;
        c.out->status = NULL;
        if (w_finish_update(&c, &cur, old, neu, pre, 200) == UPD_DONE)
            return c.out->status == NULL;
    }
    return wfail(&c, kg_status_conflict(c.a, c.gr, c.name, KG_OPTIMISTIC_LOCK_MSG));
}
