/* CredentialProviderConfig: strict decoding, loading a file or a directory, validation with upstream's messages
 * (pkg/credentialprovider/plugin/config.go) and the bin-dir checks done when the plugins are registered. */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "base/buf.h"
#include "base/str.h"
#include "credentialprovider/credentialprovider.h"
#include "meta/names.h"
#ifdef KG_CRED_HAVE_YAML
#include "yaml/yaml.h"
#endif

#define CFG_GROUP "kubelet.config.k8s.io"

/* ---------------------------------------------------------------- strict decoding */

typedef struct dec {
    kg_arena *a;
    kg_buf strict; /* strict decoding errors, ", " separated */
    kg_error *err;
    bool failed; /* a type error (fatal) */
} dec;

static const char *go_json_type(const kg_json *v)
{
    switch (v->type) {
    case KG_JSON_BOOL: return "bool";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: return "number";
    case KG_JSON_STRING: return "string";
    case KG_JSON_ARRAY: return "array";
    case KG_JSON_OBJECT: return "object";
    default: return "null";
    }
}

static bool type_error(dec *d, const kg_json *v, const char *go_struct, const char *field_path, const char *go_type)
{
    if (!d->failed)
        kg_err_set(d->err, KG_EINVAL, "json: cannot unmarshal %s into Go struct field %s.%s of type %s",
                   go_json_type(v), go_struct, field_path, go_type);
    d->failed = true;
    return false;
}

typedef struct field_schema {
    const char *key;
    const struct field_schema *child; /* object (or list of objects) schema */
} field_schema;

static const field_schema env_schema[] = {{"name", NULL}, {"value", NULL}, {NULL, NULL}};
static const field_schema token_schema[] = {{"serviceAccountTokenAudience", NULL},
                                            {"cacheType", NULL},
                                            {"requireServiceAccount", NULL},
                                            {"requiredServiceAccountAnnotationKeys", NULL},
                                            {"optionalServiceAccountAnnotationKeys", NULL},
                                            {NULL, NULL}};
static const field_schema provider_schema[] = {
    {"name", NULL}, {"matchImages", NULL}, {"defaultCacheDuration", NULL},    {"apiVersion", NULL},
    {"args", NULL}, {"env", env_schema},   {"tokenAttributes", token_schema}, {NULL, NULL}};
/* kubelet.config.k8s.io/v1alpha1 and v1beta1 have no tokenAttributes */
static const field_schema provider_schema_legacy[] = {
    {"name", NULL},      {"matchImages", NULL}, {"defaultCacheDuration", NULL}, {"apiVersion", NULL}, {"args", NULL},
    {"env", env_schema}, {NULL, NULL}};
static const field_schema top_schema[] = {
    {"kind", NULL}, {"apiVersion", NULL}, {"providers", provider_schema}, {NULL, NULL}};
static const field_schema top_schema_legacy[] = {
    {"kind", NULL}, {"apiVersion", NULL}, {"providers", provider_schema_legacy}, {NULL, NULL}};

/* Unknown fields in document order, named like sigs.k8s.io/json does ("providers[0].env[1].x"). */
static void unknown_fields(dec *d, const kg_json *obj, const char *path, const field_schema *schema)
{
    for (uint32_t i = 0; i < obj->len; i++) {
        const char *k = obj->u.members[i].key;
        const kg_json *v = obj->u.members[i].val;
        const field_schema *f = schema;
        while (f->key && strcmp(f->key, k))
            f++;
        char *sub = kg_arena_sprintf(d->a, "%s%s%s", path, *path ? "." : "", k);
        if (!f->key) {
            if (d->strict.len)
                kg_buf_puts(&d->strict, ", ");
            kg_buf_printf(&d->strict, "unknown field \"%s\"", sub);
            continue;
        }
        if (!f->child)
            continue;
        if (v->type == KG_JSON_OBJECT)
            unknown_fields(d, v, sub, f->child);
        else if (v->type == KG_JSON_ARRAY)
            for (uint32_t j = 0; j < v->len; j++)
                if (v->u.items[j]->type == KG_JSON_OBJECT)
                    unknown_fields(d, v->u.items[j], kg_arena_sprintf(d->a, "%s[%u]", sub, j), f->child);
    }
}

