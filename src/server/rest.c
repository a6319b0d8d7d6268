/* The REST handlers of kgate serve: HTTP only. Reads (get, list; watch is in watch.c) are answered from the store
 * here; every write (create, update, patch, delete, deletecollection and the status / scale / binding /
 * ephemeralcontainers / approval subresources) is decoded from HTTP, handed to the write pipeline
 * (registry/pipeline.h, the same code every door uses) and its result rendered: the object (or a Table), a Status
 * on failure, and the request's warnings as `Warning: 299 - "..."` headers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/dynamic.h"
#include "api/protobuf.h"
#include "api/schema.h"
#include "api/table.h"
#include "api/versions.h"
#include "base/log.h"
#include "meta/patch.h"
#include "server/apiserver.h"
#include "server/negotiate.h"
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
    kg_field_validation field_validation;
    const char **dups; /* duplicate fields of the decoded body (JSON) */
    size_t ndups;
    kg_warnings warnings;
} rctx;

void kg_respond_status(kg_http_request *req, kg_http_response *resp, const kg_status *st)
{
    kg_buf b = KG_BUF_INIT;
    kg_status_write(&b, st);
    char *body = kg_arena_strndup(req->arena, kg_buf_cstr(&b), b.len);
    kg_http_respond_bytes(resp, kg_status_http_code(st), "application/json", body, b.len);
    kg_buf_free(&b);
}

static void fail(rctx *c, kg_status *st)
{
    kg_respond_status(c->req, c->resp, st);
}

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

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

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

static const char *const accepted_media[] = {"application/json", "application/yaml",
                                             "application/vnd.kubernetes.protobuf"};

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
        fail(c, kg_status_bad_request(
                    c->a, kg_arena_sprintf(c->a, "couldn't get version/kind; json parse error: %s", err.msg)));
        return NULL;
    }
    if (obj->type != KG_JSON_OBJECT) {
        fail(c, kg_status_bad_request(
                    c->a, kg_arena_sprintf(c->a,
                                           "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                           "%s into Go value of type struct { APIVersion string "
                                           "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                                           "\"json:\\\"kind,omitempty\\\"\" }",
                                           kg_json_type_name(obj->type))));
        return NULL;
    }
    return obj;
}

/* ---- responses ---- */

static void respond_stored(rctx *c, int code, const char *bytes, size_t len, int64_t rev)
{
    if (wants_table(c->req)) {
        kg_error err;
        kg_json *obj = kg_obj_decode(c->a, bytes, len, rev, &err);
        if (obj) { /* printed from the stored shape, which every served version shares (api/versions.h) */
            kg_obj_set_api_version(c->a, obj, kg_dynamic_read_as(c->r));
            kg_json *t = kg_api_table(c->a, kg_version_storage_resource(c->r), &obj, 1,
                                      kg_http_query(c->req, "includeObject"), "");
            kg_version_table_objects(c->a, c->r, t);
            kg_http_respond_json(c->req, c->resp, code, t);
            return;
        }
    }
    bytes = kg_version_stored_bytes(c->a, c->r, bytes, len, &len); /* in the requested version */
    kg_buf b = KG_BUF_INIT;
    kg_buf_reserve(&b, len + 48);
    kg_obj_splice_rv_as(c->a, &b, bytes, len, rev, kg_dynamic_read_as(c->r));
    char *body = kg_arena_strndup(c->a, b.data, b.len);
    kg_http_respond_bytes(c->resp, code, "application/json", body, b.len);
    kg_buf_free(&b);
}

static void respond_obj(rctx *c, int code, kg_json *obj)
{
    if (wants_table(c->req)) {
        kg_json *so = c->r->conv ? c->r->conv->to_storage(c->a, obj) : obj; /* printed in the stored shape */
        kg_json *t =
            kg_api_table(c->a, kg_version_storage_resource(c->r), &so, 1, kg_http_query(c->req, "includeObject"), "");
        kg_version_table_objects(c->a, c->r, t);
        kg_http_respond_json(c->req, c->resp, code, t);
        return;
    }
    kg_http_respond_json(c->req, c->resp, code, obj);
}

