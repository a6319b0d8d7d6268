/* AdmissionReview decoding and answering for `kgate webhook` (see review.h). */
#include "webhookdoor/review.h"

#include <string.h>

#include "admission/warnings.h"
#include "base/base64.h"

static const char *str_at(kg_arena *a, const kg_json *o, const char *key)
{
    const char *s = kg_json_get_str(o, key);
    return s ? kg_arena_strdup(a, s) : "";
}

static kg_gvk gvk_of(kg_arena *a, const kg_json *o)
{
    return (kg_gvk){str_at(a, o, "group"), str_at(a, o, "version"), str_at(a, o, "kind")};
}

static kg_gvr gvr_of(kg_arena *a, const kg_json *o)
{
    return (kg_gvr){str_at(a, o, "group"), str_at(a, o, "version"), str_at(a, o, "resource")};
}

/* A RawExtension field: NULL when absent or null. */
static kg_json *raw(const kg_json *rq, const char *key)
{
    kg_json *v = kg_json_get(rq, key);
    return v && v->type != KG_JSON_NULL ? v : NULL;
}

/* string array → arena array of strings (non-strings skipped) */
static const char **strings(kg_arena *a, const kg_json *arr, size_t *n)
{
    *n = 0;
    if (!kg_json_is(arr, KG_JSON_ARRAY) || !arr->len)
        return NULL;
    const char **out = kg_arena_alloc(a, arr->len * sizeof *out);
    for (uint32_t i = 0; i < arr->len; i++)
        if (kg_json_is(arr->u.items[i], KG_JSON_STRING))
            out[(*n)++] = arr->u.items[i]->u.s;
    return out;
}

static void user_of(kg_arena *a, const kg_json *ui, kg_admission_user *u)
{
    u->name = str_at(a, ui, "username");
    u->uid = str_at(a, ui, "uid");
    u->groups = strings(a, kg_json_get(ui, "groups"), &u->ngroups);
    const kg_json *ex = kg_json_get(ui, "extra");
    if (kg_json_is(ex, KG_JSON_OBJECT) && ex->len) {
        kg_user_extra *e = kg_arena_alloc(a, ex->len * sizeof *e);
        for (uint32_t i = 0; i < ex->len; i++) {
            e[i].key = ex->u.members[i].key;
            e[i].values = strings(a, ex->u.members[i].val, &e[i].nvalues);
        }
        u->extra = e;
        u->nextra = ex->len;
    }
}

bool kg_door_review_decode(kg_arena *a, const char *body, size_t len, kg_door_review *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    kg_json *rv = kg_json_parse(a, body, len, err);
    if (!rv)
        return false;
    if (rv->type != KG_JSON_OBJECT) {
        kg_err_set(err, KG_EINVAL, "the body is not an AdmissionReview object");
        return false;
    }
    const char *av = kg_json_get_str(rv, "apiVersion"), *kind = kg_json_get_str(rv, "kind");
    if (!kind || strcmp(kind, "AdmissionReview") || !av ||
        (strcmp(av, "admission.k8s.io/v1") && strcmp(av, "admission.k8s.io/v1beta1"))) {
        kg_err_set(err, KG_EINVAL,
                   "unsupported kind \"%s\" of apiVersion \"%s\": expected AdmissionReview of "
                   "admission.k8s.io/v1 or admission.k8s.io/v1beta1",
                   kind ? kind : "", av ? av : "");
        return false;
    }
    out->version = strchr(av, '/') + 1;
    const kg_json *rq = kg_json_get(rv, "request");
    if (!kg_json_is(rq, KG_JSON_OBJECT)) {
        kg_err_set(err, KG_EINVAL, "the AdmissionReview has no request");
        return false;
    }
    kg_admission_attributes *at = &out->attrs;
    kg_admission_attrs_init(at, a);
    kg_warnings *w = kg_arena_alloc(a, sizeof *w);
    kg_warnings_init(w, a);
    at->warnings = w;
    const char *op = kg_json_get_str(rq, "operation");
    if (!op || !kg_admission_op_parse(op, &at->operation)) {
        kg_err_set(err, KG_EINVAL, "unsupported operation \"%s\"", op ? op : "");
        return false;
    }
    at->uid = str_at(a, rq, "uid");
    at->kind = gvk_of(a, kg_json_get(rq, "kind"));
    at->resource = gvr_of(a, kg_json_get(rq, "resource"));
    at->subresource = str_at(a, rq, "subResource");
    const kg_json *rk = kg_json_get(rq, "requestKind"), *rr = kg_json_get(rq, "requestResource");
    at->request_kind = kg_json_is(rk, KG_JSON_OBJECT) ? gvk_of(a, rk) : at->kind;
    at->request_resource = kg_json_is(rr, KG_JSON_OBJECT) ? gvr_of(a, rr) : at->resource;
    at->request_subresource =
        kg_json_get(rq, "requestSubResource") ? str_at(a, rq, "requestSubResource") : at->subresource;
    at->name = str_at(a, rq, "name");
    at->ns = str_at(a, rq, "namespace");
    user_of(a, kg_json_get(rq, "userInfo"), &at->user);
    at->object = raw(rq, "object");
    at->old_object = raw(rq, "oldObject");
    const kg_json *dry = kg_json_get(rq, "dryRun");
    at->dry_run = kg_json_is(dry, KG_JSON_BOOL) && dry->b;
    at->options = raw(rq, "options");
    return true;
}

kg_json *kg_door_review_response(kg_arena *a, const kg_door_review *rv, const kg_status *st, const kg_json *patch)
{
    const kg_admission_attributes *at = &rv->attrs;
    kg_json *resp = kg_json_new_object(a);
    kg_json_set(a, resp, "uid", kg_json_new_str(a, at->uid));
    kg_json_set(a, resp, "allowed", kg_json_new_bool(a, st == NULL));
    if (st) {
        kg_json *s = kg_status_to_json(a, st);
        /* metav1.Status inside the response: its list metadata and type fields carry nothing for the caller */
        kg_json_del(s, "kind");
        kg_json_del(s, "apiVersion");
        kg_json_set(a, resp, "status", s);
    } else if (patch && patch->len) {
        size_t n;
        char *text = kg_json_to_string(a, patch, 0, &n);
        kg_json_set(a, resp, "patch", kg_json_new_str(a, kg_base64_encode(a, text, n, 0, NULL)));
        kg_json_set(a, resp, "patchType", kg_json_new_str(a, "JSONPatch"));
    }
    if (at->warnings && at->warnings->n) {
        kg_json *w = kg_json_new_array(a);
        for (size_t i = 0; i < at->warnings->n; i++)
            kg_json_array_append(a, w, kg_json_new_str(a, at->warnings->items[i]));
        kg_json_set(a, resp, "warnings", w);
    }
    if (kg_json_is(at->annotations, KG_JSON_OBJECT) && at->annotations->len)
        kg_json_set(a, resp, "auditAnnotations", at->annotations);
    kg_json *out = kg_json_new_object(a);
    kg_json_set(a, out, "kind", kg_json_new_str(a, "AdmissionReview"));
    kg_json_set(a, out, "apiVersion", kg_json_new_str(a, kg_arena_sprintf(a, "admission.k8s.io/%s", rv->version)));
    kg_json_set(a, out, "response", resp);
    return out;
}
