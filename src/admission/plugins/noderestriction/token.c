/* NodeRestriction for serviceaccounts/token (TokenRequest): a node may only request tokens bound to a pod (with its
 * uid) scheduled on itself; with ServiceAccountNodeAudienceRestriction (beta, on in v1.33) for at most one audience,
 * which the pod must reference (a projected serviceAccountToken, or a CSI driver's tokenRequests through an inline
 * CSI volume, a PVC or a generic ephemeral volume's PVC) unless the node is authorized for the verb
 * request-serviceaccounts-token-audience on that audience. */
#include <string.h>

#include "admission/plugins/noderestriction/noderestriction.h"
#include "base/buf.h"

/* csiDriverHasAudience; false with *err (the lister's text) when the driver is unknown */
static bool driver_has_audience(const kg_admission_attributes *a, const kg_admission_services *svc, const char *driver,
                                const char *audience, const char **err)
{
    KG_ERROR_DECL(e);
    const kg_json *d = kg_admission_view_obj(svc, a->arena, "csidrivers", "", driver, &e);
    if (!d) {
        *err = kg_arena_sprintf(a->arena, "csidriver.storage.k8s.io \"%s\" not found", driver);
        return false;
    }
    const kg_json *trs = kg_json_path(d, "spec.tokenRequests");
    for (size_t i = 0; kg_json_is(trs, KG_JSON_ARRAY) && i < trs->len; i++)
        if (!strcmp(kg_admission_pu_str(kg_json_at(trs, i), "audience"), audience))
            return true;
    return false;
}

/* getCSIFromPVC: the CSI driver of the PV bound to the claim ("" when none) or NULL with *err */
static const char *csi_from_pvc(const kg_admission_attributes *a, const kg_admission_services *svc, const char *ns,
                                const char *claim, const char **err)
{
    KG_ERROR_DECL(e);
    const kg_json *pvc = kg_admission_view_obj(svc, a->arena, "persistentvolumeclaims", ns, claim, &e);
    if (!pvc) {
        *err = kg_arena_sprintf(a->arena, "persistentvolumeclaim \"%s\" not found", claim);
        return NULL;
    }
    const char *pv_name = kg_json_path_str(pvc, "spec.volumeName");
    if (!pv_name || !*pv_name)
        return "";
    const kg_json *pv = kg_admission_view_obj(svc, a->arena, "persistentvolumes", "", pv_name, &e);
    if (!pv) {
        *err = kg_arena_sprintf(a->arena, "persistentvolume \"%s\" not found", pv_name);
        return NULL;
    }
    const char *driver = kg_json_path_str(pv, "spec.csi.driver");
    return driver ? driver : "";
}

/* podReferencesAudience: true, or false with *errs (utilerrors aggregate text, "" when none) */
static bool pod_references_audience(const kg_admission_attributes *a, const kg_admission_services *svc,
                                    const kg_json *pod, const char *audience, const char **errs)
{
    const char *ns = kg_json_path_str(pod, "metadata.namespace"), *pname = kg_json_path_str(pod, "metadata.name");
    const kg_json *vols = kg_json_path(pod, "spec.volumes");
    const char *errv[64];
    size_t nerr = 0;
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *v = kg_json_at(vols, i);
        const kg_json *srcs = kg_json_path(v, "projected.sources");
        for (size_t j = 0; kg_json_is(srcs, KG_JSON_ARRAY) && j < srcs->len; j++) {
            const kg_json *t = kg_json_get(kg_json_at(srcs, j), "serviceAccountToken");
            if (t && !strcmp(kg_admission_pu_str(t, "audience"), audience))
                return true;
        }
        const char *driver = NULL, *err = NULL;
        if (kg_json_path(v, "ephemeral.volumeClaimTemplate"))
            driver = csi_from_pvc(
                a, svc, ns ? ns : a->ns,
                kg_arena_sprintf(a->arena, "%s-%s", pname ? pname : "", kg_admission_pu_str(v, "name")), &err);
        else if (kg_json_get(v, "persistentVolumeClaim"))
            driver =
                csi_from_pvc(a, svc, ns ? ns : a->ns, kg_json_path_str(v, "persistentVolumeClaim.claimName"), &err);
        else if (kg_json_get(v, "csi"))
            driver = kg_json_path_str(v, "csi.driver");
        if (!err && driver && *driver && driver_has_audience(a, svc, driver, audience, &err))
            return true;
        if (err && nerr < 64)
            errv[nerr++] = err;
    }
    if (nerr == 1) {
        *errs = errv[0];
    } else if (nerr > 1) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_putc(&b, '[');
        for (size_t i = 0; i < nerr; i++)
            kg_buf_printf(&b, "%s%s", i ? ", " : "", errv[i]);
        kg_buf_putc(&b, ']');
        *errs = kg_arena_strndup(a->arena, b.data, b.len);
        kg_buf_free(&b);
    } else {
        *errs = "";
    }
    return false;
}