/* A string field: null leaves the default. */
static bool get_string(dec *d, const kg_json *obj, const char *key, const char *go_struct, const char *fpath,
                       const char **out)
{
    kg_json *v = kg_json_get(obj, key);
    if (!v || v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_STRING)
        return type_error(d, v, go_struct, fpath, "string");
    *out = v->u.s;
    return true;
}

static bool get_string_list(dec *d, const kg_json *obj, const char *key, const char *go_struct, const char *fpath,
                            const char ***out, size_t *n)
{
    kg_json *v = kg_json_get(obj, key);
    *out = NULL;
    *n = 0;
    if (!v || v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_ARRAY)
        return type_error(d, v, go_struct, fpath, "[]string");
    *out = kg_arena_calloc(d->a, sizeof(char *) * (v->len + 1));
    for (uint32_t i = 0; i < v->len; i++) {
        kg_json *e = v->u.items[i];
        if (e->type == KG_JSON_NULL) {
            (*out)[i] = "";
            continue;
        }
        if (e->type != KG_JSON_STRING)
            return type_error(d, e, go_struct, fpath, "string");
        (*out)[i] = e->u.s;
    }
    *n = v->len;
    return true;
}

static bool get_duration(dec *d, const kg_json *obj, const char *key, bool *has, int64_t *ns)
{
    kg_json *v = kg_json_get(obj, key);
    *has = false;
    if (!v || v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_STRING) {
        /* metav1.Duration.UnmarshalJSON unmarshals into a string first */
        if (!d->failed)
            kg_err_set(d->err, KG_EINVAL, "json: cannot unmarshal %s into Go value of type string", go_json_type(v));
        d->failed = true;
        return false;
    }
    if (!kg_credentialprovider_parse_duration(v->u.s, ns, d->err)) {
        d->failed = true;
        return false;
    }
    *has = true;
    return true;
}