/* ---- writes: through the pipeline ---- */

/* A warning as an HTTP Warning header value: 299 - "<text>" with quotes and backslashes escaped. */
static const char *warning_header(kg_arena *a, const char *text)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "299 - \"");
    for (const char *p = text; *p; p++) {
        if (*p == '"' || *p == '\\')
            kg_buf_putc(&b, '\\');
        kg_buf_putc(&b, *p);
    }
    kg_buf_putc(&b, '"');
    char *out = kg_arena_strndup(a, b.data, b.len);
    kg_buf_free(&b);
    return out;
}

static void write_request(rctx *c, kg_write_request *rq)
{
    kg_write_request_init(rq, c->a, c->r);
    rq->sub = c->sub;
    rq->ns = c->ns;
    rq->name = c->name;
    rq->dry_run = c->dry_run;
    rq->field_validation = c->field_validation;
    rq->field_manager = kg_http_query(c->req, "fieldManager");
    rq->user_agent = kg_http_header_get(c->req, "User-Agent");
    rq->dup_fields = c->dups;
    rq->ndup_fields = c->ndups;
    rq->body = c->req->body;
    rq->body_len = c->req->body_len;
    rq->warnings = &c->warnings;
    rq->audit_annotations = c->req->audit_annotations;
    rq->deadline_ns = c->req->deadline_ms > 0 ? c->req->deadline_ms * 1000000 : 0; /* ?timeout= included */
    rq->user = *c->req->user; /* the one user type (auth/user.h): name, uid, groups and extra */
    if (!rq->user.name)
        rq->user.name = "";
    if (!rq->user.uid)
        rq->user.uid = "";
}

/* Render a pipeline result: warnings first (headers), then the Status, the stored bytes or the object. */
static void respond_result(rctx *c, const kg_write_result *res)
{
    for (size_t i = 0; i < c->warnings.n; i++)
        kg_http_add_header(c->req, c->resp, "Warning", warning_header(c->a, c->warnings.items[i]));
    if (res->status)
        fail(c, res->status);
    else if (res->bytes)
        respond_stored(c, res->code, res->bytes, res->len, res->rev);
    else if (res->object_is_status)
        kg_http_respond_json(c->req, c->resp, res->code, res->object);
    else
        respond_obj(c, res->code, res->object);
}

static const kg_pipeline *pipeline(rctx *c)
{
    return &c->s->pipeline;
}

static void do_create(rctx *c)
{
    kg_json *obj = decode_object(c);
    if (!obj)
        return;
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_create(pipeline(c), &rq, obj, &res);
    respond_result(c, &res);
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
    if (!kg_selectors_parse(c->a, kg_http_query(c->req, "labelSelector"), kg_http_query(c->req, "fieldSelector"), c->r,
                            &sel, &err)) {
        fail(c, kg_status_bad_request(c->a, err.msg));
        return;
    }
    int64_t limit, rv = 0;
    if (!parse_int_param(c, "limit", &limit))
        return;
    const char *rvs = kg_http_query(c->req, "resourceVersion");
    const char *match = kg_http_query(c->req, "resourceVersionMatch");
    kg_status *lo_err = kg_negotiate_list_options(c->a, rvs, match, kg_http_query(c->req, "continue"));
    if (lo_err) {
        fail(c, lo_err);
        return;
    }
    if (rvs && rvs[0] && strcmp(rvs, "0")) {
        char *end;
        rv = strtoll(rvs, &end, 10);
        if (*end || rv < 0) {
            fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "invalid resource version: %s", rvs)));
            return;
        }
        if (!match || strcmp(match, "Exact")) {
            kg_status *tl = kg_negotiate_too_large_rv(c->a, rv, kg_store_current_revision(c->s->store));
            if (tl) {
                fail(c, tl);
                return;
            }
            rv = 0; /* NotOlderThan / legacy semantics: the latest state is not older than rv */
        }
    }
    kg_store_list_opts lo = {
        .revision = rv, .limit = sel.empty ? limit : 0, .continue_token = kg_http_query(c->req, "continue")};
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
            kg_json *o =
                kg_obj_decode(c->a, res.items[i].value, res.items[i].value_len, res.items[i].mod_revision, &err);
            if (o && kg_selectors_match(&sel, kg_version_from_storage(c->a, c->r, o))) {
                kg_obj_set_api_version(c->a, o, kg_dynamic_read_as(c->r));
                objs[n++] = o;
            }
        }
        kg_json *t =
            kg_api_table(c->a, kg_version_storage_resource(c->r), objs, n, kg_http_query(c->req, "includeObject"),
                         kg_arena_sprintf(c->a, "%lld", (long long)res.revision));
        kg_version_table_objects(c->a, c->r, t);
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
        const char *val = res.items[i].value;
        size_t vlen = res.items[i].value_len;
        if (c->r->conv) /* stored as another version: converted, then selected (api/versions.h) */
            val = kg_version_stored_bytes(c->a, c->r, val, vlen, &vlen);
        if (!sel.empty) {
            kg_json *o = kg_json_parse(c->a, val, vlen, &err);
            if (!o || !kg_selectors_match(&sel, o))
                continue;
        }
        if (!first)
            kg_buf_putc(&b, ',');
        first = false;
        kg_obj_splice_rv_as(c->a, &b, val, vlen, res.items[i].mod_revision, kg_dynamic_read_as(c->r));
    }
    kg_buf_puts(&b, "]}");
    char *body = kg_arena_strndup(c->a, b.data, b.len);
    kg_http_respond_bytes(c->resp, 200, "application/json", body, b.len);
    kg_buf_free(&b);
}

