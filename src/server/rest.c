/* REST semantics of kube-apiserver for every registered resource: create, get, list, update, patch, delete,
 * deletecollection, and the status / scale / binding / ephemeralcontainers / approval subresources.
 *
 * Write path (as upstream): decode → mutating admission → prepare (metadata, defaults) → validation (422) →
 * validating admission → store (durable) → response with the store's revision as resourceVersion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "admission/plugins/batch2.h"
#include "api/defaults.h"
#include "api/protobuf.h"
#include "api/schema.h"
#include "api/table.h"
#include "api/validation.h"
#include "base/log.h"
#include "meta/names.h"
#include "meta/patch.h"
#include "server/apiserver.h"
#include "server/selectors.h"
#include "yaml/yaml.h"

typedef struct rctx {
    kg_apiserver *s;
    kg_http_request *req;
    kg_http_response *resp;
    kg_arena *a;
    const kg_resource *r;
    const kg_subresource *sub;
    const char *ns;
    const char *name;
    kg_gr gr;
    bool dry_run;
    const char *field_validation; /* Strict / Warn / Ignore */
    const char **dups;            /* duplicate fields of the decoded body (JSON) */
    size_t ndups;
} rctx;

void kg_respond_status(kg_http_request *req, kg_http_response *resp, const kg_status *st)
{
    kg_buf b = KG_BUF_INIT;
    kg_status_write(&b, st);
    char *body = kg_arena_strndup(req->arena, kg_buf_cstr(&b), b.len);
    kg_http_respond_bytes(resp, kg_status_http_code(st), "application/json", body, b.len);
    kg_buf_free(&b);
}

static void fail(rctx *c, kg_status *st) { kg_respond_status(c->req, c->resp, st); }

static void fail_err(rctx *c, const kg_error *err)
{
    if (err->code == KG_ENOTFOUND) {
        fail(c, kg_status_not_found(c->a, c->gr, c->name));
        return;
    }
    if (err->code == KG_EEXIST) {
        fail(c, kg_status_already_exists(c->a, c->gr, c->name));
        return;
    }
    if (err->code == KG_ECONFLICT) {
        fail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
        return;
    }
    fail(c, kg_status_from_error(c->a, err));
}

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

/* ---- request decoding ---- */

static bool wants_table(const kg_http_request *req)
{
    const char *acc = kg_http_header_get(req, "Accept");
    return acc && strstr(acc, "as=Table") != NULL;
}

static bool media_is(const char *ct, const char *want)
{
    size_t n = strlen(want);
    return ct && strncasecmp(ct, want, n) == 0 && (ct[n] == 0 || ct[n] == ';' || ct[n] == ' ');
}

static const char *const accepted_media[] = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};

/* Decode a create/update body (JSON or YAML). Duplicate fields follow fieldValidation. */
static kg_json *decode_object(rctx *c)
{
    const char *ct = kg_http_header_get(c->req, "Content-Type");
    bool yaml = false;
    if (media_is(ct, "application/vnd.kubernetes.protobuf")) {
        /* client-go's typed clients (kubectl create namespace|configmap|deployment ..., kubectl run) */
        kg_error err;
        kg_json *obj = kg_protobuf_decode(c->a, c->req->body, c->req->body_len, &err);
        if (!obj)
            fail(c, kg_status_bad_request(c->a, err.msg));
        return obj;
    }
    if (!ct || media_is(ct, "application/json") || media_is(ct, "*/*"))
        yaml = false;
    else if (media_is(ct, "application/yaml") || media_is(ct, "application/x-yaml") || media_is(ct, "text/yaml"))
        yaml = true;
    else {
        fail(c, kg_status_unsupported_media_type(c->a, accepted_media, 3));
        return NULL;
    }
    if (c->req->body_len == 0) {
        fail(c, kg_status_bad_request(c->a, "the body of the request was empty"));
        return NULL;
    }
    kg_error err;
    kg_json *obj;
    if (yaml) {
        obj = kg_yaml_parse(c->a, c->req->body, c->req->body_len, &err);
    } else {
        kg_json_parse_info info;
        obj = kg_json_parse_ex(c->a, c->req->body, c->req->body_len, KG_JSON_PARSE_DUP_REPORT, &info, &err);
        if (obj && info.ndups) {
            c->dups = info.dups;
            c->ndups = info.ndups;
        }
    }
    if (!obj) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "couldn't get version/kind; json parse error: %s",
                                                             err.msg)));
        return NULL;
    }
    if (obj->type != KG_JSON_OBJECT) {
        fail(c, kg_status_bad_request(
                    c->a, kg_arena_sprintf(c->a, "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                                 "%s into Go value of type struct { APIVersion string "
                                                 "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                                                 "\"json:\\\"kind,omitempty\\\"\" }",
                                           kg_json_type_name(obj->type))));
        return NULL;
    }
    return obj;
}

/* fieldValidation: unknown fields (from the schema) and duplicate fields (from the decoder) are an error with
 * Strict, warnings with Warn (the default), ignored with Ignore. */
static bool field_validation(rctx *c, const kg_json *obj, const char *schema_type)
{
    if (!strcmp(c->field_validation, "Ignore"))
        return true;
    const char **unknown = NULL;
    size_t nunknown = 0;
    if (schema_type)
        kg_schema_unknown_fields_type(c->a, schema_type, obj, &unknown, &nunknown);
    else
        kg_schema_unknown_fields(c->a, c->r, obj, &unknown, &nunknown);
    if (!nunknown && !c->ndups)
        return true;
    if (!strcmp(c->field_validation, "Strict")) {
        kg_buf b = KG_BUF_INIT;
        /* runtime.NewStrictDecodingError wrapped by the handler's "cannot be handled as" */
        const char *kind = schema_type ? strrchr(schema_type, '.') + 1 : c->r->kind;
        const char *version = schema_type ? "autoscaling/v1" : c->r->api_version; /* only Scale passes a type */
        kg_buf_printf(&b, "%s in version \"%s\" cannot be handled as a %s: strict decoding error: ", kind, version,
                      kind);
        for (size_t i = 0; i < nunknown; i++)
            kg_buf_printf(&b, "%sunknown field \"%s\"", i ? ", " : "", unknown[i]);
        for (size_t i = 0; i < c->ndups; i++)
            kg_buf_printf(&b, "%sduplicate field \"%s\"", (i || nunknown) ? ", " : "", c->dups[i]);
        fail(c, kg_status_bad_request(c->a, kg_buf_cstr(&b)));
        kg_buf_free(&b);
        return false;
    }
    for (size_t i = 0; i < nunknown; i++)
        kg_http_add_header(c->req, c->resp, "Warning",
                           kg_arena_sprintf(c->a, "299 - \"unknown field \\\"%s\\\"\"", unknown[i]));
    for (size_t i = 0; i < c->ndups; i++)
        kg_http_add_header(c->req, c->resp, "Warning",
                           kg_arena_sprintf(c->a, "299 - \"duplicate field \\\"%s\\\"\"", c->dups[i]));
    return true;
}

