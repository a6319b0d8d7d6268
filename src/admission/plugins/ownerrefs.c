/* OwnerReferencesPermissionEnforcement (plugin/pkg/admission/gc), validating, CREATE/UPDATE of anything but
 * pods/status:
 *   - changing metadata.ownerReferences on UPDATE needs `delete` on the object itself (creating with owner
 *     references is always allowed: the creator could have not created it);
 *   - setting blockOwnerDeletion=true on a reference (new by UID, or previously unset/false) needs `update` on the
 *     owner's `finalizers` subresource, the owner's resource found from apiVersion/kind through the services'
 *     resource_for_kind (upstream's RESTMapper; services without one guess the plural).
 * The questions go to the services' authorizer; only Allow passes. Messages end in upstream's "%v, %v" of the
 * authorizer's reason and error ("<nil>" when there is none). */
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"

static const kg_json *owner_refs(const kg_json *obj)
{
    const kg_json *r = kg_json_path(obj, "metadata.ownerReferences");
    return kg_json_is(r, KG_JSON_ARRAY) ? r : NULL;
}

static size_t nrefs(const kg_json *refs)
{
    return refs ? refs->len : 0;
}

/* isChangingOwnerReference */
static bool changing(const kg_json *obj, const kg_json *old)
{
    const kg_json *n = owner_refs(obj);
    if (!old)
        return nrefs(n) > 0;
    const kg_json *o = owner_refs(old);
    if (nrefs(n) != nrefs(o))
        return true;
    for (size_t i = 0; i < nrefs(o); i++)
        if (!kg_json_equal(kg_json_at(o, i), kg_json_at(n, i)))
            return true;
    return false;
}

static bool blocking(const kg_json *ref)
{
    const kg_json *b = kg_json_get(ref, "blockOwnerDeletion");
    return kg_json_is(b, KG_JSON_BOOL) && b->b;
}

/* newBlockingOwnerDeletionRefs: blocking in obj and not blocking (or absent by uid) in old */
static bool newly_blocking(const kg_json *ref, const kg_json *old)
{
    if (!blocking(ref))
        return false;
    if (!old)
        return true;
    const char *uid = kg_admission_pu_str(ref, "uid");
    const kg_json *o = owner_refs(old);
    const kg_json *match = NULL;
    for (size_t i = 0; i < nrefs(o); i++)
        if (!strcmp(kg_admission_pu_str(kg_json_at(o, i), "uid"), uid))
            match = kg_json_at(o, i); /* indexByUID: the last one wins */
    return !match || !blocking(match);
}

static const char *why(kg_arena *ar, const char *reason, const kg_error *err)
{
    return kg_arena_sprintf(ar, "%s, %s", reason ? reason : "", err->code ? err->msg : "<nil>");
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    if (!strcmp(a->resource.group, "") && !strcmp(a->resource.resource, "pods") && !strcmp(a->subresource, "status"))
        return NULL;
    if (!kg_json_is(a->object, KG_JSON_OBJECT))
        return NULL;
    const kg_json *old = a->operation == KG_ADMISSION_CREATE ? NULL : a->old_object;
    if (!changing(a->object, old))
        return NULL;
    if (a->operation != KG_ADMISSION_CREATE) {
        kg_authz_attributes z = {.user = &a->user,
                                 .verb = "delete",
                                 .resource_request = true,
                                 .namespace_ = a->ns,
                                 .api_group = a->resource.group,
                                 .api_version = a->resource.version,
                                 .resource = a->resource.resource,
                                 .subresource = a->subresource,
                                 .name = a->name};
        const char *reason = NULL;
        KG_ERROR_DECL(err);
        if (kg_admission_authorize(svc, &z, a->arena, &reason, &err) != KG_AUTHZ_ALLOW)
            return kg_admission_forbidden(a, "cannot set an ownerRef on a resource you can't delete: %s",
                                          why(a->arena, reason, &err));
    }
    const kg_json *refs = owner_refs(a->object);
    for (size_t i = 0; i < nrefs(refs); i++) {
        const kg_json *ref = kg_json_at(refs, i);
        if (!newly_blocking(ref, old))
            continue;
        const char *api_version = kg_admission_pu_str(ref, "apiVersion"), *kind = kg_admission_pu_str(ref, "kind");
        /* schema.ParseGroupVersion */
        const char *slash = strchr(api_version, '/');
        const char *group = "", *version = api_version;
        if (slash) {
            if (strchr(slash + 1, '/'))
                return kg_admission_forbidden(
                    a,
                    "cannot set blockOwnerDeletion in this case because cannot find "
                    "RESTMapping for APIVersion %s Kind %s: unexpected GroupVersion string: %s",
                    api_version, kind, api_version);
            group = kg_arena_strndup(a->arena, api_version, (size_t)(slash - api_version));
            version = slash + 1;
        }
        const char *plural = NULL;
        bool namespaced = false;
        if (!*kind || !kg_admission_resource_for_kind(svc, a->arena, group, version, kind, &plural, &namespaced))
            return kg_admission_forbidden(a,
                                          "cannot set blockOwnerDeletion in this case because cannot find RESTMapping "
                                          "for APIVersion %s Kind %s: no matches for kind \"%s\" in version \"%s\"",
                                          api_version, kind, kind, api_version);
        kg_authz_attributes z = {.user = &a->user,
                                 .verb = "update",
                                 .resource_request = true,
                                 .namespace_ = a->ns,
                                 .api_group = group,
                                 .api_version = version,
                                 .resource = plural,
                                 .subresource = "finalizers",
                                 .name = kg_admission_pu_str(ref, "name")};
        const char *reason = NULL;
        KG_ERROR_DECL(err);
        if (kg_admission_authorize(svc, &z, a->arena, &reason, &err) != KG_AUTHZ_ALLOW)
            return kg_admission_forbidden(a,
                                          "cannot set blockOwnerDeletion if an ownerReference refers to a resource "
                                          "you can't set finalizers on: %s",
                                          why(a->arena, reason, &err));
    }
    return NULL;
}

const kg_admission_plugin kg_admission_plugin_owner_references_permission_enforcement = {
    .name = "OwnerReferencesPermissionEnforcement",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .validate = validate,
};