static void do_update(rctx *c)
{
    kg_json *obj = decode_object(c);
    if (!obj)
        return;
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_update(pipeline(c), &rq, obj, &res);
    respond_result(c, &res);
}

/* Server-side apply: PATCH with application/apply-patch+yaml (the body YAML or JSON), ?force=true|false. */
static void do_apply(rctx *c)
{
    kg_error err;
    kg_json *config = kg_yaml_or_json_parse(c->a, c->req->body, c->req->body_len, &err);
    if (!config) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "error decoding YAML: %s", err.msg)));
        return;
    }
    const char *force = kg_http_query(c->req, "force");
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_apply(pipeline(c), &rq, config, force && !strcmp(force, "true"), &res);
    respond_result(c, &res);
}

static void do_patch(rctx *c)
{
    kg_patch_format type;
    const char *ct = kg_http_header_get(c->req, "Content-Type");
    if (ct && !strncasecmp(ct, "application/apply-patch+yaml", 28) && (!ct[28] || ct[28] == ';' || ct[28] == ' ')) {
        do_apply(c);
        return;
    }
    if (!kg_patch_format_from_content_type(ct, &type)) {
        static const char *const patch_media[] = {"application/json-patch+json", "application/merge-patch+json",
                                                  "application/strategic-merge-patch+json",
                                                  "application/apply-patch+yaml"};
        fail(c, kg_status_unsupported_media_type(c->a, patch_media, 4));
        return;
    }
    const char *force = kg_http_query(c->req, "force");
    if (force && force[0]) {
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        kg_field_forbidden(c->a, &errs, "force", "may not be specified for non-apply patch");
        fail(c, kg_status_invalid(c->a, KG_GK("meta.k8s.io", "PatchOptions"), "", &errs));
        return;
    }
    kg_error err;
    kg_json *patch = kg_json_parse(c->a, c->req->body, c->req->body_len, &err);
    if (!patch) {
        fail(c, kg_status_bad_request(c->a, kg_arena_sprintf(c->a, "error decoding patch: %s", err.msg)));
        return;
    }
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_patch(pipeline(c), &rq, type, patch, &res);
    respond_result(c, &res);
}

/* DeleteOptions from the body and the query (gracePeriodSeconds, propagationPolicy, dryRun). */
static kg_json *delete_options(rctx *c)
{
    kg_json *o;
    kg_status *st;
    if (!kg_delete_options_build(c->a, c->req->body, c->req->body_len, kg_http_query(c->req, "gracePeriodSeconds"),
                                 kg_http_query(c->req, "propagationPolicy"), c->dry_run, &o, &st)) {
        fail(c, st);
        return NULL;
    }
    return o;
}