/* Check (and fill when empty) apiVersion/kind against what the URL expects. */
static bool check_type(rctx *c, kg_json *obj, const char *want_api_version, const char *want_kind)
{
    kg_json *av = kg_json_get(obj, "apiVersion"), *k = kg_json_get(obj, "kind");
    if (av && av->type != KG_JSON_STRING)
        av = NULL;
    if (k && k->type != KG_JSON_STRING)
        k = NULL;
    if (!k || !k->len) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "Object 'Kind' is missing in '%.*s'",
                                                             (int)(c->req->body_len > 512 ? 512 : c->req->body_len),
                                                             c->req->body)));
        return false;
    }
    if (!av || !av->len) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "Object 'apiVersion' is missing in '%.*s'",
                                                             (int)(c->req->body_len > 512 ? 512 : c->req->body_len),
                                                             c->req->body)));
        return false;
    }
    if (strcmp(av->u.s, want_api_version)) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                             "the API version in the data (%s) does not match the "
                                                             "expected API version (%s)",
                                                             av->u.s, want_api_version)));
        return false;
    }
    if (strcmp(k->u.s, want_kind)) {
        fail(c, kg_status_bad_request(
                    c->a, kg_arena_sprintf(c->a, "the kind in the data (%s) does not match the expected kind (%s)",
                                           k->u.s, want_kind)));
        return false;
    }
    return true;
}

static kg_json *metadata_of(kg_arena *a, kg_json *obj)
{
    kg_json *md = kg_json_get(obj, "metadata");
    if (!md || md->type != KG_JSON_OBJECT) {
        md = kg_json_new_object(a);
        kg_json_set(a, obj, "metadata", md);
    }
    return md;
}

static bool check_namespace(rctx *c, kg_json *md)
{
    const char *ons = kg_json_get_str(md, "namespace");
    if (c->r->namespaced) {
        if (ons && ons[0] && strcmp(ons, c->ns)) {
            fail(c, kg_status_bad_request(c->a, "the namespace of the provided object does not match the namespace "
                                                "sent on the request"));
            return false;
        }
        kg_json_set(c->a, md, "namespace", sref(c->a, c->ns));
    } else {
        kg_json_del(md, "namespace");
    }
    return true;
}

/* ---- admission ---- */

static void fill_attrs(rctx *c, kg_admission_attributes *at, kg_admission_op op, const char *kind_group,
                       const char *kind_version, const char *kind, kg_json *obj, kg_json *old)
{
    kg_admission_attrs_init(at, c->a);
    at->operation = op;
    at->kind = (kg_gvk){kind_group, kind_version, kind};
    at->resource = (kg_gvr){c->r->group, c->r->version, c->r->plural};
    at->subresource = c->sub ? c->sub->name : "";
    at->name = c->name ? c->name : "";
    at->ns = c->r == kg_resource_find("", "v1", "namespaces") ? at->name : (c->ns ? c->ns : "");
    at->object = obj;
    at->old_object = old;
    at->dry_run = c->dry_run;
    const kg_user *u = c->req->user;
    at->user.name = u->name ? u->name : "";
    at->user.uid = u->uid ? u->uid : "";
    at->user.groups = u->groups;
    at->user.ngroups = u->ngroups;
}

static kg_status *admit(rctx *c, kg_admission_attributes *at)
{
    if (!c->s->chain)
        return NULL;
    return kg_admission_chain_admit(c->s->chain, at);
}

static kg_status *admit_validate(rctx *c, kg_admission_attributes *at)
{
    if (!c->s->chain)
        return NULL;
    return kg_admission_chain_validate(c->s->chain, at);
}

/* ---- responses ---- */

static void respond_stored(rctx *c, int code, const char *bytes, size_t len, int64_t rev)
{
    if (wants_table(c->req)) {
        kg_error err;
        kg_json *obj = kg_obj_decode(c->a, bytes, len, rev, &err);
        if (obj) {
            kg_json *t = kg_api_table(c->a, c->r, &obj, 1, kg_http_query(c->req, "includeObject"), "");
            kg_http_respond_json(c->req, c->resp, code, t);
            return;
        }
    }
    kg_buf b = KG_BUF_INIT;
    kg_buf_reserve(&b, len + 48);
    kg_obj_splice_rv(&b, bytes, len, rev);
    char *body = kg_arena_strndup(c->a, b.data, b.len);
    kg_http_respond_bytes(c->resp, code, "application/json", body, b.len);
    kg_buf_free(&b);
}

static void respond_obj(rctx *c, int code, kg_json *obj)
{
    if (wants_table(c->req)) {
        kg_json *t = kg_api_table(c->a, c->r, &obj, 1, kg_http_query(c->req, "includeObject"), "");
        kg_http_respond_json(c->req, c->resp, code, t);
        return;
    }
    kg_http_respond_json(c->req, c->resp, code, obj);
}

/* ---- create ---- */

/* LimitRanges get their defaults when written (the LimitRanger plugin relies on it, as upstream). */
static void limitrange_defaults(rctx *c, kg_json *obj)
{
    if (!c->r->group[0] && !strcmp(c->r->plural, "limitranges"))
        kg_admission_limitrange_defaults(c->a, obj);
}

/* PrepareForCreate + BeforeCreate: system metadata, defaults, status reset. */
static void prepare_create(rctx *c, kg_json *obj, kg_json *md)
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