kg_status *kg_nr_admit_service_account(const char *node, const kg_admission_attributes *a,
                                       const kg_admission_services *svc)
{
    if (a->operation != KG_ADMISSION_CREATE || strcmp(a->subresource, "token"))
        return NULL;
    const kg_json *tr = a->object;
    if (!kg_admission_pu_obj_kind(tr, "TokenRequest") || !tr)
        return kg_admission_forbidden(a, "unexpected type *authentication.%s", kg_admission_pu_str(tr, "kind"));
    const kg_json *ref = kg_json_path(tr, "spec.boundObjectRef");
    if (!kg_json_is(ref, KG_JSON_OBJECT) || strcmp(kg_admission_pu_str(ref, "apiVersion"), "v1") ||
        strcmp(kg_admission_pu_str(ref, "kind"), "Pod") || !*kg_admission_pu_str(ref, "name"))
        return kg_admission_forbidden(a, "node requested token not bound to a pod");
    const char *uid = kg_admission_pu_str(ref, "uid");
    if (!*uid)
        return kg_admission_forbidden(a, "node requested token with a pod binding without a uid");
    kg_status *st = NULL;
    const kg_json *pod = kg_nr_get_pod(a, svc, kg_admission_pu_str(ref, "name"), &st);
    if (!pod)
        return st;
    const char *puid = kg_json_path_str(pod, "metadata.uid");
    if (strcmp(uid, puid ? puid : ""))
        return kg_admission_forbidden(a,
                                      "the UID in the bound object reference (%s) does not match the UID in record. "
                                      "The object might have been deleted and then recreated",
                                      uid);
    const char *pnode = kg_json_path_str(pod, "spec.nodeName");
    if (strcmp(pnode ? pnode : "", node))
        return kg_admission_forbidden(a, "node requested token bound to a pod scheduled on a different node");
    if (!kg_admission_feature(svc, "ServiceAccountNodeAudienceRestriction"))
        return NULL;
    const kg_json *auds = kg_json_path(tr, "spec.audiences");
    size_t naud = kg_json_is(auds, KG_JSON_ARRAY) ? auds->len : 0;
    if (naud > 1)
        return kg_admission_forbidden(a, "node may only request 0 or 1 audiences");
    if (naud == 0)
        return NULL;
    const kg_json *aud = kg_json_at(auds, 0);
    const char *audience = kg_json_is(aud, KG_JSON_STRING) ? aud->u.s : "";
    const char *errs = "";
    if (pod_references_audience(a, svc, pod, audience, &errs))
        return NULL;
    if (*errs)
        return kg_admission_forbidden(a, "error validating audience %s: %s", kg_admission_pu_quote(a->arena, audience),
                                      errs);
    kg_authz_attributes z = {.user = &a->user,
                             .verb = "request-serviceaccounts-token-audience",
                             .resource_request = true,
                             .namespace_ = a->ns,
                             .name = a->name,
                             .api_group = "",
                             .resource = audience};
    const char *reason = NULL;
    KG_ERROR_DECL(err);
    kg_authz_decision d = kg_admission_authorize(svc, &z, a->arena, &reason, &err);
    if (err.code)
        return kg_admission_forbidden(a, "error validating audience %s: %s", kg_admission_pu_quote(a->arena, audience),
                                      err.msg);
    if (d != KG_AUTHZ_ALLOW)
        return kg_admission_forbidden(a,
                                      "audience %s not found in pod spec volume, system:node:%s is not authorized to "
                                      "request tokens for this audience",
                                      kg_admission_pu_quote(a->arena, audience), pnode);
    return NULL;
}
