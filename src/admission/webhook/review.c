/* AdmissionReview (admission.k8s.io/v1 and v1beta1; upstream webhook/request/admissionreview.go): the request body a
 * webhook receives, and the checks of its answer (VerifyAdmissionResponse). Pure data, no I/O. */
#include <stdio.h>
#include <string.h>

#include "admission/webhook/call.h"
#include "base/base64.h"

/* ---- request ---- */

static const char *nz(const char *s)
{
    return s ? s : "";
}

static kg_json *gvk(kg_arena *a, const kg_gvk *k)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "group", kg_json_new_str(a, nz(k->group)));
    kg_json_set(a, o, "version", kg_json_new_str(a, nz(k->version)));
    kg_json_set(a, o, "kind", kg_json_new_str(a, nz(k->kind)));
    return o;
}

static kg_json *gvr(kg_arena *a, const kg_gvr *r)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "group", kg_json_new_str(a, nz(r->group)));
    kg_json_set(a, o, "version", kg_json_new_str(a, nz(r->version)));
    kg_json_set(a, o, "resource", kg_json_new_str(a, nz(r->resource)));
    return o;
}

/* authenticationv1.UserInfo: username, uid, groups, extra (the last three omitted when empty) */
static kg_json *user_info(kg_arena *a, const kg_admission_user *u)
{
    kg_json *o = kg_json_new_object(a);
    if (nz(u->name)[0])
        kg_json_set(a, o, "username", kg_json_new_str(a, u->name));
    if (nz(u->uid)[0])
        kg_json_set(a, o, "uid", kg_json_new_str(a, u->uid));
    if (u->ngroups) {
        kg_json *g = kg_json_new_array(a);
        for (size_t i = 0; i < u->ngroups; i++)
            kg_json_array_append(a, g, kg_json_new_str(a, u->groups[i]));
        kg_json_set(a, o, "groups", g);
    }
    if (u->nextra) {
        kg_json *ex = kg_json_new_object(a);
        for (size_t i = 0; i < u->nextra; i++) {
            kg_json *vs = kg_json_new_array(a);
            for (size_t k = 0; k < u->extra[i].nvalues; k++)
                kg_json_array_append(a, vs, kg_json_new_str(a, u->extra[i].values[k]));
            kg_json_set(a, ex, kg_arena_strdup(a, u->extra[i].key), vs);
        }
        kg_json_set(a, o, "extra", ex);
    }
    return o;
}

kg_json *kg_webhook_review_request(kg_arena *a, const kg_admission_attributes *at, const kg_match_invocation *inv,
                                   const char *version, const char *uid)
{
    kg_json *rq = kg_json_new_object(a);
    kg_json_set(a, rq, "uid", kg_json_new_str(a, uid));
    kg_json_set(a, rq, "kind", gvk(a, &inv->kind));
    kg_json_set(a, rq, "resource", gvr(a, &inv->resource));
    if (nz(inv->subresource)[0])
        kg_json_set(a, rq, "subResource", kg_json_new_str(a, inv->subresource));
    kg_json_set(a, rq, "requestKind", gvk(a, &at->request_kind));
    kg_json_set(a, rq, "requestResource", gvr(a, &at->request_resource));
    if (nz(at->request_subresource)[0])
        kg_json_set(a, rq, "requestSubResource", kg_json_new_str(a, at->request_subresource));
    if (nz(at->name)[0])
        kg_json_set(a, rq, "name", kg_json_new_str(a, at->name));
    if (nz(at->ns)[0])
        kg_json_set(a, rq, "namespace", kg_json_new_str(a, at->ns));
    kg_json_set(a, rq, "operation", kg_json_new_str(a, kg_admission_op_name(at->operation)));
    kg_json_set(a, rq, "userInfo", user_info(a, &at->user));
    /* RawExtension fields: null when absent, as upstream sends them */
    kg_json_set(a, rq, "object", at->object ? (kg_json *)at->object : kg_json_new_null(a));
    kg_json_set(a, rq, "oldObject", at->old_object ? (kg_json *)at->old_object : kg_json_new_null(a));
    kg_json_set(a, rq, "dryRun", kg_json_new_bool(a, at->dry_run));
    kg_json_set(a, rq, "options", at->options ? (kg_json *)at->options : kg_json_new_null(a));
    kg_json *rv = kg_json_new_object(a);
    kg_json_set(a, rv, "kind", kg_json_new_str(a, "AdmissionReview"));
    kg_json_set(a, rv, "apiVersion", kg_json_new_str(a, kg_arena_sprintf(a, "admission.k8s.io/%s", version)));
    kg_json_set(a, rv, "request", rq);
    return rv;
}

/* ---- response ---- */

static void call_error(kg_arena *a, kg_webhook_call *c, const char *fmt, const char *x, const char *y)
{
    c->outcome = KG_WEBHOOK_CALL_ERROR;
    c->error = kg_arena_sprintf(a, fmt, x, y);
}

