/* CustomResourceDefinition defaults, status and validation (crd.h). */
#include "apiext/crd.h"

#include <ctype.h>
#include <string.h>

#include "api/dynamic.h"
#include "meta/names.h"

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

static char *lower(kg_arena *a, const char *s)
{
    char *o = kg_arena_strdup(a, s);
    for (char *p = o; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return o;
}

/* ---- conditions ---- */

bool kg_crd_condition_true(const kg_json *crd, const char *type)
{
    kg_json *conds = kg_json_path(crd, "status.conditions");
    for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
        const char *t = kg_json_get_str(conds->u.items[i], "type");
        const char *st = kg_json_get_str(conds->u.items[i], "status");
        if (t && st && !strcmp(t, type))
            return !strcmp(st, "True");
    }
    return false;
}

/* Set condition `type`, keeping its lastTransitionTime when the status does not change. */
static void set_condition(kg_arena *a, kg_json *conds, const kg_json *old_conds, const char *type, const char *status,
                          const char *reason, const char *message, const char *now)
{
    const char *since = now;
    for (uint32_t i = 0; old_conds && old_conds->type == KG_JSON_ARRAY && i < old_conds->len; i++) {
        const kg_json *c = old_conds->u.items[i];
        const char *t = kg_json_get_str(c, "type"), *st = kg_json_get_str(c, "status");
        const char *lt = kg_json_get_str(c, "lastTransitionTime");
        if (t && !strcmp(t, type) && st && !strcmp(st, status) && lt)
            since = lt;
    }
    kg_json *c = kg_json_new_object(a);
    kg_json_set(a, c, "type", sref(a, type));
    kg_json_set(a, c, "status", sref(a, status));
    kg_json_set(a, c, "lastTransitionTime", kg_json_new_str(a, since));
    kg_json_set(a, c, "reason", sref(a, reason));
    kg_json_set(a, c, "message", kg_json_new_str(a, message));
    kg_json_array_append(a, conds, c);
}

/* A name conflict with another CRD of the same group (naming controller): the reason, and *what the name in use. */
static const char *name_conflict(kg_arena *a, const kg_json *crd, const char **what)
{
    const char *group = kg_json_path_str(crd, "spec.group");
    const char *self = kg_json_path_str(crd, "metadata.name");
    const kg_json *names = kg_json_path(crd, "spec.names");
    const kg_dynamic_set *d = kg_dynamic_current();
    if (!group || !names || !d)
        return NULL;
    const char *plural = kg_json_get_str(names, "plural"), *singular = kg_json_get_str(names, "singular");
    const char *kind = kg_json_get_str(names, "kind"), *list_kind = kg_json_get_str(names, "listKind");
    for (size_t i = 0; i < d->n; i++) {
        const kg_resource *r = &d->res[i];
        const kg_crd_version *v = kg_crd_version_of(r);
        if (strcmp(r->group, group) || !v || (self && !strcmp(v->crd_name, self)))
            continue;
        /* resource names (plural, singular, short names) and kinds are two separate sets */
        const char *rnames[64];
        size_t nr = 0;
        rnames[nr++] = r->plural;
        rnames[nr++] = r->singular;
        for (size_t k = 0; v->short_names && v->short_names[k] && nr < 64; k++)
            rnames[nr++] = v->short_names[k];
        for (size_t k = 0; k < nr; k++) {
            if (plural && !strcmp(plural, rnames[k])) {
                *what = plural;
                return "PluralConflict";
            }
            if (singular && !strcmp(singular, rnames[k])) {
                *what = singular;
                return "SingularConflict";
            }
            kg_json *sn = kg_json_get(names, "shortNames");
            for (uint32_t j = 0; sn && sn->type == KG_JSON_ARRAY && j < sn->len; j++)
                if (sn->u.items[j]->type == KG_JSON_STRING && !strcmp(sn->u.items[j]->u.s, rnames[k])) {
                    *what = sn->u.items[j]->u.s;
                    return "ShortNamesConflict";
                }
        }
        if (kind && (!strcmp(kind, r->kind) || !strcmp(kind, v->list_kind))) {
            *what = kind;
            return "KindConflict";
        }
        if (list_kind && (!strcmp(list_kind, r->kind) || !strcmp(list_kind, v->list_kind))) {
            *what = list_kind;
            return "ListKindConflict";
        }
    }
    (void)a;
    return NULL;
}

