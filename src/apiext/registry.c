/* The served set of custom resources (crd.h kg_crd_publish) and the custom resource steps of the write pipeline
 * (kg_cr_*). */
#include <stdio.h>
#include <string.h>

#include "api/dynamic.h"
#include "apiext/crd.h"
#include "apiext/rules.h"
#include "base/hash.h"

static const char *str_or(const kg_json *o, const char *key, const char *def)
{
    const char *s = kg_json_get_str(o, key);
    return s ? s : def;
}

static bool bool_true(const kg_json *o, const char *key)
{
    kg_json *v = kg_json_get(o, key);
    return v && v->type == KG_JSON_BOOL && v->b;
}

/* NULL-terminated copy of a string array (strings stay in the snapshot's copy of the CRD). */
static const char **strings(kg_arena *a, const kg_json *arr)
{
    uint32_t n = arr && arr->type == KG_JSON_ARRAY ? arr->len : 0;
    const char **out = kg_arena_alloc(a, (n + 1) * sizeof *out);
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (arr->u.items[i]->type == KG_JSON_STRING)
            out[k++] = arr->u.items[i]->u.s;
    out[k] = NULL;
    return out;
}

static void fill_version(kg_arena *a, kg_resource *r, kg_crd_version *v, const kg_json *crd, const kg_json *ver,
                         const char *storage_version, const kg_xs *meta_schema)
{
    const kg_json *spec = kg_json_get(crd, "spec");
    const kg_json *names = kg_json_get(spec, "names");
    memset(r, 0, sizeof *r);
    memset(v, 0, sizeof *v);
    r->group = str_or(spec, "group", "");
    r->version = str_or(ver, "name", "");
    r->kind = str_or(names, "kind", "");
    r->plural = str_or(names, "plural", "");
    r->singular = str_or(names, "singular", "");
    v->short_names = strings(a, kg_json_get(names, "shortNames"));
    v->categories = strings(a, kg_json_get(names, "categories"));
    for (size_t i = 0; i < 3 && v->short_names[i]; i++)
        r->short_names[i] = v->short_names[i];
    r->categories[0] = v->categories[0];
    r->namespaced = !strcmp(str_or(spec, "scope", ""), "Namespaced");
    r->verbs = KG_VERBS_ALL;
    const kg_json *subs = kg_json_get(ver, "subresources");
    int ns = 0;
    if (subs && kg_json_get(subs, "status")) {
        r->subresources[ns++] = (kg_subresource){"status", KG_SUB_STATUS, KG_VERBS_GET_PATCH_UPDATE, NULL, NULL, NULL};
        r->has_status = true;
    }
    const kg_json *scale = subs ? kg_json_get(subs, "scale") : NULL;
    if (scale) {
        r->subresources[ns++] =
            (kg_subresource){"scale", KG_SUB_SCALE, KG_VERBS_GET_PATCH_UPDATE, "autoscaling", "v1", "Scale"};
        v->pub.spec_replicas_path = kg_json_get_str(scale, "specReplicasPath");
        v->pub.status_replicas_path = kg_json_get_str(scale, "statusReplicasPath");
        v->pub.label_selector_path = kg_json_get_str(scale, "labelSelectorPath");
    }
    r->tracks_generation = true;
    v->crd_name = str_or(kg_json_get(crd, "metadata"), "name", "");
    v->list_kind = str_or(names, "listKind", kg_arena_sprintf(a, "%sList", r->kind));
    r->list_kind = v->list_kind;
    r->api_version = kg_arena_sprintf(a, "%s/%s", r->group, r->version);
    r->storage_prefix = kg_arena_sprintf(a, "/registry/%s/%s/", r->group, r->plural);
    r->index = -1;
    r->storage_version = bool_true(ver, "storage");
    v->pub.storage_api_version = kg_arena_sprintf(a, "%s/%s", r->group, storage_version ? storage_version : r->version);
    v->schema_json = kg_json_path(ver, "schema.openAPIV3Schema");
    v->schema = kg_xs_compile(a, v->schema_json);
    v->meta_schema = meta_schema;
    kg_cr_smd_init(v);
    const kg_json *cols = kg_json_get(ver, "additionalPrinterColumns");
    if (cols && cols->type == KG_JSON_ARRAY && cols->len) {
        kg_dynamic_column *c = kg_arena_alloc(a, cols->len * sizeof *c);
        for (uint32_t i = 0; i < cols->len; i++) {
            const kg_json *col = cols->u.items[i];
            kg_json *prio = kg_json_get(col, "priority");
            c[v->pub.ncolumns++] = (kg_dynamic_column){
                str_or(col, "name", ""),        str_or(col, "type", "string"),
                kg_json_get_str(col, "format"), str_or(col, "description", ""),
                str_or(col, "jsonPath", ""),    prio && prio->type == KG_JSON_INT ? (int)prio->u.i : 0};
        }
        v->pub.columns = c;
    }
    const kg_json *sel = kg_json_get(ver, "selectableFields");
    if (sel && sel->type == KG_JSON_ARRAY && sel->len) {
        const char **f = kg_arena_alloc(a, sel->len * sizeof *f);
        for (uint32_t i = 0; i < sel->len; i++) {
            const char *jp = kg_json_get_str(sel->u.items[i], "jsonPath");
            if (jp && jp[0] == '.')
                f[v->pub.nselectable++] = jp + 1;
        }
        v->pub.selectable = f;
    }
    v->deprecated = bool_true(ver, "deprecated");
    v->deprecation_warning = kg_json_get_str(ver, "deprecationWarning");
    v->terminating = kg_json_path(crd, "metadata.deletionTimestamp") != NULL;
    r->ext = v;
}