/* Go's %q of a string, enough for uids and kinds. */
static const char *q(kg_arena *a, const char *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_json_write_string(&b, s, strlen(s), 0);
    const char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

/* schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>" */
static const char *gvk_string(kg_arena *a, const kg_json *review)
{
    const char *av = nz(kg_json_get_str(review, "apiVersion")), *kind = nz(kg_json_get_str(review, "kind"));
    const char *slash = strchr(av, '/');
    if (!slash)
        return kg_arena_sprintf(a, "/%s, Kind=%s", av, kind);
    return kg_arena_sprintf(a, "%.*s/%s, Kind=%s", (int)(slash - av), av, slash + 1, kind);
}

static void set_patch(kg_arena *a, kg_webhook_call *c, const char *b64)
{
    size_t n = 0;
    char *raw = kg_base64_decode(a, b64, strlen(b64), 0, &n, NULL);
    if (!raw) {
        c->outcome = KG_WEBHOOK_INTERNAL;
        c->error = "illegal base64 data in response.patch";
        return;
    }
    KG_ERROR_DECL(e);
    kg_json *p = n ? kg_json_parse(a, raw, n, &e) : NULL;
    if (n && !p) {
        c->outcome = KG_WEBHOOK_INTERNAL;
        c->error = kg_arena_strdup(a, e.msg);
        return;
    }
    if (p && p->type != KG_JSON_ARRAY) {
        c->outcome = KG_WEBHOOK_INTERNAL;
        c->error = "json: cannot unmarshal object into Go value of type jsonpatch.Patch";
        return;
    }
    c->patch = p && p->len ? p : NULL;
}

void kg_webhook_review_response(kg_arena *a, kg_webhook_call *c, const char *body, size_t len)
{
    static const char pre[] = "received invalid webhook response: ";
    const bool v1 = !strcmp(c->hook->review_version, "v1");
    KG_ERROR_DECL(e);
    kg_json *rv = kg_json_parse(a, body, len, &e);
    if (!rv || rv->type != KG_JSON_OBJECT) {
        call_error(a, c, "failed to call webhook: %s%s",
                   "the response is not an AdmissionReview object: ", rv ? "not a JSON object" : e.msg);
        return;
    }
    const kg_json *resp = kg_json_get(rv, "response");
    if (!kg_json_is(resp, KG_JSON_OBJECT)) {
        call_error(a, c, "%s%s", pre, "webhook response was absent");
        return;
    }
    const char *uid = kg_json_get_str(resp, "uid");
    if (v1 && strcmp(nz(uid), c->uid)) {
        call_error(a, c, "%s%s", pre,
                   kg_arena_sprintf(a, "expected response.uid=%s, got %s", q(a, c->uid), q(a, nz(uid))));
        return;
    }
    if (v1 && (strcmp(nz(kg_json_get_str(rv, "apiVersion")), "admission.k8s.io/v1") ||
               strcmp(nz(kg_json_get_str(rv, "kind")), "AdmissionReview"))) {
        call_error(a, c, "%s%s", pre,
                   kg_arena_sprintf(a, "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s",
                                    gvk_string(a, rv)));
        return;
    }
    const kg_json *allowed = kg_json_get(resp, "allowed");
    if (allowed && allowed->type != KG_JSON_BOOL && allowed->type != KG_JSON_NULL) {
        call_error(a, c, "failed to call webhook: %s%s", "json: cannot unmarshal into Go struct field ",
                   "AdmissionResponse.response.allowed of type bool");
        return;
    }
    const kg_json *patch = kg_json_get(resp, "patch"), *pt = kg_json_get(resp, "patchType");
    bool has_patch = kg_json_is(patch, KG_JSON_STRING) && patch->len > 0;
    bool has_pt = pt && pt->type != KG_JSON_NULL;
    const char *ptype = kg_json_is(pt, KG_JSON_STRING) ? pt->u.s : "";
    const char *bad = NULL;
    if (c->mutating && v1) {
        if (has_patch && !has_pt)
            bad = "webhook returned response.patch but not response.patchType";
        else if (has_pt && !has_patch)
            bad = "webhook returned response.patchType but not response.patch";
        else if (has_pt && !ptype[0])
            bad = "webhook returned invalid response.patchType of \"\"";
    } else if (!c->mutating && v1) {
        if (has_patch)
            bad = "validating webhook may not return response.patch";
        else if (has_pt)
            bad = "validating webhook may not return response.patchType";
    }
    if (bad) {
        call_error(a, c, "%s%s", pre, bad);
        return;
    }
    /* everything past here is kept whatever the verdict */
    const kg_json *w = kg_json_get(resp, "warnings");
    c->warnings = kg_json_is(w, KG_JSON_ARRAY) ? w : NULL;
    const kg_json *aa = kg_json_get(resp, "auditAnnotations");
    c->audit = kg_json_is(aa, KG_JSON_OBJECT) ? aa : NULL;
    if (!kg_json_is(allowed, KG_JSON_BOOL) || !allowed->b) { /* absent decodes as false, as in Go */
        c->outcome = KG_WEBHOOK_DENIED;
        const kg_json *st = kg_json_get(resp, "status");
        c->status = kg_json_is(st, KG_JSON_OBJECT) ? st : NULL;
        return;
    }
    c->outcome = KG_WEBHOOK_ALLOWED;
    if (!c->mutating || !has_patch)
        return;
    set_patch(a, c, patch->u.s);
    if (c->outcome == KG_WEBHOOK_ALLOWED && c->patch && v1 && strcmp(ptype, "JSONPatch"))
        call_error(a, c, "unsupported patch type %s%s", q(a, ptype), "");
}
