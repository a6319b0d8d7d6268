/* The ImageReview v1alpha1 exchange (imagepolicy/admission.go, k8s.io/api/imagepolicy/v1alpha1):
 *
 *   request   {"kind":"ImageReview","apiVersion":"imagepolicy.k8s.io/v1alpha1","metadata":{"creationTimestamp":null},
 *              "spec":{"containers":[{"image":...}],"annotations":{...},"namespace":"..."},
 *              "status":{"allowed":false}}
 *   response  {"status":{"allowed":bool,"reason":"...","auditAnnotations":{...}}}
 *
 * spec.containers lists spec.containers[*].image then spec.initContainers[*].image (verbatim, duplicates kept), or for
 * the ephemeralcontainers subresource spec.ephemeralContainers[*].image only. spec.annotations keeps the pod
 * annotations whose key contains ".image-policy.k8s.io/", in key order (Go marshals maps sorted), and is omitted when
 * empty. The serialized spec is also the cache key, as upstream's. */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/imagepolicywebhook/imagepolicywebhook.h"

bool kg_ipw_applies(const kg_admission_attributes *at)
{
    return !strcmp(at->resource.group, "") && !strcmp(at->resource.resource, "pods") &&
           (!at->subresource[0] || !strcmp(at->subresource, "ephemeralcontainers"));
}

static void images(kg_arena *a, kg_json *out, const kg_json *list)
{
    for (uint32_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
        const char *img = kg_json_get_str(kg_json_at(list, i), "image");
        kg_json *c = kg_json_new_object(a);
        if (img && img[0]) /* Go's omitempty */
            kg_json_set(a, c, "image", kg_json_new_str(a, img));
        kg_json_array_append(a, out, c);
    }
}

static int by_key(const void *x, const void *y)
{
    const kg_json_member *const *p = x, *const *q = y;
    return strcmp((*p)->key, (*q)->key);
}

kg_json *kg_ipw_review_spec(kg_arena *a, const kg_admission_attributes *at)
{
    const kg_json *spec = kg_json_get(at->object, "spec");
    kg_json *out = kg_json_new_object(a);
    kg_json *containers = kg_json_new_array(a);
    if (!strcmp(at->subresource, "ephemeralcontainers")) {
        images(a, containers, kg_json_get(spec, "ephemeralContainers"));
    } else {
        images(a, containers, kg_json_get(spec, "containers"));
        images(a, containers, kg_json_get(spec, "initContainers"));
    }
    if (containers->len)
        kg_json_set(a, out, "containers", containers);
    const kg_json *ann = kg_json_path(at->object, "metadata.annotations");
    if (kg_json_is(ann, KG_JSON_OBJECT) && ann->len) {
        const kg_json_member **keep = kg_arena_alloc(a, ann->len * sizeof *keep);
        size_t n = 0;
        for (uint32_t i = 0; i < ann->len; i++) {
            const kg_json_member *m = &ann->u.members[i];
            if (kg_json_is(m->val, KG_JSON_STRING) && strstr(m->key, ".image-policy.k8s.io/"))
                keep[n++] = m;
        }
        if (n) {
            qsort(keep, n, sizeof *keep, by_key);
            kg_json *o = kg_json_new_object(a);
            for (size_t i = 0; i < n; i++)
                kg_json_setn(a, o, keep[i]->key, keep[i]->key_len, kg_json_new_str(a, keep[i]->val->u.s));
            kg_json_set(a, out, "annotations", o);
        }
    }
    if (at->ns[0])
        kg_json_set(a, out, "namespace", kg_json_new_str(a, at->ns));
    return out;
}

kg_json *kg_ipw_review_request(kg_arena *a, kg_json *spec)
{
    kg_json *r = kg_json_new_object(a);
    kg_json_set(a, r, "kind", kg_json_new_str(a, "ImageReview"));
    kg_json_set(a, r, "apiVersion", kg_json_new_str(a, "imagepolicy.k8s.io/v1alpha1"));
    kg_json *md = kg_json_new_object(a);
    kg_json_set(a, md, "creationTimestamp", kg_json_new_null(a));
    kg_json_set(a, r, "metadata", md);
    kg_json_set(a, r, "spec", spec);
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "allowed", kg_json_new_bool(a, false));
    kg_json_set(a, r, "status", st);
    return r;
}

bool kg_ipw_review_response(kg_arena *a, const char *body, size_t len, kg_ipw_verdict *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    out->reason = "";
    KG_ERROR_DECL(e);
    kg_json *r = kg_json_parse(a, body, len, &e);
    if (!r)
        return kg_err_set(err, KG_EINVAL, "%s", e.msg);
    if (!kg_json_is(r, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "json: cannot unmarshal %s into Go value of type v1alpha1.ImageReview",
                          kg_json_is(r, KG_JSON_ARRAY) ? "array" : "value");
    const kg_json *st = kg_json_get(r, "status");
    const kg_json *allowed = kg_json_get(st, "allowed");
    if (allowed && !kg_json_is(allowed, KG_JSON_BOOL) && !kg_json_is(allowed, KG_JSON_NULL))
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal value into Go struct field ImageReviewStatus.status.allowed of type "
                          "bool");
    out->allowed = kg_json_is(allowed, KG_JSON_BOOL) && allowed->b;
    const char *reason = kg_json_get_str(st, "reason");
    out->reason = reason ? reason : "";
    const kg_json *audit = kg_json_get(st, "auditAnnotations");
    out->audit = kg_json_is(audit, KG_JSON_OBJECT) && audit->len ? audit : NULL;
    return true;
}