static bool decode_provider(dec *d, const kg_json *v, size_t idx, kg_cred_provider *p)
{
    const char *S = "CredentialProvider";
    memset(p, 0, sizeof *p);
    p->name = "";
    p->api_version = "";
    if (v->type == KG_JSON_NULL)
        return true;
    if (v->type != KG_JSON_OBJECT)
        return type_error(d, v, "CredentialProviderConfig", "providers", "v1.CredentialProvider");
    if (!get_string(d, v, "name", S, "providers.name", &p->name) ||
        !get_string_list(d, v, "matchImages", S, "providers.matchImages", &p->match_images, &p->n_match_images) ||
        !get_duration(d, v, "defaultCacheDuration", &p->has_default_cache_duration, &p->default_cache_duration) ||
        !get_string(d, v, "apiVersion", S, "providers.apiVersion", &p->api_version) ||
        !get_string_list(d, v, "args", S, "providers.args", &p->args, &p->n_args))
        return false;
    kg_json *env = kg_json_get(v, "env");
    if (env && env->type != KG_JSON_NULL) {
        if (env->type != KG_JSON_ARRAY)
            return type_error(d, env, S, "providers.env", "[]v1.ExecEnvVar");
        p->env = kg_arena_calloc(d->a, sizeof(kg_cred_env) * (env->len + 1));
        p->n_env = env->len;
        for (uint32_t i = 0; i < env->len; i++) {
            kg_json *e = env->u.items[i];
            p->env[i].name = "";
            p->env[i].value = "";
            if (e->type == KG_JSON_NULL)
                continue;
            if (e->type != KG_JSON_OBJECT)
                return type_error(d, e, S, "providers.env", "v1.ExecEnvVar");
            if (!get_string(d, e, "name", "ExecEnvVar", "providers.env.name", &p->env[i].name) ||
                !get_string(d, e, "value", "ExecEnvVar", "providers.env.value", &p->env[i].value))
                return false;
        }
    }
    kg_json *ta = kg_json_get(v, "tokenAttributes");
    if (ta && ta->type != KG_JSON_NULL) {
        const char *T = "ServiceAccountTokenAttributes";
        if (ta->type != KG_JSON_OBJECT)
            return type_error(d, ta, S, "providers.tokenAttributes", "v1.ServiceAccountTokenAttributes");
        kg_cred_token_attributes *t = kg_arena_calloc(d->a, sizeof *t);
        t->audience = "";
        t->cache_type = "";
        p->token = t;
        if (!get_string(d, ta, "serviceAccountTokenAudience", T,
                        "providers.tokenAttributes.serviceAccountTokenAudience", &t->audience) ||
            !get_string(d, ta, "cacheType", T, "providers.tokenAttributes.cacheType", &t->cache_type) ||
            !get_string_list(d, ta, "requiredServiceAccountAnnotationKeys", T,
                             "providers.tokenAttributes.requiredServiceAccountAnnotationKeys", &t->required_keys,
                             &t->n_required) ||
            !get_string_list(d, ta, "optionalServiceAccountAnnotationKeys", T,
                             "providers.tokenAttributes.optionalServiceAccountAnnotationKeys", &t->optional_keys,
                             &t->n_optional))
            return false;
        kg_json *rs = kg_json_get(ta, "requireServiceAccount");
        if (rs && rs->type != KG_JSON_NULL) {
            if (rs->type != KG_JSON_BOOL)
                return type_error(d, rs, T, "providers.tokenAttributes.requireServiceAccount", "bool");
            t->has_require_sa = true;
            t->require_sa = rs->b;
        }
    }
    return true;
}

/* go-yaml v2 UnmarshalStrict's duplicate-key check, which YAMLToJSONStrict runs for strict decoders:
 * "yaml: unmarshal errors:\n  line N: key \"k\" already set in map" (N is the line of the repeated key's value).
 * Returns NULL when there is no duplicate or the YAML does not parse (the parser proper reports that). */
typedef struct yframe {
    bool mapping;
    bool want_key;
    const char **keys;
    size_t nkeys, cap;
    const char *pending_dup; /* key text, formatted, waiting for its value's line */
} yframe;