void kg_crd_default(kg_arena *a, kg_json *crd, const char *now)
{
    kg_json *spec = kg_json_get(crd, "spec");
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    kg_json *names = kg_json_get(spec, "names");
    if (names && names->type == KG_JSON_OBJECT) {
        const char *kind = kg_json_get_str(names, "kind");
        if (kind && !kg_json_get_str(names, "singular"))
            kg_json_set(a, names, "singular", kg_json_new_str(a, lower(a, kind)));
        if (kind && !kg_json_get_str(names, "listKind"))
            kg_json_set(a, names, "listKind", kg_json_new_str(a, kg_arena_sprintf(a, "%sList", kind)));
    }
    kg_json *conv = kg_json_get(spec, "conversion");
    if (!conv || conv->type != KG_JSON_OBJECT) {
        conv = kg_json_new_object(a);
        kg_json_set(a, spec, "conversion", conv);
    }
    if (!kg_json_get_str(conv, "strategy"))
        kg_json_set(a, conv, "strategy", sref(a, "None"));

    /* status: what the naming, establishing and finalizer controllers would write, computed synchronously */
    kg_json *old_status = kg_json_get(crd, "status");
    kg_json *status = kg_json_new_object(a);
    kg_json *old_conds = old_status ? kg_json_get(old_status, "conditions") : NULL;
    kg_json *conds = kg_json_new_array(a);
    const char *what = NULL;
    const char *conflict = name_conflict(a, crd, &what);
    kg_json *old_accepted = old_status ? kg_json_get(old_status, "acceptedNames") : NULL;
    if (conflict) {
        set_condition(a, conds, old_conds, "NamesAccepted", "False", conflict,
                      kg_arena_sprintf(a, "\"%s\" is already in use", what), now);
        set_condition(a, conds, old_conds, "Established", "False", "NotAccepted", "not all names are accepted", now);
        kg_json_set(a, status, "acceptedNames",
                    old_accepted && old_accepted->type == KG_JSON_OBJECT ? old_accepted : kg_json_new_object(a));
    } else {
        set_condition(a, conds, old_conds, "NamesAccepted", "True", "NoConflicts", "no conflicts found", now);
        set_condition(a, conds, old_conds, "Established", "True", "InitialNamesAccepted",
                      "the initial names have been accepted", now);
        kg_json_set(a, status, "acceptedNames", names ? kg_json_clone(a, names) : kg_json_new_object(a));
    }
    if (kg_json_path(crd, "metadata.deletionTimestamp"))
        set_condition(a, conds, old_conds, "Terminating", "True", "InstanceDeletionInProgress",
                      "CustomResource deletion is in progress", now);
    kg_json_set(a, status, "conditions", conds);
    /* storedVersions only grows: the old ones plus the current storage version */
    kg_json *stored = kg_json_new_array(a);
    kg_json *old_stored = old_status ? kg_json_get(old_status, "storedVersions") : NULL;
    for (uint32_t i = 0; old_stored && old_stored->type == KG_JSON_ARRAY && i < old_stored->len; i++)
        if (old_stored->u.items[i]->type == KG_JSON_STRING)
            kg_json_array_append(a, stored, old_stored->u.items[i]);
    kg_json *versions = kg_json_get(spec, "versions");
    for (uint32_t i = 0; versions && versions->type == KG_JSON_ARRAY && i < versions->len; i++) {
        kg_json *st = kg_json_get(versions->u.items[i], "storage");
        const char *vn = kg_json_get_str(versions->u.items[i], "name");
        if (!st || st->type != KG_JSON_BOOL || !st->b || !vn)
            continue;
        bool have = false;
        for (uint32_t k = 0; k < stored->len; k++)
            have = have || !strcmp(stored->u.items[k]->u.s, vn);
        if (!have)
            kg_json_array_append(a, stored, kg_json_new_str(a, vn));
    }
    kg_json_set(a, status, "storedVersions", stored);
    kg_json_set(a, crd, "status", status);
}