static void do_create(rctx *c)
{
    kg_json *obj = decode_object(c);
    if (!obj)
        return;
    if (!check_type(c, obj, c->r->api_version, c->r->kind))
        return;
    if (!field_validation(c, obj, NULL))
        return;
    kg_json *md = metadata_of(c->a, obj);
    if (!check_namespace(c, md))
        return;
    kg_api_default(c->a, c->r, obj);
    const char *name = kg_json_get_str(md, "name");
    c->name = name ? name : "";
    kg_admission_attributes at;
    fill_attrs(c, &at, KG_ADMISSION_CREATE, c->r->group, c->r->version, c->r->kind, obj, NULL);
    kg_status *st = admit(c, &at);
    if (st) {
        fail(c, st);
        return;
    }
    kg_api_default(c->a, c->r, obj); /* what admission added gets its defaults too (idempotent) */
    md = metadata_of(c->a, obj);
    name = kg_json_get_str(md, "name");
    const char *gen = kg_json_get_str(md, "generateName");
    if ((!name || !name[0]) && gen && gen[0]) {
        name = kg_generate_name(c->a, gen);
        kg_json_set(c->a, md, "name", sref(c->a, name));
    }
    c->name = name ? name : "";
    prepare_create(c, obj, md);
    limitrange_defaults(c, obj);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(c->a, c->r, obj, NULL, &errs);
    if (errs.len) {
        fail(c, kg_status_invalid(c->a, KG_GK(c->r->group, c->r->kind), c->name, &errs));
        return;
    }
    at.name = c->name;
    if (!c->r->namespaced && !strcmp(c->r->plural, "namespaces"))
        at.ns = c->name;
    st = admit_validate(c, &at);
    if (st) {
        fail(c, st);
        return;
    }
    if (c->dry_run) {
        respond_obj(c, 201, obj);
        return;
    }
    size_t len;
    const char *bytes = kg_obj_encode(c->a, obj, &len);
    kg_error err;
    int64_t rev;
    if (!kg_store_create(c->s->store, kg_resource_key(c->a, c->r, c->ns, c->name), bytes, len, &rev, &err)) {
        if (err.code == KG_EEXIST && gen && gen[0] && (!kg_json_get_str(md, "name") || strcmp(gen, c->name))) {
            fail(c, kg_status_generate_name_conflict(c->a, c->gr, c->name, 1));
            return;
        }
        fail_err(c, &err);
        return;
    }
    respond_stored(c, 201, bytes, len, rev);
}

/* ---- get / list ---- */

static void do_get(rctx *c)
{
    kg_store_kv kv;
    kg_error err;
    if (!kg_store_get(c->s->store, kg_resource_key(c->a, c->r, c->ns, c->name), c->a, &kv, &err)) {
        fail_err(c, &err);
        return;
    }
    if (c->sub && c->sub->kind == KG_SUB_SCALE) {
        kg_json *obj = kg_obj_decode(c->a, kv.value, kv.value_len, kv.mod_revision, &err);
        kg_http_respond_json(c->req, c->resp, 200, kg_api_scale_from(c->a, c->r, obj));
        return;
    }
    respond_stored(c, 200, kv.value, kv.value_len, kv.mod_revision);
}

static bool parse_int_param(rctx *c, const char *name, int64_t *out)
{
    const char *v = kg_http_query(c->req, name);
    *out = 0;
    if (!v || !v[0])
        return true;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "invalid %s: %s", name, v)));
        return false;
    }
    *out = x;
    return true;
}

static void do_list(rctx *c)
{
    kg_selectors sel;
    kg_error err;
    if (!kg_selectors_parse(c->a, kg_http_query(c->req, "labelSelector"), kg_http_query(c->req, "fieldSelector"),
                            c->r, &sel, &err)) {
        fail(c, kg_status_bad_request(c->a, err.msg));
        return;
    }
    int64_t limit, rv = 0;
    if (!parse_int_param(c, "limit", &limit))
        return;
    const char *rvs = kg_http_query(c->req, "resourceVersion");
    const char *match = kg_http_query(c->req, "resourceVersionMatch");
    if (rvs && rvs[0] && strcmp(rvs, "0")) {
        char *end;
        rv = strtoll(rvs, &end, 10);
        if (*end || rv < 0) {
            fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "invalid resource version: %s", rvs)));
            return;
        }
        if (!match || strcmp(match, "Exact"))
            rv = 0; /* NotOlderThan / legacy semantics: the latest state is not older than rv */
    }
    kg_store_list_opts lo = {.revision = rv,
                             .limit = sel.empty ? limit : 0,
                             .continue_token = kg_http_query(c->req, "continue")};
    kg_store_list_result res;
    const char *prefix = kg_resource_list_prefix(c->a, c->r, c->ns);
    if (!kg_store_list(c->s->store, prefix, &lo, c->a, &res, &err)) {
        if (err.code == KG_EGONE)
            fail(c, kg_status_resource_expired(c->a, err.msg));
        else
            fail_err(c, &err);
        return;
    }
    if (wants_table(c->req)) {
        kg_json **objs = kg_arena_alloc(c->a, (res.n + 1) * sizeof(kg_json *));
        size_t n = 0;
        for (size_t i = 0; i < res.n; i++) {
            kg_json *o = kg_obj_decode(c->a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision,
                                       &err);
            if (o && kg_selectors_match(&sel, o))
                objs[n++] = o;
        }
        kg_json *t = kg_api_table(c->a, c->r, objs, n, kg_http_query(c->req, "includeObject"),
                                  kg_arena_sprintf(c->a, "%lld", (long long)res.revision));
        if (res.continue_token)
            kg_json_set(c->a, kg_json_get(t, "metadata"), "continue", sref(c->a, res.continue_token));
        kg_http_respond_json(c->req, c->resp, 200, t);
        return;
    }
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":\"%lld\"",
                  c->r->list_kind, c->r->api_version, (long long)res.revision);
    if (res.continue_token) {
        kg_buf_puts(&b, ",\"continue\":");
        kg_json_write_string(&b, res.continue_token, strlen(res.continue_token), 0);
        if (res.remaining > 0)
            kg_buf_printf(&b, ",\"remainingItemCount\":%lld", (long long)res.remaining);
    }
    kg_buf_puts(&b, "},\"items\":[");
    bool first = true;
    for (size_t i = 0; i < res.n; i++) {
        if (!sel.empty) {
            kg_json *o = kg_json_parse(c->a, res.items[i].value, res.items[i].value_len, &err);
            if (!o || !kg_selectors_match(&sel, o))
                continue;
        }
        if (!first)
            kg_buf_putc(&b, ',');
        first = false;
        kg_obj_splice_rv(&b, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision);
    }
    kg_buf_puts(&b, "]}");
    char *body = kg_arena_strndup(c->a, b.data, b.len);
    kg_http_respond_bytes(c->resp, 200, "application/json", body, b.len);
    kg_buf_free(&b);
}

/* ---- update / patch ---- */

