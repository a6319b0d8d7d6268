/* NamespaceAutoProvision (plugin/pkg/admission/namespace/autoprovision), mutating, CREATE only: creates the
 * namespace of a namespaced object when it does not exist yet. Never on dry-run. Idempotent: once the namespace
 * exists (or creating it reports AlreadyExists) nothing more happens. */
#include "admission/plugin.h"
#include "admission/registry.h"

/* admission.NewForbidden(a, err): an error that already is a Forbidden Status is passed through unchanged */
static kg_status *forbidden(kg_admission_attributes *a, const kg_error *e)
{
    if (e->code == KG_EFORBIDDEN)
        return kg_status_new(a->arena, 403, KG_REASON_FORBIDDEN, e->msg);
    return kg_admission_forbidden(a, "%s", e->msg);
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (a->dry_run)
        return NULL; /* a side effect: never for dry-run requests */
    if (!a->ns[0] || kg_admission_is_namespace_kind(a))
        return NULL;
    if (!kg_admission_wait_ready(svc, "namespaces"))
        return kg_admission_forbidden(a, "not yet ready to handle request");
    KG_ERROR_DECL(e);
    if (kg_admission_view(svc, a->arena, "namespaces", "", a->ns, &e))
        return NULL;
    if (e.code != KG_ENOTFOUND)
        return forbidden(a, &e);
    kg_arena *ar = a->arena;
    kg_json *ns = kg_json_new_object(ar);
    kg_json_set(ar, ns, "apiVersion", kg_json_new_str(ar, "v1"));
    kg_json_set(ar, ns, "kind", kg_json_new_str(ar, "Namespace"));
    kg_json *md = kg_json_new_object(ar);
    kg_json_set(ar, md, "name", kg_json_new_str(ar, a->ns));
    kg_json_set(ar, ns, "metadata", md);
    kg_json_set(ar, ns, "spec", kg_json_new_object(ar));
    kg_json_set(ar, ns, "status", kg_json_new_object(ar));
    kg_err_clear(&e);
    if (!svc || !svc->create) {
        kg_err_set(&e, KG_EUNSUPPORTED, "no client to create namespace %s", a->ns);
        return forbidden(a, &e);
    }
    if (!svc->create(svc->ctx, ar, "namespaces", "", ns, &e) && e.code != KG_EEXIST)
        return forbidden(a, &e);
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_namespace_autoprovision = {
    .name = "NamespaceAutoProvision",
    .handles = KG_ADMISSION_CREATE,
    .admit = admit,
};