/* ---- validation ---- */

static void dns1035(kg_arena *a, kg_field_errors *errs, const char *path, const char *v, const char *prefix)
{
    kg_name_errs ne = {0};
    if (!kg_is_dns1035_label(v, &ne)) {
        char *msg = kg_name_errs_join(a, &ne, ",");
        kg_field_invalid(a, errs, path, v, prefix ? kg_arena_sprintf(a, "%s%s", prefix, msg) : msg);
    }
}

static void validate_names(kg_arena *a, const kg_json *names, kg_field_errors *errs)
{
    const char *p = "spec.names";
    const char *plural = kg_json_get_str(names, "plural"), *singular = kg_json_get_str(names, "singular");
    const char *kind = kg_json_get_str(names, "kind"), *list_kind = kg_json_get_str(names, "listKind");
    if (!plural || !plural[0])
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.plural", p), "");
    else
        dns1035(a, errs, kg_arena_sprintf(a, "%s.plural", p), plural, NULL);
    if (singular && singular[0])
        dns1035(a, errs, kg_arena_sprintf(a, "%s.singular", p), singular, NULL);
    kg_json *sn = kg_json_get(names, "shortNames");
    for (uint32_t i = 0; sn && sn->type == KG_JSON_ARRAY && i < sn->len; i++)
        if (sn->u.items[i]->type == KG_JSON_STRING)
            dns1035(a, errs, kg_arena_sprintf(a, "%s.shortNames[%u]", p, i), sn->u.items[i]->u.s, NULL);
    kg_json *cats = kg_json_get(names, "categories");
    for (uint32_t i = 0; cats && cats->type == KG_JSON_ARRAY && i < cats->len; i++)
        if (cats->u.items[i]->type == KG_JSON_STRING)
            dns1035(a, errs, kg_arena_sprintf(a, "%s.categories[%u]", p, i), cats->u.items[i]->u.s, NULL);
    if (!kind || !kind[0]) {
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.kind", p), "");
    } else {
        kg_name_errs ne = {0};
        if (!kg_is_dns1035_label(lower(a, kind), &ne))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.kind", p), kind,
                             kg_arena_sprintf(a, "may have mixed case, but should otherwise match: %s",
                                              kg_name_errs_join(a, &ne, ",")));
    }
    if (!list_kind || !list_kind[0]) {
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.listKind", p), "");
    } else {
        kg_name_errs ne = {0};
        if (!kg_is_dns1035_label(lower(a, list_kind), &ne))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.listKind", p), list_kind,
                             kg_arena_sprintf(a, "may have mixed case, but should otherwise match: %s",
                                              kg_name_errs_join(a, &ne, ",")));
        if (kind && !strcmp(kind, list_kind))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.listKind", p), list_kind,
                             "kind and listKind may not be the same");
    }
}

static bool simple_json_path(const char *p)
{
    return p && p[0] == '.' && p[1];
}