/* Copy system-owned metadata from old to new (BeforeUpdate). */
static void preserve_metadata(kg_arena *a, kg_json *nmd, const kg_json *omd)
{
    static const char *const keep[] = {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                                       "generation", "name", "namespace"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        kg_json *v = kg_json_get(omd, keep[i]);
        if (v)
            kg_json_set(a, nmd, keep[i], v);
        else
            kg_json_del(nmd, keep[i]);
    }
}

/* Apply subresource semantics: which parts of new survive. */
static kg_json *merge_for_subresource(rctx *c, kg_json *old, kg_json *neu)
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
        /* status updates may change labels/annotations? upstream: no (metadata except some fields reset) */
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

static bool spec_changed(const kg_json *old, const kg_json *neu)
{
    return !kg_json_equal(kg_json_get(old, "spec"), kg_json_get(neu, "spec"));
}

typedef enum { UPD_DONE, UPD_RETRY } upd_result;

/* The shared tail of update and patch: old is the stored object (decoded, with resourceVersion), neu the
 * proposed one. rv_precondition: the caller's resourceVersion (NULL = unconditional). */
static upd_result finish_update(rctx *c, const kg_store_kv *cur, kg_json *old, kg_json *neu, const char *rv_precond,
                                int code_on_success)
{
    kg_arena *a = c->a;
    if (rv_precond && rv_precond[0]) {
        char *cur_rv = kg_arena_sprintf(a, "%lld", (long long)cur->mod_revision);
        if (strcmp(rv_precond, cur_rv)) {
            fail(c, kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
            return UPD_DONE;
        }
    }
    neu = merge_for_subresource(c, old, neu);
    kg_json *nmd = metadata_of(a, neu);
    const kg_json *omd = kg_json_get(old, "metadata");
    preserve_metadata(a, nmd, omd);
    if (!c->sub)
        kg_api_default(a, c->r, neu);
    kg_admission_attributes at;
    fill_attrs(c, &at, KG_ADMISSION_UPDATE, c->r->group, c->r->version, c->r->kind, neu, old);
    kg_status *st = admit(c, &at);
    if (st) {
        fail(c, st);
        return UPD_DONE;
    }
    if (!c->sub)
        kg_api_default(a, c->r, neu); /* what admission added gets its defaults too (idempotent) */
    nmd = metadata_of(a, neu);
    preserve_metadata(a, nmd, omd); /* admission may not change system metadata either */
    if (c->r->tracks_generation && !c->sub && spec_changed(old, neu)) {
        kg_json *g = kg_json_get(omd, "generation");
        kg_json_set(a, nmd, "generation", kg_json_new_int(a, (g && g->type == KG_JSON_INT ? g->u.i : 0) + 1));
    }
    limitrange_defaults(c, neu);
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    kg_api_validate(a, c->r, neu, old, &errs);
    if (errs.len) {
        fail(c, kg_status_invalid(a, KG_GK(c->r->group, c->r->kind), c->name, &errs));
        return UPD_DONE;
    }
    st = admit_validate(c, &at);
    if (st) {
        fail(c, st);
        return UPD_DONE;
    }
    /* finalization: an object being deleted whose last finalizer went away is deleted now */
    kg_json *fins = kg_json_get(nmd, "finalizers");
    bool finalize = kg_json_get(nmd, "deletionTimestamp") && (!fins || fins->type != KG_JSON_ARRAY || !fins->len);
    if (c->dry_run) {
        respond_obj(c, code_on_success, neu);
        return UPD_DONE;
    }
    kg_json_del(nmd, "resourceVersion");
    kg_json *cmp_old = kg_json_clone(a, old);
    kg_json_del(metadata_of(a, cmp_old), "resourceVersion");
    if (kg_json_equal(cmp_old, neu) && !finalize) { /* no-op update: nothing written, like upstream */
        respond_stored(c, 200, cur->value, cur->value_len, cur->mod_revision);
        return UPD_DONE;
    }
    const char *key = kg_resource_key(a, c->r, c->ns, c->name);
    kg_error err;
    size_t len;
    const char *bytes = kg_obj_encode(a, neu, &len);
    if (finalize) {
        kg_store_kv deleted;
        int64_t rev;
        if (!kg_store_delete(c->s->store, key, cur->mod_revision, a, &deleted, &rev, &err)) {
            if (err.code == KG_ECONFLICT && !(rv_precond && rv_precond[0]))
                return UPD_RETRY;
            fail_err(c, &err);
            return UPD_DONE;
        }
        respond_stored(c, 200, bytes, len, rev);
        return UPD_DONE;
    }
    int64_t rev;
    if (!kg_store_update(c->s->store, key, bytes, len, cur->mod_revision, &rev, &err)) {
        if (err.code == KG_ECONFLICT && !(rv_precond && rv_precond[0]))
            return UPD_RETRY;
        fail_err(c, &err);
        return UPD_DONE;
    }
    respond_stored(c, code_on_success, bytes, len, rev);
    return UPD_DONE;
}

static bool load_current(rctx *c, kg_store_kv *kv, kg_json **old)
{
    kg_error err;
    if (!kg_store_get(c->s->store, kg_resource_key(c->a, c->r, c->ns, c->name), c->a, kv, &err)) {
        fail_err(c, &err);
        return false;
    }
    *old = kg_obj_decode(c->a, kv->value, kv->value_len, kv->mod_revision, &err);
    if (!*old) {
        fail(c, kg_status_internal(c->a, kg_arena_sprintf(c->a, "stored object is corrupt: %s", err.msg)));
        return false;
    }
    return true;
}

/* A failed PATCH, as upstream reports it: 400 for a malformed patch, 422 with the generic message and the error
 * as the cause when applying a JSON patch failed, 500 for other strategic merge errors. */
static kg_status *patch_failure(rctx *c, const char *type, const kg_error *err)
{
    kg_patch_format f = !strcmp(type, "json")    ? KG_PATCH_FORMAT_JSON
                        : !strcmp(type, "merge") ? KG_PATCH_FORMAT_MERGE
                                                 : KG_PATCH_FORMAT_STRATEGIC;
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

/* Scale subresource writes: the Scale's spec.replicas lands in the parent's spec.replicas. */
static void scale_update(rctx *c, kg_json *scale_in, bool is_patch, const kg_json *patch, const char *patch_type)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!load_current(c, &cur, &old))
            return;
        kg_json *scale = kg_api_scale_from(c->a, c->r, old);
        kg_json *in = scale_in;
        if (is_patch) {
            kg_error err;
            kg_json *out = NULL;
            bool ok = !strcmp(patch_type, "json")    ? kg_patch_json(c->a, scale, patch, &out, &err)
                      : !strcmp(patch_type, "merge") ? kg_patch_merge(c->a, scale, patch, &out, &err)
                                                     : kg_patch_strategic(c->a, scale, patch, kg_patch_schema_builtin(),
                                                                          "autoscaling/Scale", &out, &err);
            if (!ok) {
                fail(c, patch_failure(c, patch_type, &err));
                return;
            }
            in = kg_json_clone(c->a, out);
        }
        kg_json *rep = kg_json_path(in, "spec.replicas");
        if (!rep || rep->type != KG_JSON_INT || rep->u.i < 0) {
            kg_field_errors errs = KG_FIELD_ERRORS_INIT;
            if (rep && rep->type == KG_JSON_INT)
                kg_field_invalid_int(c->a, &errs, "spec.replicas", rep->u.i, "must be greater than or equal to 0");
            else
                kg_field_required(c->a, &errs, "spec.replicas", NULL);
            fail(c, kg_status_invalid(c->a, KG_GK("autoscaling", "Scale"), c->name, &errs));
            return;
        }
        const char *rv_pre = kg_json_path_str(in, "metadata.resourceVersion");
        kg_json *neu = kg_json_clone(c->a, old);
        kg_json_set(c->a, kg_json_get_or_add_object(c->a, neu, "spec"), "replicas", kg_json_new_int(c->a, rep->u.i));
        /* the parent is written as a main-resource update (status preserved, generation bumped) */
        const kg_subresource *sub = c->sub;
        c->sub = NULL;
        kg_http_response tmp = {0};
        kg_http_response *real = c->resp;
        c->resp = &tmp;
        upd_result r = finish_update(c, &cur, old, neu, is_patch ? NULL : rv_pre, 200);
        c->resp = real;
        c->sub = sub;
        if (r == UPD_RETRY)
            continue;
        if (tmp.status != 200) {
            kg_http_respond_bytes(c->resp, tmp.status, tmp.content_type, tmp.body, tmp.body_len);
            return;
        }
        kg_error err;
        kg_json *parent = kg_json_parse(c->a, tmp.body, tmp.body_len, &err);
        kg_http_respond_json(c->req, c->resp, 200, parent ? kg_api_scale_from(c->a, c->r, parent) : scale);
        return;
    }
    fail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}

