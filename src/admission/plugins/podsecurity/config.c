/* PodSecurityConfiguration (pod-security.admission.config.k8s.io v1, v1beta1, v1alpha1; one schema): the default
 * policy of namespaces without labels and the exemptions, read from the PodSecurity entry of the
 * AdmissionConfiguration file.
 *
 *   defaults: {enforce, enforce-version, audit, audit-version, warn, warn-version}   empty → privileged / latest
 *   exemptions: {usernames: [], runtimeClasses: [], namespaces: []}                 exact string matches
 *
 * Validation follows ValidatePodSecurityConfiguration: the field errors are returned as one aggregate
 * (`defaults.enforce: Invalid value: "foo": must be one of privileged, baseline, restricted`, `[e1, e2]` for
 * several). Unknown fields are ignored (the universal decoder is not strict); a value of the wrong JSON type is a
 * decoding error naming the field. */
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"
#include "meta/names.h"

#define GROUP "pod-security.admission.config.k8s.io/"

static bool string_field(const kg_json *o, const char *key, const char *path, const char **out, kg_error *err)
{
    const kg_json *v = kg_json_getn(o, key, strlen(key));
    *out = "";
    if (!v || kg_json_is(v, KG_JSON_NULL))
        return true;
    if (!kg_json_is(v, KG_JSON_STRING))
        return kg_err_set(err, KG_EINVAL, "json: cannot unmarshal %s into Go struct field %s of type string",
                          kg_json_type_name((kg_json_type)v->type), path);
    *out = v->u.s;
    return true;
}

static bool string_list(kg_arena *a, const kg_json *o, const char *key, const char ***out, size_t *n, kg_error *err)
{
    const kg_json *v = kg_json_getn(o, key, strlen(key));
    *out = NULL;
    *n = 0;
    if (!v || kg_json_is(v, KG_JSON_NULL))
        return true;
    if (!kg_json_is(v, KG_JSON_ARRAY))
        return kg_err_set(err, KG_EINVAL,
                          "json: cannot unmarshal %s into Go struct field exemptions.%s of type []string",
                          kg_json_type_name((kg_json_type)v->type), key);
    *out = kg_arena_alloc(a, (v->len ? v->len : 1) * sizeof **out);
    for (size_t i = 0; i < v->len; i++) {
        const kg_json *s = kg_json_at(v, i);
        if (!kg_json_is(s, KG_JSON_STRING))
            return kg_err_set(err, KG_EINVAL,
                              "json: cannot unmarshal %s into Go struct field exemptions.%s of type string",
                              kg_json_type_name((kg_json_type)s->type), key);
        (*out)[(*n)++] = kg_arena_strdup(a, s->u.s);
    }
    return true;
}

/* validateLevel / validateVersion of one mode; empty values were defaulted before. */
static void validate_mode(kg_arena *a, kg_field_errors *errs, const char *mode, const char *level, const char *version,
                          ps_lv *out)
{
    if (!ps_parse_level(level, &out->level))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "defaults.%s", mode), level, PS_LEVEL_ERR);
    if (!ps_parse_version(version, &out->version))
        kg_field_invalid(a, errs, kg_arena_sprintf(a, "defaults.%s-version", mode), version, PS_VERSION_ERR);
}

typedef bool (*name_check)(const char *s, kg_name_errs *errs);

static void validate_list(kg_arena *a, kg_field_errors *errs, const char *field, const char **v, size_t n,
                          name_check check)
{
    for (size_t i = 0; i < n; i++) {
        const char *path = kg_arena_sprintf(a, "exemptions.%s[%zu]", field, i);
        kg_name_errs ne = {0};
        if (check && !check(v[i], &ne))
            kg_field_invalid(a, errs, path, v[i], kg_name_errs_join(a, &ne, ", "));
        else if (!check && !v[i][0])
            kg_field_invalid(a, errs, path, v[i], "username must not be empty");
        for (size_t j = 0; j < i; j++)
            if (strcmp(v[i], v[j]) == 0) {
                kg_field_duplicate(a, errs, path, v[i]);
                break;
            }
    }
}

static const char *or_default(const char *s, const char *def)
{
    return s[0] ? s : def;
}