static bool plain_number(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static void yframe_value_seen(kg_arena *a, yframe *f, size_t line, kg_buf *errs)
{
    if (f->pending_dup) {
        kg_buf_printf(errs, "\n  line %zu: key %s already set in map", line + 1, f->pending_dup);
        f->pending_dup = NULL;
    }
    f->want_key = true;
}

static char *yaml_duplicate_keys(kg_arena *a, const char *data, size_t len)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return NULL;
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
    yframe stack[KG_JSON_MAX_DEPTH];
    int depth = 0;
    kg_buf errs = KG_BUF_INIT;
    bool done = false;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev))
            break;
        yframe *top = depth > 0 ? &stack[depth - 1] : NULL;
        size_t line = ev.start_mark.line;
        switch (ev.type) {
        case YAML_DOCUMENT_END_EVENT:
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_SCALAR_EVENT:
        case YAML_ALIAS_EVENT:
            if (top && top->mapping && top->want_key) {
                top->want_key = false;
                if (ev.type != YAML_SCALAR_EVENT)
                    break;
                const char *k = (const char *)ev.data.scalar.value;
                bool plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
                if (plain && !strcmp(k, "<<"))
                    break;
                const char *id = kg_arena_sprintf(a, "%c%s", plain ? 'p' : 'q', k);
                for (size_t i = 0; i < top->nkeys; i++)
                    if (!strcmp(top->keys[i], id)) {
                        kg_buf q = KG_BUF_INIT;
                        if (plain && plain_number(k))
                            kg_buf_puts(&q, k);
                        else
                            kg_json_write_string(&q, k, strlen(k), KG_JSON_WRITE_NO_ESCAPE_HTML);
                        top->pending_dup = kg_arena_strdup(a, kg_buf_cstr(&q));
                        kg_buf_free(&q);
                        break;
                    }
                if (top->nkeys == top->cap) {
                    size_t nc = top->cap ? top->cap * 2 : 8;
                    top->keys = kg_arena_realloc(a, top->keys, sizeof(char *) * top->cap, sizeof(char *) * nc);
                    top->cap = nc;
                }
                top->keys[top->nkeys++] = id;
            } else if (top && top->mapping) {
                yframe_value_seen(a, top, line, &errs);
            }
            break;
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            if (top && top->mapping) {
                if (top->want_key)
                    top->want_key = false; /* a complex key: not checked */
                else if (top->pending_dup) {
                    kg_buf_printf(&errs, "\n  line %zu: key %s already set in map", line + 1, top->pending_dup);
                    top->pending_dup = NULL;
                }
            }
            if (depth == KG_JSON_MAX_DEPTH) {
                done = true;
                break;
            }
            stack[depth++] = (yframe){.mapping = ev.type == YAML_MAPPING_START_EVENT, .want_key = true};
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            if (depth > 0)
                depth--;
            if (depth > 0 && stack[depth - 1].mapping)
                stack[depth - 1].want_key = true;
            break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    char *r = errs.len ? kg_arena_sprintf(a, "yaml: unmarshal errors:%s", kg_buf_cstr(&errs)) : NULL;
    kg_buf_free(&errs);
    return r;
}

typedef struct doc_info {
    bool yaml; /* decoded by the YAML path (the serializer did not recognise JSON) */
    kg_json_parse_info json;
    const char *yaml_dups;
} doc_info;

static bool parse_doc(kg_arena *a, const char *data, size_t len, kg_json **out, doc_info *info, kg_error *err)
{
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    if (i < len && data[i] == '{') {
        *out = kg_json_parse_ex(a, data, len, KG_JSON_PARSE_DUP_REPORT, &info->json, err);
        return *out != NULL;
    }
    info->yaml = true;
#ifdef KG_CRED_HAVE_YAML
    *out = kg_yaml_or_json_parse(a, data, len, err);
#else
    *out = kg_json_parse(a, data, len, err);
#endif
    if (*out)
        info->yaml_dups = yaml_duplicate_keys(a, data, len);
    return *out != NULL;
}