static void do_delete(rctx *c)
{
    kg_json *o = delete_options(c);
    if (!o)
        return;
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_delete(pipeline(c), &rq, o, &res);
    respond_result(c, &res);
}

static bool selectors_match(void *ud, const kg_json *obj)
{
    return kg_selectors_match(ud, obj);
}

static void do_deletecollection(rctx *c)
{
    kg_json *o = delete_options(c);
    if (!o)
        return;
    kg_selectors sel;
    kg_error err;
    if (!kg_selectors_parse(c->a, kg_http_query(c->req, "labelSelector"), kg_http_query(c->req, "fieldSelector"), c->r,
                            &sel, &err)) {
        fail(c, kg_status_bad_request(c->a, err.msg));
        return;
    }
    kg_write_request rq;
    write_request(c, &rq);
    kg_write_result res;
    kg_pipeline_delete_collection(pipeline(c), &rq, o, selectors_match, &sel, &res);
    respond_result(c, &res);
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
            kg_respond_status(req, resp,
                              kg_status_new(req->arena, 404, KG_REASON_NOT_FOUND,
                                            "the server could not find the requested resource"));
            return;
        }
    }
    kg_status *nst = kg_negotiate_accept(req->arena, kg_http_header_get(req, "Accept"), !strcmp(ri->verb, "watch"));
    if (nst) {
        kg_respond_status(req, resp, nst);
        return;
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
    kg_status *fv_err;
    if (!kg_field_validation_parse(req->arena, kg_http_query(req, "fieldValidation"), &c.field_validation, &fv_err)) {
        kg_respond_status(req, resp, fv_err);
        return;
    }
    if (r->namespaced && !c.ns[0] && (c.name[0] || !strcmp(verb, "create"))) {
        kg_respond_status(
            req, resp,
            kg_status_new(req->arena, 404, KG_REASON_NOT_FOUND, "the server could not find the requested resource"));
        return;
    }
    unsigned need = 0;
    if (!strcmp(verb, "get"))
        need = KG_VERB_GET;
    else if (!strcmp(verb, "list"))
        need = KG_VERB_LIST;
    else if (!strcmp(verb, "watch"))
        need = KG_VERB_WATCH;
    else if (!strcmp(verb, "create"))
        need = KG_VERB_CREATE;
    else if (!strcmp(verb, "update"))
        need = KG_VERB_UPDATE;
    else if (!strcmp(verb, "patch"))
        need = KG_VERB_PATCH;
    else if (!strcmp(verb, "delete"))
        need = KG_VERB_DELETE;
    else if (!strcmp(verb, "deletecollection"))
        need = KG_VERB_DELETECOLLECTION;
    unsigned have = c.sub ? c.sub->verbs : r->verbs;
    if (!need || !(have & need)) {
        kg_respond_status(req, resp, kg_status_method_not_supported(req->arena, c.gr, verb));
        return;
    }
    kg_warnings_init(&c.warnings, req->arena);
    if (c.sub) {
        if (c.sub->kind == KG_SUB_BINDING || c.sub->kind == KG_SUB_EVICTION) {
            do_create(&c);
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
    if (!strcmp(verb, "get"))
        do_get(&c);
    else if (!strcmp(verb, "list"))
        do_list(&c);
    else if (!strcmp(verb, "watch"))
        kg_rest_watch(s, req, resp, r);
    else if (!strcmp(verb, "create"))
        do_create(&c);
    else if (!strcmp(verb, "update"))
        do_update(&c);
    else if (!strcmp(verb, "patch"))
        do_patch(&c);
    else if (!strcmp(verb, "delete"))
        do_delete(&c);
    else
        do_deletecollection(&c);
}

bool kg_apiserver_delete_namespace_contents(kg_apiserver *s, const char *ns, size_t *remaining, kg_error *err)
{
    return kg_pipeline_delete_namespace_contents(s->store, ns, remaining, err);
}