void kg_crd_publish(const kg_json *const *crds, size_t n)
{
    kg_dynamic_set *s = kg_dynamic_new();
    kg_arena *a = &s->arena;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const kg_json *vs = kg_json_path(crds[i], "spec.versions");
        total += vs && vs->type == KG_JSON_ARRAY ? vs->len : 0;
    }
    s->res = kg_arena_alloc(a, (total + 1) * sizeof *s->res);
    s->schemas = kg_arena_alloc(a, (total + 1) * sizeof *s->schemas);
    uint64_t h = KG_FNV1A64_INIT;
    const kg_xs *meta = n ? kg_cr_object_meta_schema(a) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (!kg_crd_condition_true(crds[i], "NamesAccepted") && !kg_crd_condition_true(crds[i], "Established"))
            continue;
        kg_json *crd = kg_json_clone(a, crds[i]);
        const kg_json *vs = kg_json_path(crd, "spec.versions");
        const char *storage = NULL; /* the storage version, served or not */
        for (uint32_t k = 0; vs && vs->type == KG_JSON_ARRAY && k < vs->len; k++)
            if (bool_true(vs->u.items[k], "storage"))
                storage = kg_json_get_str(vs->u.items[k], "name");
        /* the storage version first (kind lookups find it), then the other served versions in CRD order */
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t k = 0; vs && vs->type == KG_JSON_ARRAY && k < vs->len; k++) {
                const kg_json *ver = vs->u.items[k];
                if (!bool_true(ver, "served") || bool_true(ver, "storage") != (pass == 0))
                    continue;
                kg_crd_version *v = kg_arena_alloc(a, sizeof *v);
                fill_version(a, &s->res[s->n], v, crd, ver, storage, meta);
                s->schemas[s->n] = v->schema_json;
                s->n++;
            }
        size_t len;
        const char *text = kg_json_to_string(a, kg_json_get(crd, "spec"), 0, &len);
        h = kg_fnv1a64_continue(h, text, len);
    }
    snprintf(s->hash, sizeof s->hash, "%016llx", (unsigned long long)h);
    kg_dynamic_publish(s);
}

/* ---- custom resource steps ---- */

const kg_resource *kg_cr_resolve(const char *api_version, const char *kind)
{
    const kg_dynamic_set *d = kg_dynamic_current();
    if (!d || !api_version || !kind)
        return NULL;
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->res[i].api_version, api_version) && !strcmp(d->res[i].kind, kind))
            return &d->res[i];
    return NULL;
}