static void validate_columns(kg_arena *a, const kg_json *cols, const char *path, kg_field_errors *errs)
{
    static const char *const types[] = {"boolean", "date", "integer", "number", "string"};
    static const char *const formats[] = {"byte", "date", "date-time", "double", "float", "int32", "int64", "password"};
    for (uint32_t i = 0; cols && cols->type == KG_JSON_ARRAY && i < cols->len; i++) {
        const kg_json *c = cols->u.items[i];
        const char *cp = kg_arena_sprintf(a, "%s[%u]", path, i);
        const char *name = kg_json_get_str(c, "name"), *type = kg_json_get_str(c, "type");
        const char *format = kg_json_get_str(c, "format"), *jp = kg_json_get_str(c, "jsonPath");
        if (!name || !name[0])
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.name", cp), "");
        if (!type || !type[0]) {
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.type", cp), "");
        } else {
            bool ok = false;
            for (size_t k = 0; k < 5; k++)
                ok = ok || !strcmp(type, types[k]);
            if (!ok)
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.type", cp), type, types, 5);
        }
        if (format && format[0]) {
            bool ok = false;
            for (size_t k = 0; k < 8; k++)
                ok = ok || !strcmp(format, formats[k]);
            if (!ok)
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.format", cp), format, formats, 8);
        }
        if (!jp || !jp[0])
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.JSONPath", cp), "");
        else if (!simple_json_path(jp))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.JSONPath", cp), jp,
                             "must be a simple json path starting with .");
    }
}

static void validate_selectable(kg_arena *a, const kg_json *fields, const char *path, kg_field_errors *errs)
{
    if (!fields || fields->type != KG_JSON_ARRAY)
        return;
    if (fields->len > 8)
        kg_field_too_many(a, errs, path, fields->len, 8);
    for (uint32_t i = 0; i < fields->len; i++) {
        const char *jp = kg_json_get_str(fields->u.items[i], "jsonPath");
        const char *fp = kg_arena_sprintf(a, "%s[%u].jsonPath", path, i);
        if (!jp || !jp[0])
            kg_field_required(a, errs, fp, "");
        else if (!simple_json_path(jp))
            kg_field_invalid(a, errs, fp, jp, "must be a simple json path starting with .");
        else if (!strncmp(jp, ".metadata", 9))
            kg_field_invalid(a, errs, fp, jp, "must not point to fields in metadata");
    }
}

static void validate_scale(kg_arena *a, const kg_json *scale, const char *path, kg_field_errors *errs)
{
    const char *spec = kg_json_get_str(scale, "specReplicasPath");
    const char *status = kg_json_get_str(scale, "statusReplicasPath");
    const char *sel = kg_json_get_str(scale, "labelSelectorPath");
    if (!spec || !spec[0])
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.specReplicasPath", path), "");
    else if (!simple_json_path(spec))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.specReplicasPath", path), spec,
                         "should be a json path under .spec");
    else if (strncmp(spec, ".spec.", 6))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.specReplicasPath", path), spec,
                         "should be a json path under .spec");
    if (!status || !status[0])
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.statusReplicasPath", path), "");
    else if (strncmp(status, ".status.", 8))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.statusReplicasPath", path), status,
                         "should be a json path under .status");
    if (sel && sel[0] && strncmp(sel, ".spec.", 6) && strncmp(sel, ".status.", 8))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.labelSelectorPath", path), sel,
                         "should be a json path under either .spec or .status");
}

static bool bool_true(const kg_json *o, const char *key)
{
    kg_json *v = kg_json_get(o, key);
    return v && v->type == KG_JSON_BOOL && v->b;
}

