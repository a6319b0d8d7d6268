/* ConfigMap and Secret checks of upstream's ValidateSecret / ValidateSecretUpdate / ValidateConfigMapUpdate
 * (pkg/apis/core/validation) that the base validation does not make:
 *
 *   Secret type keys     kubernetes.io/tls: data[tls.crt] and data[tls.key] Required; dockercfg / dockerconfigjson:
 *                        data[.dockercfg] / data[.dockerconfigjson] Required and a JSON object (Go's json error
 *                        text, the value shown as "<secret contents redacted>"); basic-auth: username or password;
 *                        ssh-auth: data[ssh-privatekey]; service-account-token: the service-account.name annotation
 *   Secret type          immutable on update ("type: Invalid value: \"Opaque\": field is immutable")
 *   immutable: true      data / binaryData / immutable itself may not change ("field is immutable when
 *                        `immutable` is set")
 *
 * Secret data arrives base64-encoded (stringData counts as data: upstream merges it before validating). */
#include <string.h>

#include "api/validation_internal.h"
#include "base/base64.h"

static bool is(const kg_resource *r, const char *group, const char *plural)
{
    return !strcmp(r->group, group) && !strcmp(r->plural, plural);
}

/* The decoded value of a Secret key (data, else stringData); NULL when the key is absent. */
static const char *secret_value(kg_arena *a, const kg_json *obj, const char *key, size_t *len)
{
    const kg_json *v = kg_json_get(kg_json_get(obj, "data"), key);
    if (v && v->type == KG_JSON_STRING) {
        char *d = kg_base64_decode(a, v->u.s, v->len, 0, len, NULL);
        if (d)
            return d;
        *len = 0;
        return "";
    }
    v = kg_json_get(kg_json_get(obj, "stringData"), key);
    if (v && v->type == KG_JSON_STRING) {
        *len = v->len;
        return v->u.s;
    }
    return NULL;
}

/* The error of Go's json.Unmarshal(b, &map[string]interface{}{}), NULL when it succeeds. */
static const char *go_json_object_error(kg_arena *a, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    if (i == n)
        return "unexpected end of JSON input";
    char c = s[i];
    if (!strchr("{[\"-0123456789tfn", c)) {
        if (c == '\'')
            return "invalid character '\\'' looking for beginning of value";
        if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
            return kg_arena_sprintf(a, "invalid character '\\x%02x' looking for beginning of value", (unsigned char)c);
        return kg_arena_sprintf(a, "invalid character '%c' looking for beginning of value", c);
    }
    kg_error err = {0};
    const kg_json *v = kg_json_parse(a, s, n, &err);
    if (!v)
        return err.msg[0] ? kg_arena_strdup(a, err.msg) : "unexpected end of JSON input";
    switch (v->type) {
    case KG_JSON_OBJECT:
    case KG_JSON_NULL: return NULL;
    case KG_JSON_ARRAY: return "json: cannot unmarshal array into Go value of type map[string]interface {}";
    case KG_JSON_STRING: return "json: cannot unmarshal string into Go value of type map[string]interface {}";
    case KG_JSON_BOOL: return "json: cannot unmarshal bool into Go value of type map[string]interface {}";
    default: return "json: cannot unmarshal number into Go value of type map[string]interface {}";
    }
}

static void docker_config(kg_arena *a, const kg_json *obj, const char *key, kg_field_errors *errs)
{
    size_t n;
    const char *v = secret_value(a, obj, key, &n);
    char *path = kg_arena_sprintf(a, "data[%s]", key);
    if (!v) {
        kg_field_required(a, errs, path, "");
        return;
    }
    const char *e = go_json_object_error(a, v, n);
    if (e)
        kg_field_invalid(a, errs, path, "<secret contents redacted>", e);
}

static void validate_secret_type(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    const char *type = kg_json_get_str(obj, "type");
    size_t n;
    if (!type)
        return;
    if (!strcmp(type, "kubernetes.io/service-account-token")) {
        const char *sa =
            kg_json_get_str(kg_json_path(obj, "metadata.annotations"), "kubernetes.io/service-account.name");
        if (!sa || !sa[0])
            kg_field_required(a, errs, "metadata.annotations[kubernetes.io/service-account.name]", "");
    } else if (!strcmp(type, "kubernetes.io/dockercfg")) {
        docker_config(a, obj, ".dockercfg", errs);
    } else if (!strcmp(type, "kubernetes.io/dockerconfigjson")) {
        docker_config(a, obj, ".dockerconfigjson", errs);
    } else if (!strcmp(type, "kubernetes.io/basic-auth")) {
        if (!secret_value(a, obj, "username", &n) && !secret_value(a, obj, "password", &n)) {
            kg_field_required(a, errs, "data[username]", "");
            kg_field_required(a, errs, "data[password]", "");
        }
    } else if (!strcmp(type, "kubernetes.io/ssh-auth")) {
        const char *k = secret_value(a, obj, "ssh-privatekey", &n);
        if (!k || !n)
            kg_field_required(a, errs, "data[ssh-privatekey]", "");
    } else if (!strcmp(type, "kubernetes.io/tls")) {
        if (!secret_value(a, obj, "tls.crt", &n))
            kg_field_required(a, errs, "data[tls.crt]", "");
        if (!secret_value(a, obj, "tls.key", &n))
            kg_field_required(a, errs, "data[tls.key]", "");
    }
}

/* A map field compared as reflect.DeepEqual would after decoding (absent and empty taken as equal). */
static bool map_equal(const kg_json *x, const kg_json *y)
{
    bool ex = !x || x->type == KG_JSON_NULL || (x->type == KG_JSON_OBJECT && !x->len);
    bool ey = !y || y->type == KG_JSON_NULL || (y->type == KG_JSON_OBJECT && !y->len);
    if (ex || ey)
        return ex && ey;
    return kg_json_equal(x, y);
}

static bool is_true(const kg_json *v)
{
    return v && v->type == KG_JSON_BOOL && v->b;
}

static void validate_immutable(kg_arena *a, const kg_json *obj, const kg_json *old, bool secret, kg_field_errors *errs)
{
    if (!is_true(kg_json_get(old, "immutable")))
        return;
    static const char msg[] = "field is immutable when `immutable` is set";
    if (!is_true(kg_json_get(obj, "immutable")))
        kg_field_forbidden(a, errs, "immutable", msg);
    if (!map_equal(kg_json_get(obj, "data"), kg_json_get(old, "data")))
        kg_field_forbidden(a, errs, "data", msg);
    if (!secret && !map_equal(kg_json_get(obj, "binaryData"), kg_json_get(old, "binaryData")))
        kg_field_forbidden(a, errs, "binaryData", msg);
}

void kg_api_validate_config(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                            kg_field_errors *errs)
{
    if (is(r, "", "secrets")) {
        if (old) {
            const char *nt = kg_json_get_str(obj, "type"), *ot = kg_json_get_str(old, "type");
            nt = nt && nt[0] ? nt : "Opaque"; /* defaulted before validation */
            ot = ot && ot[0] ? ot : "Opaque";
            if (strcmp(nt, ot))
                kg_field_invalid(a, errs, "type", nt, "field is immutable");
            validate_immutable(a, obj, old, true, errs);
        }
        validate_secret_type(a, obj, errs);
    } else if (is(r, "", "configmaps") && old) {
        validate_immutable(a, obj, old, false, errs);
    }
}