void kg_cr_decode(kg_arena *a, const kg_resource *r, kg_json *obj, const char ***paths, size_t *n)
{
    const kg_crd_version *v = kg_crd_version_of(r);
    if (!v || !obj || obj->type != KG_JSON_OBJECT)
        return;
    kg_xs_prune(a, v->schema, obj, paths, n);
    kg_xs_default(a, v->schema, obj);
}

void kg_cr_default(kg_arena *a, kg_json *obj)
{
    const kg_resource *r = kg_cr_resolve(kg_json_get_str(obj, "apiVersion"), kg_json_get_str(obj, "kind"));
    kg_cr_decode(a, r, obj, NULL, NULL);
}

/* A copy of an object's root node whose members (not their values) may be dropped or replaced: the request passes
 * over the object are read-only, so the values stay shared instead of copying the whole tree per request. */
static kg_json *root_copy(kg_arena *a, const kg_json *obj)
{
    if (obj->type != KG_JSON_OBJECT)
        return kg_json_clone_nodes(a, obj);
    kg_json *c = kg_arena_alloc(a, sizeof *c);
    *c = *obj;
    c->cap = obj->len + 1;
    c->u.members = kg_arena_alloc(a, c->cap * sizeof *c->u.members);
    if (obj->len)
        memcpy(c->u.members, obj->u.members, obj->len * sizeof *c->u.members);
    return c;
}

/* The root object as CEL rules see it. */
static kg_json *rule_view(kg_arena *a, const kg_json *obj)
{
    kg_json *v = root_copy(a, obj);
    kg_json *md = kg_json_new_object(a);
    const kg_json *omd = kg_json_get(obj, "metadata");
    kg_json *x = kg_json_get(omd, "name");
    if (x)
        kg_json_set(a, md, "name", x);
    x = kg_json_get(omd, "generateName");
    if (x)
        kg_json_set(a, md, "generateName", x);
    kg_json_set(a, v, "metadata", md);
    return v;
}

void kg_cr_validate(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    const kg_resource *r = kg_cr_resolve(kg_json_get_str(obj, "apiVersion"), kg_json_get_str(obj, "kind"));
    const kg_crd_version *v = kg_crd_version_of(r);
    if (!v)
        return;
    /* metadata, apiVersion and kind are validated as ObjectMeta / TypeMeta, not by the schema */
    kg_json *body = root_copy(a, obj);
    kg_json_del(body, "metadata");
    kg_json_del(body, "apiVersion");
    kg_json_del(body, "kind");
    size_t before = errs->len;
    kg_xs_validate(a, v->schema, body, "", errs);
    /* CEL rules are skipped when the schema already found the object malformed */
    bool malformed = false;
    for (size_t i = before; i < errs->len; i++) {
        kg_field_error_type t = errs->items[i].type;
        malformed = malformed || t == KG_FIELD_NOT_SUPPORTED || t == KG_FIELD_REQUIRED || t == KG_FIELD_TOO_LONG ||
                    t == KG_FIELD_TOO_MANY || t == KG_FIELD_TYPE_INVALID;
    }
    if (!v->schema->any_rules) {
        /* no CEL rules: nothing more to check */
    } else if (malformed) {
        kg_field_invalid(a, errs, "<nil>", NULL,
                         "some validation rules were not checked because the object was invalid; correct the "
                         "existing errors to complete validation");
    } else {
        /* at the root self has apiVersion, kind, metadata.name and metadata.generateName besides the schema's */
        kg_json *self = rule_view(a, obj), *old_self = old ? rule_view(a, old) : NULL;
        kg_xs_validate_rules(a, v->schema, self, old_self, errs);
    }
    /* the scale subresource's replicas field */
    if (v->pub.spec_replicas_path && v->pub.spec_replicas_path[0] == '.') {
        kg_json *rep = kg_json_path(obj, v->pub.spec_replicas_path + 1);
        const char *fp = v->pub.spec_replicas_path + 1;
        if (rep && rep->type == KG_JSON_INT && rep->u.i < 0)
            kg_field_invalid_int(a, errs, fp, rep->u.i, "should be a non-negative integer");
        else if (rep && rep->type == KG_JSON_INT && rep->u.i > 2147483647)
            kg_field_invalid_int(a, errs, fp, rep->u.i, "should be less than or equal to 2147483647");
    }
}