bool kg_credentialprovider_config_decode(kg_arena *a, const char *data, size_t len, kg_cred_config *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    kg_json *doc;
    doc_info info = {0};
    KG_ERROR_DECL(perr);
    if (!parse_doc(a, data, len, &doc, &info, &perr) && kg_credentialprovider_go_json_error(perr.msg)) {
        if (info.yaml)
            return kg_err_set(err, KG_EINVAL, "error converting YAML to JSON: %s", perr.msg);
        return kg_err_set(err, KG_EINVAL, "couldn't get version/kind; json parse error: %s", perr.msg);
    }
    if (doc->type != KG_JSON_OBJECT)
        return kg_err_set(err, KG_EINVAL,
                          "couldn't get version/kind; json parse error: json: cannot unmarshal %s "
                          "into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                          "Kind string \"json:\\\"kind,omitempty\\\"\" }",
                          go_json_type(doc));
    kg_json *kv = kg_json_get(doc, "kind"), *av = kg_json_get(doc, "apiVersion");
    const char *kind = kv && kv->type == KG_JSON_STRING ? kv->u.s : "";
    const char *apiv = av && av->type == KG_JSON_STRING ? av->u.s : "";
    if (!*kind) {
        char *d = kg_arena_strndup(a, data, len);
        return kg_err_set(err, KG_EINVAL, "Object 'Kind' is missing in '%s'", d);
    }
    bool known_version =
        !strcmp(apiv, CFG_GROUP "/v1") || !strcmp(apiv, CFG_GROUP "/v1beta1") || !strcmp(apiv, CFG_GROUP "/v1alpha1");
    if (!known_version || strcmp(kind, "CredentialProviderConfig") != 0)
        return kg_err_set(err, KG_EINVAL, "no kind \"%s\" is registered for version \"%s\"", kind, apiv);
    dec d = {.a = a, .err = err};
    if (info.yaml_dups)
        kg_buf_puts(&d.strict, info.yaml_dups);
    bool legacy = strcmp(apiv, CFG_GROUP "/v1") != 0;
    unknown_fields(&d, doc, "", legacy ? top_schema_legacy : top_schema);
    for (size_t i = 0; i < info.json.ndups; i++) {
        if (d.strict.len)
            kg_buf_puts(&d.strict, ", ");
        kg_buf_printf(&d.strict, "duplicate field \"%s\"", info.json.dups[i]);
    }
    kg_json *prov = kg_json_get(doc, "providers");
    bool ok = true;
    if (prov && prov->type != KG_JSON_NULL) {
        if (prov->type != KG_JSON_ARRAY) {
            ok = type_error(&d, prov, "CredentialProviderConfig", "providers", "[]v1.CredentialProvider");
        } else {
            out->providers = kg_arena_calloc(a, sizeof(kg_cred_provider) * (prov->len + 1));
            out->n_providers = prov->len;
            for (uint32_t i = 0; ok && i < prov->len; i++)
                ok = decode_provider(&d, prov->u.items[i], i, &out->providers[i]);
        }
    }
    if (!ok) {
        kg_buf_free(&d.strict);
        return false;
    }
    if (d.strict.len) {
        kg_err_set(err, KG_EINVAL, "strict decoding error: %s", kg_buf_cstr(&d.strict));
        kg_buf_free(&d.strict);
        return false;
    }
    kg_buf_free(&d.strict);
    return true;
}

/* ---------------------------------------------------------------- loading */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void hash_update(EVP_MD_CTX *h, const char *data, size_t len)
{
    unsigned char be[8];
    uint64_t n = len;
    for (int i = 7; i >= 0; i--) {
        be[i] = (unsigned char)(n & 0xff);
        n >>= 8;
    }
    EVP_DigestUpdate(h, be, 8);
    EVP_DigestUpdate(h, data, len);
}