static void do_update(rctx *c)
{
    kg_json *obj = decode_object(c);
    if (!obj)
        return;
    if (c->sub && c->sub->kind == KG_SUB_SCALE) {
        if (!check_type(c, obj, "autoscaling/v1", "Scale"))
            return;
        if (!field_validation(c, obj, "io.k8s.api.autoscaling.v1.Scale"))
            return;
        scale_update(c, obj, false, NULL, NULL);
        return;
    }
    if (!check_type(c, obj, c->r->api_version, c->r->kind))
        return;
    if (!field_validation(c, obj, NULL))
        return;
    kg_json *md = metadata_of(c->a, obj);
    const char *oname = kg_json_get_str(md, "name");
    if (!oname || strcmp(oname, c->name)) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                             "the name of the object (%s) does not match the name on "
                                                             "the URL (%s)",
                                                             oname ? oname : "", c->name)));
        return;
    }
    if (!check_namespace(c, md))
        return;
    const char *rv_pre = kg_json_get_str(md, "resourceVersion");
    rv_pre = rv_pre ? kg_arena_strdup(c->a, rv_pre) : NULL;
    for (int attempt = 0; attempt < 100; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!load_current(c, &cur, &old))
            return;
        if (finish_update(c, &cur, old, kg_json_clone(c->a, obj), rv_pre, 200) == UPD_DONE)
            return;
    }
    fail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}

static void do_patch(rctx *c)
{
    const char *ct = kg_http_header_get(c->req, "Content-Type");
    const char *type = NULL;
    if (media_is(ct, "application/json-patch+json"))
        type = "json";
    else if (media_is(ct, "application/merge-patch+json"))
        type = "merge";
    else if (media_is(ct, "application/strategic-merge-patch+json"))
        type = "strategic";
    else {
        static const char *const patch_media[] = {"application/json-patch+json", "application/merge-patch+json",
                                                  "application/strategic-merge-patch+json"};
        fail(c, kg_status_unsupported_media_type(c->a, patch_media, 3));
        return;
    }
    kg_error err;
    kg_json *patch = kg_json_parse(c->a, c->req->body, c->req->body_len, &err);
    if (!patch) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "error decoding patch: %s", err.msg)));
        return;
    }
    if (!strcmp(type, "json") ? patch->type != KG_JSON_ARRAY : patch->type != KG_JSON_OBJECT) {
        fail(c, kg_status_bad_request(
                    c->a, !strcmp(type, "json")
                              ? "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
                              : "json: cannot unmarshal array into Go value of type map[string]interface {}"));
        return;
    }
    if (!strcmp(type, "json") && patch->len > KG_PATCH_JSON_MAX_OPS) {
        fail(c, kg_status_request_entity_too_large(
                    c->a, kg_arena_sprintf(c->a, "The allowed maximum operations in a JSON patch is %d, got %u",
                                           KG_PATCH_JSON_MAX_OPS, patch->len)));
        return;
    }
    if (c->sub && c->sub->kind == KG_SUB_SCALE) {
        scale_update(c, NULL, true, patch, type);
        return;
    }
    char *kindkey = c->r->group[0] ? kg_arena_sprintf(c->a, "%s/%s", c->r->group, c->r->kind) : (char *)c->r->kind;
    for (int attempt = 0; attempt < 100; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!load_current(c, &cur, &old))
            return;
        kg_json *out = NULL;
        bool ok = !strcmp(type, "json")    ? kg_patch_json(c->a, old, patch, &out, &err)
                  : !strcmp(type, "merge") ? kg_patch_merge(c->a, old, patch, &out, &err)
                                           : kg_patch_strategic(c->a, old, patch, kg_patch_schema_builtin(), kindkey,
                                                                &out, &err);
        if (!ok) {
            fail(c, patch_failure(c, type, &err));
            return;
        }
        kg_json *neu = kg_json_clone(c->a, out);
        if (neu->type != KG_JSON_OBJECT) {
            fail(c, kg_status_bad_request(c->a, "the patch produced a value that is not an object"));
            return;
        }
        /* the patch may not change identity */
        const char *pav = kg_json_get_str(neu, "apiVersion"), *pk = kg_json_get_str(neu, "kind");
        if (!pav || strcmp(pav, c->r->api_version) || !pk || strcmp(pk, c->r->kind)) {
            fail(c, kg_status_bad_request(c->a, "the patch may not change apiVersion or kind"));
            return;
        }
        if (attempt == 0 && !field_validation(c, neu, NULL))
            return;
        kg_json *nmd = metadata_of(c->a, neu);
        const char *nname = kg_json_get_str(nmd, "name");
        if (!nname || strcmp(nname, c->name)) {
            fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a,
                                                                 "the name of the object (%s) does not match the name "
                                                                 "on the URL (%s)",
                                                                 nname ? nname : "", c->name)));
            return;
        }
        /* a resourceVersion set by the patch is a precondition */
        const char *prv = kg_json_get_str(nmd, "resourceVersion");
        const char *orv = kg_json_path_str(old, "metadata.resourceVersion");
        const char *pre = (prv && orv && strcmp(prv, orv)) ? prv : NULL;
        if (finish_update(c, &cur, old, neu, pre, 200) == UPD_DONE)
            return;
    }
    fail(c, kg_status_conflict(c->a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG));
}