void kg_crd_validate(kg_arena *a, const kg_json *crd, const kg_json *old, kg_field_errors *errs)
{
    const kg_json *spec = kg_json_get(crd, "spec");
    const char *name = kg_json_path_str(crd, "metadata.name");
    const char *group = kg_json_get_str(spec, "group");
    const char *plural = kg_json_path_str(spec, "names.plural");
    if (name && plural && group && strcmp(name, kg_arena_sprintf(a, "%s.%s", plural, group)))
        kg_field_invalid(a, errs, "metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
    if (!group || !group[0]) {
        kg_field_required(a, errs, "spec.group", "");
    } else {
        kg_name_errs ne = {0};
        if (!kg_is_dns1123_subdomain(group, &ne))
            kg_field_invalid(a, errs, "spec.group", group, kg_name_errs_join(a, &ne, ","));
        if (!strchr(group, '.'))
            kg_field_invalid(a, errs, "spec.group", group, "should be a domain with at least one dot");
        size_t gl = strlen(group);
        bool protected_group =
            (gl >= 6 && !strcmp(group + gl - 6, "k8s.io")) || (gl >= 13 && !strcmp(group + gl - 13, "kubernetes.io"));
        kg_json *ann = kg_json_path(crd, "metadata.annotations");
        const char *approval = ann ? kg_json_get_str(ann, "api-approved.kubernetes.io") : NULL;
        if (protected_group && !approval)
            kg_field_required(a, errs, "metadata.annotations[api-approved.kubernetes.io]",
                              "protected groups must have approval annotation \"api-approved.kubernetes.io\", see "
                              "https://github.com/kubernetes/enhancements/pull/1111");
    }
    const char *scope = kg_json_get_str(spec, "scope");
    if (!scope || !scope[0]) {
        kg_field_required(a, errs, "spec.scope", "");
    } else if (strcmp(scope, "Cluster") && strcmp(scope, "Namespaced")) {
        static const char *const scopes[] = {"Cluster", "Namespaced"};
        kg_field_not_supported(a, errs, "spec.scope", scope, scopes, 2);
    }
    const kg_json *names = kg_json_get(spec, "names");
    if (!names || names->type != KG_JSON_OBJECT)
        kg_field_required(a, errs, "spec.names", "");
    else
        validate_names(a, names, errs);
    if (bool_true(spec, "preserveUnknownFields"))
        kg_field_invalid_bool(a, errs, "spec.preserveUnknownFields", true,
                              "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                              "spec.versions[*].schema instead");
    const char *conv = kg_json_path_str(spec, "conversion.strategy");
    if (conv && strcmp(conv, "None") && strcmp(conv, "Webhook")) {
        static const char *const strategies[] = {"None", "Webhook"};
        kg_field_not_supported(a, errs, "spec.conversion.strategy", conv, strategies, 2);
    }
    if (conv && !strcmp(conv, "Webhook") && !kg_json_path(spec, "conversion.webhook"))
        kg_field_required(a, errs, "spec.conversion.webhook", "required when strategy is set to Webhook");

    const kg_json *versions = kg_json_get(spec, "versions");
    if (!versions || versions->type != KG_JSON_ARRAY || !versions->len) {
        kg_field_required(a, errs, "spec.versions", "");
        return;
    }
    /* The v1 → internal conversion moves schemas, subresources, columns and selectable fields to the spec when all
     * versions have the same ones (a single version always does): their errors are then reported there. */
    bool same_schema = true, same_sub = true, same_cols = true, same_sel = true;
    const kg_json *v0 = versions->u.items[0];
    for (uint32_t i = 1; i < versions->len; i++) {
        const kg_json *v = versions->u.items[i];
        same_schema = same_schema && kg_json_equal(kg_json_get(v, "schema"), kg_json_get(v0, "schema"));
        same_sub = same_sub && kg_json_equal(kg_json_get(v, "subresources"), kg_json_get(v0, "subresources"));
        same_cols = same_cols && kg_json_equal(kg_json_get(v, "additionalPrinterColumns"),
                                               kg_json_get(v0, "additionalPrinterColumns"));
        same_sel = same_sel && kg_json_equal(kg_json_get(v, "selectableFields"), kg_json_get(v0, "selectableFields"));
    }
    size_t storage = 0;
    bool unique = true;
    for (uint32_t i = 0; i < versions->len; i++) {
        const kg_json *v = versions->u.items[i];
        const char *vp = kg_arena_sprintf(a, "spec.versions[%u]", i);
        const char *vn = kg_json_get_str(v, "name");
        if (bool_true(v, "storage"))
            storage++;
        if (!vn || !vn[0])
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.name", vp), "");
        else
            dns1035(a, errs, kg_arena_sprintf(a, "%s.name", vp), vn, NULL);
        for (uint32_t k = 0; vn && k < i; k++) {
            const char *on = kg_json_get_str(versions->u.items[k], "name");
            if (on && !strcmp(on, vn))
                unique = false;
        }
        const kg_json *schema = kg_json_path(v, "schema.openAPIV3Schema");
        const kg_json *sub = kg_json_get(v, "subresources");
        bool has_status = sub && kg_json_get(sub, "status");
        if (!schema) {
            kg_field_required(a, errs, kg_arena_sprintf(a, "%s.schema.openAPIV3Schema", vp), "schemas are required");
        } else if (!same_schema || i == 0) {
            const char *sp =
                same_schema ? "spec.validation.openAPIV3Schema" : kg_arena_sprintf(a, "%s.schema.openAPIV3Schema", vp);
            kg_crd_validate_schema(a, schema, sp, has_status, errs);
        }
        if (!same_sub || i == 0) {
            const kg_json *scale = sub ? kg_json_get(sub, "scale") : NULL;
            if (scale)
                validate_scale(a, scale,
                               same_sub ? "spec.subresources.scale" : kg_arena_sprintf(a, "%s.subresources.scale", vp),
                               errs);
        }
        if (!same_cols || i == 0)
            validate_columns(a, kg_json_get(v, "additionalPrinterColumns"),
                             same_cols ? "spec.additionalPrinterColumns"
                                       : kg_arena_sprintf(a, "%s.additionalPrinterColumns", vp),
                             errs);
        if (!same_sel || i == 0)
            validate_selectable(a, kg_json_get(v, "selectableFields"),
                                same_sel ? "spec.selectableFields" : kg_arena_sprintf(a, "%s.selectableFields", vp),
                                errs);
    }
    if (!unique)
        kg_field_invalid_raw(a, errs, "spec.versions", kg_xs_go_repr(a, versions), "must contain unique version names");
    if (storage != 1)
        kg_field_invalid_raw(a, errs, "spec.versions", kg_xs_go_repr(a, versions),
                             "must have exactly one version marked as storage version");
    /* status.storedVersions must name served-or-not versions still listed */
    const kg_json *stored = kg_json_path(crd, "status.storedVersions");
    for (uint32_t i = 0; stored && stored->type == KG_JSON_ARRAY && i < stored->len; i++) {
        const kg_json *sv = stored->u.items[i];
        if (sv->type != KG_JSON_STRING)
            continue;
        bool listed = false;
        for (uint32_t k = 0; k < versions->len; k++) {
            const char *vn = kg_json_get_str(versions->u.items[k], "name");
            listed = listed || (vn && !strcmp(vn, sv->u.s));
        }
        if (!listed)
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "status.storedVersions[%u]", i), sv->u.s,
                             kg_arena_sprintf(a,
                                              "missing from spec.versions; %s was previously a storage version, and "
                                              "must remain in spec.versions until a storage migration ensures no "
                                              "data remains persisted in %s and removes %s from "
                                              "status.storedVersions",
                                              sv->u.s, sv->u.s, sv->u.s));
    }
    if (old) {
        const kg_json *ospec = kg_json_get(old, "spec");
        const char *og = kg_json_get_str(ospec, "group"), *op = kg_json_path_str(ospec, "names.plural");
        if (og && group && strcmp(og, group))
            kg_field_invalid(a, errs, "spec.group", group, "field is immutable");
        if (op && plural && strcmp(op, plural))
            kg_field_invalid(a, errs, "spec.names.plural", plural, "field is immutable");
        if (kg_crd_condition_true(old, "Established")) {
            const char *os = kg_json_get_str(ospec, "scope"), *ok = kg_json_path_str(ospec, "names.kind");
            const char *kind = kg_json_path_str(spec, "names.kind");
            if (os && scope && strcmp(os, scope))
                kg_field_invalid(a, errs, "spec.scope", scope, "field is immutable");
            if (ok && kind && strcmp(ok, kind))
                kg_field_invalid(a, errs, "spec.names.kind", kind, "field is immutable");
        }
    }
}