bool kg_credentialprovider_config_load(kg_arena *a, const char *path, kg_cred_config *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!path || !*path)
        return kg_err_set(err, KG_EINVAL, "credential provider config path is empty");
    struct stat st;
    if (stat(path, &st) != 0)
        return kg_err_set(err, KG_EIO, "unable to access path \"%s\": stat %s: %s", path, path, strerror(errno));
    const char **files = NULL;
    size_t nfiles = 0;
    if (S_ISDIR(st.st_mode)) {
        DIR *dir = opendir(path);
        if (!dir)
            return kg_err_set(err, KG_EIO, "unable to read directory \"%s\": open %s: %s", path, path, strerror(errno));
        size_t cap = 8;
        files = kg_arena_alloc(a, sizeof(char *) * cap);
        struct dirent *de;
        while ((de = readdir(dir))) {
            const char *n = de->d_name;
            if (!strcmp(n, ".") || !strcmp(n, ".."))
                continue;
            char *full = kg_arena_sprintf(a, "%s/%s", path, n);
            struct stat fst;
            if (stat(full, &fst) != 0 || S_ISDIR(fst.st_mode))
                continue;
            if (!kg_str_has_suffix(n, ".json") && !kg_str_has_suffix(n, ".yaml") && !kg_str_has_suffix(n, ".yml"))
                continue;
            if (nfiles == cap) {
                files = kg_arena_realloc(a, files, sizeof(char *) * cap, sizeof(char *) * cap * 2);
                cap *= 2;
            }
            files[nfiles++] = full;
        }
        closedir(dir);
        if (nfiles == 0)
            return kg_err_set(err, KG_ENOTFOUND, "no configuration files found in directory \"%s\"", path);
        qsort(files, nfiles, sizeof(char *), cmp_str);
    } else {
        files = kg_arena_alloc(a, sizeof(char *));
        files[0] = path;
        nfiles = 1;
    }
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    EVP_DigestInit_ex(h, EVP_sha256(), NULL);
    size_t cap = 0;
    for (size_t f = 0; f < nfiles; f++) {
        size_t len;
        char *data = kg_read_file(files[f], &len);
        if (!data) {
            EVP_MD_CTX_free(h);
            return kg_err_set(err, KG_EIO, "unable to read file \"%s\": open %s: %s", files[f], files[f],
                              strerror(errno));
        }
        hash_update(h, data, len);
        kg_cred_config one;
        bool ok = kg_credentialprovider_config_decode(a, data, len, &one, err);
        free(data);
        if (!ok) {
            EVP_MD_CTX_free(h);
            return kg_err_prefix(err, "error decoding config \"%s\"", files[f]);
        }
        for (size_t i = 0; i < one.n_providers; i++) {
            for (size_t j = 0; j < out->n_providers; j++)
                if (!strcmp(out->providers[j].name, one.providers[i].name)) {
                    EVP_MD_CTX_free(h);
                    return kg_err_set(err, KG_EINVAL, "duplicate provider name \"%s\" found in configuration file(s)",
                                      one.providers[i].name);
                }
            if (out->n_providers == cap) {
                size_t nc = cap ? cap * 2 : 8;
                out->providers =
                    kg_arena_realloc(a, out->providers, sizeof(kg_cred_provider) * cap, sizeof(kg_cred_provider) * nc);
                cap = nc;
            }
            out->providers[out->n_providers++] = one.providers[i];
        }
    }
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_DigestFinal_ex(h, md, &mdlen);
    EVP_MD_CTX_free(h);
    char *o = out->hash;
    o += sprintf(o, "sha256:");
    for (unsigned i = 0; i < mdlen; i++)
        o += sprintf(o, "%02x", md[i]);
    return true;
}

/* ---------------------------------------------------------------- validation */

typedef struct errlist {
    kg_arena *a;
    const char **v;
    size_t n, cap;
} errlist;

__attribute__((format(printf, 2, 3))) static void add_err(errlist *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kg_buf b = KG_BUF_INIT;
    kg_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        l->v = kg_arena_realloc(l->a, l->v, sizeof(char *) * l->cap, sizeof(char *) * nc);
        l->cap = nc;
    }
    l->v[l->n++] = kg_arena_strdup(l->a, kg_buf_cstr(&b));
    kg_buf_free(&b);
}

static char *q(kg_arena *a, const char *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_json_write_string(&b, s, strlen(s), KG_JSON_WRITE_NO_ESCAPE_HTML);
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

static void validate_keys(errlist *l, const char *fld, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *lower = kg_arena_strdup(l->a, keys[i]);
        for (char *c = lower; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        kg_name_errs ne;
        kg_is_qualified_name(lower, &ne);
        for (size_t m = 0; m < ne.n; m++)
            add_err(l, "%s: Invalid value: %s: %s", fld, q(l->a, keys[i]), ne.msg[m]);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(keys[j], keys[i])) {
                add_err(l, "%s: Duplicate value: %s", fld, q(l->a, keys[i]));
                break;
            }
    }
}