/* ---- delete ---- */

typedef struct delete_opts {
    const char *uid_pre, *rv_pre;
    int64_t grace;
    bool has_grace;
    const char *propagation;
} delete_opts;

static bool parse_delete_options(rctx *c, delete_opts *o)
{
    memset(o, 0, sizeof *o);
    if (c->req->body_len) {
        kg_error err;
        kg_json *body = kg_json_parse(c->a, c->req->body, c->req->body_len, &err);
        if (!body || body->type != KG_JSON_OBJECT) {
            fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "error decoding DeleteOptions: %s",
                                                                 body ? "not an object" : err.msg)));
            return false;
        }
        o->uid_pre = kg_json_path_str(body, "preconditions.uid");
        o->rv_pre = kg_json_path_str(body, "preconditions.resourceVersion");
        kg_json *g = kg_json_get(body, "gracePeriodSeconds");
        if (g && g->type == KG_JSON_INT)
            o->grace = g->u.i, o->has_grace = true;
        o->propagation = kg_json_get_str(body, "propagationPolicy");
        kg_json *dr = kg_json_get(body, "dryRun");
        if (dr && dr->type == KG_JSON_ARRAY && dr->len)
            c->dry_run = true;
    }
    const char *g = kg_http_query(c->req, "gracePeriodSeconds");
    if (g && g[0])
        o->grace = strtoll(g, NULL, 10), o->has_grace = true;
    const char *p = kg_http_query(c->req, "propagationPolicy");
    if (p && p[0])
        o->propagation = p;
    if (o->propagation && strcmp(o->propagation, "Orphan") && strcmp(o->propagation, "Background") &&
        strcmp(o->propagation, "Foreground")) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        static const char *const valid[] = {"Foreground", "Background", "Orphan", "nil"};
        kg_field_not_supported(c->a, &errs, "propagationPolicy", o->propagation, valid, 4);
        fail(c, kg_status_invalid(c->a, KG_GK("meta.k8s.io", "DeleteOptions"), "", &errs));
        return false;
    }
    return true;
}

/* Delete one object (no HTTP). Returns the HTTP code on success (200), or fills *st. */
static int delete_one(rctx *c, const delete_opts *o, kg_status **st, kg_json **result, bool *returned_status)
{
    kg_arena *a = c->a;
    *returned_status = false;
    for (int attempt = 0; attempt < 100; attempt++) {
        kg_store_kv cur;
        kg_error err;
        const char *key = kg_resource_key(a, c->r, c->ns, c->name);
        if (!kg_store_get(c->s->store, key, a, &cur, &err)) {
            *st = err.code == KG_ENOTFOUND ? kg_status_not_found(a, c->gr, c->name) : kg_status_from_error(a, &err);
            return 0;
        }
        kg_json *old = kg_obj_decode(a, cur.value, cur.value_len, cur.mod_revision, &err);
        if (!old) {
            *st = kg_status_internal(a, "stored object is corrupt");
            return 0;
        }
        kg_json *omd = metadata_of(a, old);
        const char *uid = kg_json_get_str(omd, "uid");
        if (o->uid_pre && (!uid || strcmp(o->uid_pre, uid))) {
            *st = kg_status_conflict(a, c->gr, c->name,
                                     kg_arena_sprintf(a, "Precondition failed: UID in precondition: %s, UID in object "
                                                         "meta: %s",
                                                      o->uid_pre, uid ? uid : ""));
            return 0;
        }
        const char *orv = kg_json_get_str(omd, "resourceVersion");
        if (o->rv_pre && strcmp(o->rv_pre, orv)) {
            *st = kg_status_conflict(a, c->gr, c->name,
                                     kg_arena_sprintf(a,
                                                      "Precondition failed: ResourceVersion in precondition: %s, "
                                                      "ResourceVersion in object meta: %s",
                                                      o->rv_pre, orv));
            return 0;
        }
        kg_admission_attributes at;
        fill_attrs(c, &at, KG_ADMISSION_DELETE, c->r->group, c->r->version, c->r->kind, NULL, old);
        if ((*st = admit(c, &at)) || (*st = admit_validate(c, &at)))
            return 0;
        bool is_ns = !strcmp(c->r->plural, "namespaces") && !c->r->group[0];
        kg_json *fins = kg_json_get(omd, "finalizers");
        bool has_fins = fins && fins->type == KG_JSON_ARRAY && fins->len;
        if (is_ns || has_fins) {
            /* graceful: mark for deletion; finalizers (or the namespace controller) finish the job */
            if (kg_json_get(omd, "deletionTimestamp")) {
                *result = old;
                return 200;
            }
            kg_json *neu = kg_json_clone(a, old);
            kg_json *nmd = metadata_of(a, neu);
            kg_json_set(a, nmd, "deletionTimestamp", kg_json_new_str(a, kg_obj_now_rfc3339(a)));
            kg_json_set(a, nmd, "deletionGracePeriodSeconds", kg_json_new_int(a, 0));
            if (is_ns)
                kg_json_set(a, kg_json_get_or_add_object(a, neu, "status"), "phase", sref(a, "Terminating"));
            if (c->dry_run) {
                *result = neu;
                return 200;
            }
            size_t len;
            const char *bytes = kg_obj_encode(a, neu, &len);
            int64_t rev;
            if (!kg_store_update(c->s->store, key, bytes, len, cur.mod_revision, &rev, &err)) {
                if (err.code == KG_ECONFLICT)
                    continue;
                *st = kg_status_from_error(a, &err);
                return 0;
            }
            *result = kg_obj_decode(a, bytes, len, rev, &err);
            return 200;
        }
        if (c->dry_run) {
            *result = old;
            return 200;
        }
        int64_t rev;
        kg_store_kv deleted;
        if (!kg_store_delete(c->s->store, key, cur.mod_revision, a, &deleted, &rev, &err)) {
            if (err.code == KG_ECONFLICT)
                continue;
            *st = err.code == KG_ENOTFOUND ? kg_status_not_found(a, c->gr, c->name) : kg_status_from_error(a, &err);
            return 0;
        }
        if (!strcmp(c->r->plural, "pods") && !c->r->group[0]) {
            *result = kg_obj_decode(a, cur.value, cur.value_len, rev, &err);
        } else {
            *result = kg_status_to_json(a, kg_status_success_delete(a, c->gr, c->name, uid ? uid : ""));
            *returned_status = true;
        }
        return 200;
    }
    *st = kg_status_conflict(a, c->gr, c->name, KG_OPTIMISTIC_LOCK_MSG);
    return 0;
}