bool ps_config_parse(kg_arena *a, const kg_json *config, ps_config *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    ps_lv def = {PS_PRIVILEGED, {true, 0}};
    out->defaults = (ps_policy){def, def, def};
    if (!config || kg_json_is(config, KG_JSON_NULL))
        return true;
    if (!kg_json_is(config, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "expected a PodSecurityConfiguration object, got %s",
                          kg_json_type_name((kg_json_type)config->type));
    const char *av = ps_str(config, "apiVersion"), *kind = ps_str(config, "kind");
    av = av ? av : "";
    kind = kind ? kind : "";
    if (strcmp(av, GROUP "v1") != 0 && strcmp(av, GROUP "v1beta1") != 0 && strcmp(av, GROUP "v1alpha1") != 0)
        return kg_err_set(err, KG_EINVAL,
                          "no kind \"%s\" is registered for version \"%s\" (want %sv1, %sv1beta1 or %sv1alpha1)", kind,
                          av, GROUP, GROUP, GROUP);
    if (strcmp(kind, "PodSecurityConfiguration") != 0)
        return kg_err_set(err, KG_EINVAL, "expected PodSecurityConfiguration, got kind \"%s\"", kind);

    const char *lv[6] = {"", "", "", "", "", ""};
    static const char *const keys[6] = {"enforce", "enforce-version", "audit", "audit-version", "warn", "warn-version"};
    const kg_json *defaults = kg_json_get(config, "defaults");
    if (defaults && !kg_json_is(defaults, KG_JSON_NULL)) {
        if (!kg_json_is(defaults, KG_JSON_OBJECT))
            return kg_err_set(err, KG_EINVAL, "defaults: expected an object, got %s",
                              kg_json_type_name((kg_json_type)defaults->type));
        for (int i = 0; i < 6; i++)
            if (!string_field(defaults, keys[i], kg_arena_sprintf(a, "defaults.%s", keys[i]), &lv[i], err))
                return false;
    }
    const kg_json *ex = kg_json_get(config, "exemptions");
    if (ex && !kg_json_is(ex, KG_JSON_NULL)) {
        if (!kg_json_is(ex, KG_JSON_OBJECT))
            return kg_err_set(err, KG_EINVAL, "exemptions: expected an object, got %s",
                              kg_json_type_name((kg_json_type)ex->type));
        if (!string_list(a, ex, "usernames", &out->usernames, &out->nusernames, err) ||
            !string_list(a, ex, "runtimeClasses", &out->runtime_classes, &out->nruntime_classes, err) ||
            !string_list(a, ex, "namespaces", &out->namespaces, &out->nnamespaces, err))
            return false;
    }

    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    validate_mode(a, &errs, "enforce", or_default(lv[0], "privileged"), or_default(lv[1], "latest"),
                  &out->defaults.enforce);
    validate_mode(a, &errs, "warn", or_default(lv[4], "privileged"), or_default(lv[5], "latest"), &out->defaults.warn);
    validate_mode(a, &errs, "audit", or_default(lv[2], "privileged"), or_default(lv[3], "latest"),
                  &out->defaults.audit);
    validate_list(a, &errs, "namespaces", out->namespaces, out->nnamespaces, kg_is_dns1123_label);
    validate_list(a, &errs, "runtimeClasses", out->runtime_classes, out->nruntime_classes, kg_is_dns1123_subdomain);
    validate_list(a, &errs, "usernames", out->usernames, out->nusernames, NULL);
    if (errs.len)
        return kg_err_set(err, KG_EINVAL, "%s", kg_field_errors_aggregate(a, &errs));
    return true;
}

static bool in(const char *const *v, size_t n, const char *s)
{
    if (!s || !s[0])
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

bool ps_exempt_user(const ps_config *c, const char *name)
{
    return in(c->usernames, c->nusernames, name);
}

bool ps_exempt_runtime_class(const ps_config *c, const char *name)
{
    return in(c->runtime_classes, c->nruntime_classes, name);
}

bool ps_exempt_namespace(const ps_config *c, const char *name)
{
    return in(c->namespaces, c->nnamespaces, name);
}