size_t kg_credentialprovider_config_validate(kg_arena *a, const kg_cred_config *cfg, bool gate, const char ***errs)
{
    errlist l = {.a = a};
    if (cfg->n_providers == 0)
        add_err(&l, "providers: Required value: at least 1 item in plugins is required");
    for (size_t i = 0; i < cfg->n_providers; i++) {
        const kg_cred_provider *p = &cfg->providers[i];
        if (strchr(p->name, '/'))
            add_err(&l, "providers.name: Invalid value: %s: provider name cannot contain '/'", q(a, p->name));
        if (strchr(p->name, ' '))
            add_err(&l, "providers.name: Invalid value: %s: provider name cannot contain spaces", q(a, p->name));
        if (!strcmp(p->name, "."))
            add_err(&l, "providers.name: Invalid value: %s: provider name cannot be '.'", q(a, p->name));
        if (!strcmp(p->name, ".."))
            add_err(&l, "providers.name: Invalid value: %s: provider name cannot be '..'", q(a, p->name));
        for (size_t j = 0; j < i; j++)
            if (!strcmp(cfg->providers[j].name, p->name)) {
                add_err(&l, "providers.name: Duplicate value: %s", q(a, p->name));
                break;
            }
        if (!*p->api_version)
            add_err(&l, "providers.apiVersion: Required value");
        else if (strcmp(p->api_version, KG_CRED_API_V1) && strcmp(p->api_version, KG_CRED_API_V1 "alpha1") &&
                 strcmp(p->api_version, KG_CRED_API_V1 "beta1"))
            add_err(&l,
                    "providers.apiVersion: Unsupported value: %s: supported values: \"" KG_CRED_API_V1
                    "\", \"" KG_CRED_API_V1 "alpha1\", \"" KG_CRED_API_V1 "beta1\"",
                    q(a, p->api_version));
        if (p->n_match_images == 0)
            add_err(&l, "providers.matchImages: Required value: at least 1 item in matchImages is required");
        for (size_t m = 0; m < p->n_match_images; m++) {
            kg_cred_url u;
            KG_ERROR_DECL(e);
            if (!kg_credentialprovider_parse_schemeless_url(a, p->match_images[m], &u, &e))
                add_err(&l, "providers.matchImages: Invalid value: %s: match image is invalid: %s",
                        q(a, p->match_images[m]), e.msg);
        }
        if (!p->has_default_cache_duration)
            add_err(&l, "providers.defaultCacheDuration: Required value");
        else if (p->default_cache_duration < 0)
            add_err(&l, "providers.defaultCacheDuration: Invalid value: %s: must be greater than or equal to 0",
                    q(a, kg_credentialprovider_format_duration(a, p->default_cache_duration)));
        const kg_cred_token_attributes *t = p->token;
        if (!t)
            continue;
        if (!gate)
            add_err(&l, "providers.tokenAttributes: Forbidden: tokenAttributes is not supported when "
                        "KubeletServiceAccountTokenForCredentialProviders feature gate is disabled");
        if (!*t->audience)
            add_err(&l, "providers.tokenAttributes.serviceAccountTokenAudience: Required value");
        if (!t->has_require_sa)
            add_err(&l, "providers.tokenAttributes.requireServiceAccount: Required value");
        if (strcmp(p->api_version, KG_CRED_API_V1) != 0)
            add_err(&l, "providers.tokenAttributes: Forbidden: tokenAttributes is only supported for " KG_CRED_API_V1
                        " API version");
        if (t->has_require_sa && !t->require_sa && t->n_required > 0)
            add_err(&l, "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Forbidden: "
                        "requireServiceAccount cannot be false when requiredServiceAccountAnnotationKeys is set");
        validate_keys(&l, "providers.tokenAttributes.requiredServiceAccountAnnotationKeys", t->required_keys,
                      t->n_required);
        validate_keys(&l, "providers.tokenAttributes.optionalServiceAccountAnnotationKeys", t->optional_keys,
                      t->n_optional);
        /* sorted, de-duplicated intersection */
        const char **both = kg_arena_alloc(a, sizeof(char *) * (t->n_required + 1));
        size_t nb = 0;
        for (size_t r = 0; r < t->n_required; r++) {
            bool in_opt = false, seen = false;
            for (size_t o = 0; o < t->n_optional; o++)
                in_opt = in_opt || !strcmp(t->required_keys[r], t->optional_keys[o]);
            for (size_t k = 0; k < nb; k++)
                seen = seen || !strcmp(both[k], t->required_keys[r]);
            if (in_opt && !seen)
                both[nb++] = t->required_keys[r];
        }
        if (nb) {
            qsort(both, nb, sizeof(char *), cmp_str);
            kg_buf b = KG_BUF_INIT;
            kg_buf_putc(&b, '[');
            for (size_t k = 0; k < nb; k++) {
                if (k)
                    kg_buf_putc(&b, ',');
                kg_buf_puts(&b, q(a, both[k]));
            }
            kg_buf_putc(&b, ']');
            add_err(&l,
                    "providers.tokenAttributes: Invalid value: %s: annotation keys cannot be both required and "
                    "optional",
                    kg_buf_cstr(&b));
            kg_buf_free(&b);
        }
        if (!*t->cache_type)
            add_err(&l, "providers.tokenAttributes.cacheType: Required value: cacheType is required to be set when "
                        "tokenAttributes is specified. Supported values are: ServiceAccount, Token");
        else if (strcmp(t->cache_type, "ServiceAccount") && strcmp(t->cache_type, "Token"))
            add_err(&l,
                    "providers.tokenAttributes.cacheType: Unsupported value: %s: supported values: "
                    "\"ServiceAccount\", \"Token\"",
                    q(a, t->cache_type));
    }
    *errs = l.v;
    return l.n;
}