static void do_delete(rctx *c)
{
    delete_opts o;
    if (!parse_delete_options(c, &o))
        return;
    kg_status *st = NULL;
    kg_json *result = NULL;
    bool is_status;
    int code = delete_one(c, &o, &st, &result, &is_status);
    if (!code) {
        fail(c, st);
        return;
    }
    if (is_status)
        kg_http_respond_json(c->req, c->resp, code, result);
    else
        respond_obj(c, code, result);
}

static void do_deletecollection(rctx *c)
{
    delete_opts o;
    if (!parse_delete_options(c, &o))
        return;
    kg_selectors sel;
    kg_error err;
    if (!kg_selectors_parse(c->a, kg_http_query(c->req, "labelSelector"), kg_http_query(c->req, "fieldSelector"),
                            c->r, &sel, &err)) {
        fail(c, kg_status_bad_request(c->a, err.msg));
        return;
    }
    kg_store_list_opts lo = {0};
    kg_store_list_result res;
    if (!kg_store_list(c->s->store, kg_resource_list_prefix(c->a, c->r, c->ns), &lo, c->a, &res, &err)) {
        fail_err(c, &err);
        return;
    }
    kg_json *items = kg_json_new_array(c->a);
    for (size_t i = 0; i < res.n; i++) {
        kg_json *obj = kg_obj_decode(c->a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &err);
        if (!obj || !kg_selectors_match(&sel, obj))
            continue;
        const char *nm = kg_json_path_str(obj, "metadata.name");
        const char *ns = kg_json_path_str(obj, "metadata.namespace");
        rctx one = *c;
        one.name = nm ? nm : "";
        one.ns = ns ? ns : "";
        kg_status *st = NULL;
        kg_json *result = NULL;
        bool is_status;
        if (!delete_one(&one, &o, &st, &result, &is_status)) {
            if (st && kg_status_is(st, KG_REASON_NOT_FOUND))
                continue;
            fail(c, st);
            return;
        }
        kg_json_array_append(c->a, items, obj);
    }
    kg_json *list = kg_json_new_object(c->a);
    kg_json_set(c->a, list, "kind", sref(c->a, c->r->list_kind));
    kg_json_set(c->a, list, "apiVersion", sref(c->a, c->r->api_version));
    kg_json *md = kg_json_new_object(c->a);
    kg_json_set(c->a, md, "resourceVersion",
                kg_json_new_str(c->a, kg_arena_sprintf(c->a, "%lld", (long long)kg_store_current_revision(c->s->store))));
    kg_json_set(c->a, list, "metadata", md);
    kg_json_set(c->a, list, "items", items);
    kg_http_respond_json(c->req, c->resp, 200, list);
}

/* ---- binding ---- */

static void do_binding(rctx *c)
{
    kg_json *b = decode_object(c);
    if (!b)
        return;
    if (!check_type(c, b, "v1", "Binding"))
        return;
    const char *node = kg_json_path_str(b, "target.name");
    if (!node || !node[0]) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        kg_field_required(c->a, &errs, "target.name", NULL);
        fail(c, kg_status_invalid(c->a, KG_GK("", "Binding"), c->name, &errs));
        return;
    }
    /* CREATE pods/binding goes through admission like any create (PodTopologyLabels labels the Binding) */
    kg_admission_attributes at;
    fill_attrs(c, &at, KG_ADMISSION_CREATE, "", "v1", "Binding", b, NULL);
    kg_status *st = admit(c, &at);
    if (!st)
        st = admit_validate(c, &at);
    if (st) {
        fail(c, st);
        return;
    }
    node = kg_json_path_str(b, "target.name");
    for (int attempt = 0; attempt < 100; attempt++) {
        kg_store_kv cur;
        kg_json *old;
        if (!load_current(c, &cur, &old))
            return;
        const char *have = kg_json_path_str(old, "spec.nodeName");
        if (have && have[0]) {
            fail(c, kg_status_conflict(c->a, c->gr, c->name,
                                       kg_arena_sprintf(c->a, "pod %s is already assigned to node \"%s\"", c->name,
                                                        have)));
            return;
        }
        if (kg_json_path(old, "metadata.deletionTimestamp")) {
            fail(c, kg_status_conflict(c->a, c->gr, c->name,
                                       kg_arena_sprintf(c->a, "pod %s is being deleted, cannot be assigned to a host",
                                                        c->name)));
            return;
        }
        kg_json *neu = kg_json_clone(c->a, old);
        kg_json_set(c->a, kg_json_get_or_add_object(c->a, neu, "spec"), "nodeName", kg_json_new_str(c->a, node));
        /* the Binding's annotations and labels are copied onto the pod (setPodNodeAndMetadata) */
        static const char *const maps[] = {"annotations", "labels"};
        for (int mi = 0; mi < 2; mi++) {
            kg_json *src = kg_json_path(b, mi ? "metadata.labels" : "metadata.annotations");
            if (!src || src->type != KG_JSON_OBJECT || !src->len)
                continue;
            kg_json *dst = kg_json_get_or_add_object(c->a, metadata_of(c->a, neu), maps[mi]);
            for (uint32_t k = 0; k < src->len; k++)
                kg_json_setn(c->a, dst, src->u.members[k].key, src->u.members[k].key_len, src->u.members[k].val);
        }
        kg_json_del(metadata_of(c->a, neu), "resourceVersion");
        if (c->dry_run)
            break;
        size_t len;
        const char *bytes = kg_obj_encode(c->a, neu, &len);
        kg_error err;
        int64_t rev;
        if (!kg_store_update(c->s->store, kg_resource_key(c->a, c->r, c->ns, c->name), bytes, len, cur.mod_revision,
                             &rev, &err)) {
            if (err.code == KG_ECONFLICT)
                continue;
            fail_err(c, &err);
            return;
        }
        break;
    }
    kg_json *ok = kg_json_new_object(c->a);
    kg_json_set(c->a, ok, "kind", sref(c->a, "Status"));
    kg_json_set(c->a, ok, "apiVersion", sref(c->a, "v1"));
    kg_json_set(c->a, ok, "metadata", kg_json_new_object(c->a));
    kg_json_set(c->a, ok, "status", sref(c->a, "Success"));
    kg_json_set(c->a, ok, "code", kg_json_new_int(c->a, 201));
    kg_http_respond_json(c->req, c->resp, 201, ok);
}