char *kg_credentialprovider_aggregate(kg_arena *a, const char *const *errs, size_t n)
{
    const char **uniq = kg_arena_alloc(a, sizeof(char *) * (n + 1));
    size_t nu = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < nu && !seen; j++)
            seen = !strcmp(uniq[j], errs[i]);
        if (!seen)
            uniq[nu++] = errs[i];
    }
    if (nu == 0)
        return kg_arena_strdup(a, "");
    if (nu == 1)
        return kg_arena_strdup(a, uniq[0]);
    kg_buf b = KG_BUF_INIT;
    kg_buf_putc(&b, '[');
    for (size_t i = 0; i < nu; i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, uniq[i]);
    }
    kg_buf_putc(&b, ']');
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

bool kg_credentialprovider_check_bin_dir(kg_arena *a, const kg_cred_config *cfg, const char *bin_dir, kg_error *err)
{
    struct stat st;
    if (!bin_dir || stat(bin_dir, &st) != 0) {
        if (!bin_dir || errno == ENOENT)
            return kg_err_set(err, KG_ENOTFOUND, "plugin binary directory %s did not exist", bin_dir ? bin_dir : "");
        return kg_err_set(err, KG_EIO, "error inspecting binary directory %s: stat %s: %s", bin_dir, bin_dir,
                          strerror(errno));
    }
    for (size_t i = 0; i < cfg->n_providers; i++) {
        const kg_cred_provider *p = &cfg->providers[i];
        char *path = kg_arena_sprintf(a, "%s/%s", bin_dir, p->name);
        /* exec.LookPath on a path with a slash: stat, then require a regular file with an execute bit */
        if (stat(path, &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                return kg_err_set(err, KG_ENOTFOUND, "plugin binary executable %s did not exist", path);
            return kg_err_set(err, KG_EIO, "error inspecting binary executable %s: exec: \"%s\": stat %s: %s", path,
                              path, path, strerror(errno));
        }
        if (S_ISDIR(st.st_mode) || !(st.st_mode & 0111))
            return kg_err_set(err, KG_EINVAL, "error inspecting binary executable %s: exec: \"%s\": %s", path, path,
                              S_ISDIR(st.st_mode) ? "is a directory" : "permission denied");
    }
    return true;
}