/* ---- dispatch ---- */

void kg_rest_handle(kg_apiserver *s, kg_http_request *req, kg_http_response *resp, const kg_resource *r)
{
    const kg_request_info *ri = req->info;
    rctx c = {.s = s, .req = req, .resp = resp, .a = req->arena, .r = r, .ns = ri->namespace_, .name = ri->name};
    c.gr = KG_GR(r->group, r->plural);
    if (!strcmp(r->plural, "namespaces") && !r->group[0])
        c.ns = "";
    const char *verb = ri->verb;
    if (ri->subresource[0]) {
        c.sub = kg_resource_subresource(r, ri->subresource);
        if (!c.sub) {
            kg_respond_status(req, resp, kg_status_new(req->arena, 404, KG_REASON_NOT_FOUND,
                                                       "the server could not find the requested resource"));
            return;
        }
    }
    const char *dr = kg_http_query(req, "dryRun");
    if (dr) {
        if (strcmp(dr, "All")) {
            kg_respond_status(req, resp,
                              kg_status_bad_request(req->arena, kg_arena_sprintf(req->arena,
                                                                                 "Invalid dry run value: \"%s\"; the "
                                                                                 "only supported value is \"All\"",
                                                                                 dr)));
            return;
        }
        c.dry_run = true;
    }
    c.field_validation = kg_http_query(req, "fieldValidation");
    if (!c.field_validation || !c.field_validation[0])
        c.field_validation = "Warn";
    if (strcmp(c.field_validation, "Strict") && strcmp(c.field_validation, "Warn") &&
        strcmp(c.field_validation, "Ignore")) {
        kg_respond_status(req, resp,
                          kg_status_bad_request(req->arena, kg_arena_sprintf(req->arena,
                                                                             "fieldValidation must be one of "
                                                                             "\"Ignore\", \"Warn\", or \"Strict\", "
                                                                             "got \"%s\"",
                                                                             c.field_validation)));
        return;
    }
    if (r->namespaced && !c.ns[0] && (c.name[0] || !strcmp(verb, "create"))) {
        kg_respond_status(req, resp, kg_status_new(req->arena, 404, KG_REASON_NOT_FOUND,
                                                   "the server could not find the requested resource"));
        return;
    }
    unsigned need = 0;
    if (!strcmp(verb, "get")) need = KG_VERB_GET;
    else if (!strcmp(verb, "list")) need = KG_VERB_LIST;
    else if (!strcmp(verb, "watch")) need = KG_VERB_WATCH;
    else if (!strcmp(verb, "create")) need = KG_VERB_CREATE;
    else if (!strcmp(verb, "update")) need = KG_VERB_UPDATE;
    else if (!strcmp(verb, "patch")) need = KG_VERB_PATCH;
    else if (!strcmp(verb, "delete")) need = KG_VERB_DELETE;
    else if (!strcmp(verb, "deletecollection")) need = KG_VERB_DELETECOLLECTION;
    unsigned have = c.sub ? c.sub->verbs : r->verbs;
    if (!need || !(have & need)) {
        kg_respond_status(req, resp, kg_status_method_not_supported(req->arena, c.gr, verb));
        return;
    }
    if (c.sub) {
        if (c.sub->kind == KG_SUB_BINDING) {
            do_binding(&c);
            return;
        }
        if (!strcmp(verb, "get"))
            do_get(&c);
        else if (!strcmp(verb, "update"))
            do_update(&c);
        else
            do_patch(&c);
        return;
    }
    if (!strcmp(verb, "get")) do_get(&c);
    else if (!strcmp(verb, "list")) do_list(&c);
    else if (!strcmp(verb, "watch")) kg_rest_watch(s, req, resp, r);
    else if (!strcmp(verb, "create")) do_create(&c);
    else if (!strcmp(verb, "update")) do_update(&c);
    else if (!strcmp(verb, "patch")) do_patch(&c);
    else if (!strcmp(verb, "delete")) do_delete(&c);
    else do_deletecollection(&c);
}

bool kg_apiserver_delete_namespace_contents(kg_apiserver *s, const char *ns, size_t *remaining, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    *remaining = 0;
    bool ok = true;
    for (size_t i = 0; i < kg_resources_count(); i++) {
        const kg_resource *r = kg_resource_at(i);
        if (!r->namespaced)
            continue;
        kg_store_list_opts lo = {.keys_only = true};
        kg_store_list_result res;
        if (!kg_store_list(s->store, kg_resource_list_prefix(&a, r, ns), &lo, &a, &res, err)) {
            ok = false;
            break;
        }
        for (size_t k = 0; k < res.n; k++) {
            kg_store_kv cur;
            kg_error e2;
            if (!kg_store_get(s->store, res.items[k].key, &a, &cur, &e2))
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
                    kg_store_update(s->store, res.items[k].key, bytes, len, cur.mod_revision, NULL, &e2);
                }
                (*remaining)++;
                continue;
            }
            if (!kg_store_delete(s->store, res.items[k].key, cur.mod_revision, &a, NULL, NULL, &e2) &&
                e2.code != KG_ENOTFOUND)
                (*remaining)++;
        }
    }
    kg_arena_free(&a);
    return ok;
}
