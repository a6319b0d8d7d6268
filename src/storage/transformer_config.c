/* EncryptionConfiguration (apiserver.config.k8s.io/v1) → kg_transformer, validated as kube-apiserver's
 * ValidateEncryptionConfiguration does (field paths and messages as upstream; errors joined as "[e1, e2]"). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base/base64.h"
#include "base/buf.h"
#include "storage/transformer_internal.h"
#include "yaml/yaml.h"

#define MAX_FILE_BYTES (1u << 20)

typedef struct errs {
    kg_buf b;
    int n;
} errs;

static void add(errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(errs *e, const char *fmt, ...)
{
    if (e->n++)
        kg_buf_puts(&e->b, ", ");
    va_list ap;
    va_start(ap, fmt);
    kg_buf_vprintf(&e->b, fmt, ap);
    va_end(ap);
}

static size_t list_len(const kg_json *v)
{
    return kg_json_is(v, KG_JSON_ARRAY) ? v->len : 0;
}

/* a resources[].resources entry */
static void parse_pattern(kg_transformer *t, const char *path, const char *s, kg_xf_pattern *pt, errs *e)
{
    memset(pt, 0, sizeof *pt);
    for (const char *p = s; *p; p++)
        if (*p >= 'A' && *p <= 'Z') {
            add(e, "%s: Invalid value: \"%s\": resource name should not contain any upper case characters", path, s);
            return;
        }
    if (strcmp(s, "*") == 0) {
        add(e,
            "%s: Invalid value: \"*\": use '*.' to encrypt all the resources from core API group or *.* to "
            "encrypt all resources",
            path);
        return;
    }
    if (!*s) {
        add(e, "%s: Required value: resource name is required", path);
        return;
    }
    const char *dot = strchr(s, '.');
    if (!dot) { /* a core resource */
        pt->group = "";
        pt->resource = kg_arena_strdup(&t->arena, s);
        return;
    }
    pt->resource = kg_arena_strndup(&t->arena, s, (size_t)(dot - s));
    pt->group = kg_arena_strdup(&t->arena, dot + 1);
    pt->any_resource = strcmp(pt->resource, "*") == 0;
    pt->any_group = strcmp(pt->group, "*") == 0;
    if (pt->any_group && !pt->any_resource)
        add(e, "%s: Invalid value: \"%s\": resource name with a wildcard group must be '*.*'", path, s);
}

static void parse_keys(kg_transformer *t, const char *path, kg_xf_type type, const char *tname, const kg_json *p,
                       const int *lens, const char *lens_str, kg_xf_key *out, size_t *nout, errs *e)
{
    const kg_json *keys = kg_json_get(p, "keys");
    if (list_len(keys) == 0) {
        add(e, "%s.keys: Required value: at least one keys is required", path);
        return;
    }
    for (size_t i = 0; i < keys->len; i++) {
        const kg_json *k = keys->u.items[i];
        const char *name = kg_json_get_str(k, "name");
        const char *secret = kg_json_get_str(k, "secret");
        bool bad = false;
        if (!name || !*name) {
            add(e, "%s.keys[%zu].name: Required value: name is a mandatory field for a key", path, i);
            bad = true;
        } else {
            for (size_t j = 0; j < i; j++) {
                const char *other = kg_json_get_str(keys->u.items[j], "name");
                if (other && strcmp(other, name) == 0) {
                    add(e, "%s.keys[%zu].name: Duplicate value: \"%s\"", path, i, name);
                    bad = true;
                    break;
                }
            }
        }
        if (!secret || !*secret) {
            add(e, "%s.keys[%zu].secret: Required value: secret is a mandatory field for a key", path, i);
            continue;
        }
        size_t slen = strlen(secret);
        if (!kg_base64_valid(secret, slen, 0)) {
            add(e, "%s.keys[%zu].secret: Invalid value: \"REDACTED\": secrets must be base64 encoded", path, i);
            continue;
        }
        unsigned char buf[kg_base64_decoded_cap(64)];
        size_t n = 0;
        bool fits = slen <= 64 && kg_base64_decode_to(secret, slen, 0, buf, &n, NULL);
        if (!fits)
            n = slen / 4 * 3; /* too long to be a key: report the decoded length */
        bool ok = false;
        for (const int *l = lens; *l; l++)
            ok = ok || (size_t)*l == n;
        if (!ok) {
            add(e,
                "%s.keys[%zu].secret: Invalid value: \"REDACTED\": secret is not of the expected length, got %zu, "
                "expected one of %s",
                path, i, n, lens_str);
            OPENSSL_cleanse(buf, sizeof buf);
            continue;
        }
        if (!bad && out) {
            kg_xf_key *x = &out[(*nout)++];
            x->type = type;
            x->prefix = kg_arena_sprintf(&t->arena, "k8s:enc:%s:v1:%s:", tname, name);
            x->plen = strlen(x->prefix);
            memcpy(x->secret, buf, n);
            x->secret_len = n;
        }
        OPENSSL_cleanse(buf, sizeof buf);
    }
}

static void parse_rule(kg_transformer *t, size_t ri, const kg_json *r, kg_xf_rule *rule, errs *e)
{
    char path[64];
    const kg_json *res = kg_json_get(r, "resources");
    const kg_json *provs = kg_json_get(r, "providers");
    if (list_len(res) == 0)
        add(e, "resources[%zu].resources: Required value: at least one resources[%zu].resources is required", ri, ri);
    if (list_len(provs) == 0)
        add(e, "resources[%zu].providers: Required value: at least one resources[%zu].providers is required", ri, ri);
    rule->patterns = kg_arena_calloc(&t->arena, (list_len(res) + 1) * sizeof *rule->patterns);
    for (size_t i = 0; i < list_len(res); i++) {
        snprintf(path, sizeof path, "resources[%zu].resources[%zu]", ri, i);
        const kg_json *s = res->u.items[i];
        if (!kg_json_is(s, KG_JSON_STRING)) {
            add(e, "%s: Invalid value: resource must be a string", path);
            continue;
        }
        parse_pattern(t, path, s->u.s, &rule->patterns[rule->npatterns], e);
        if (rule->patterns[rule->npatterns].resource)
            rule->npatterns++;
    }
    size_t cap = 0;
    for (size_t j = 0; j < list_len(provs); j++) {
        const kg_json *p = provs->u.items[j];
        const kg_json *ks = NULL;
        static const char *const kinds[] = {"aescbc", "aesgcm", "secretbox"};
        for (size_t k = 0; k < 3; k++)
            if ((ks = kg_json_get(kg_json_get(p, kinds[k]), "keys")) && list_len(ks))
                cap += ks->len;
        cap++;
    }
    rule->keys = kg_arena_calloc(&t->arena, (cap + 1) * sizeof *rule->keys);
    static const int aes_lens[] = {16, 24, 32, 0}, box_lens[] = {32, 0};
    for (size_t j = 0; j < list_len(provs); j++) {
        const kg_json *p = provs->u.items[j];
        snprintf(path, sizeof path, "resources[%zu].providers[%zu]", ri, j);
        const kg_json *kms = kg_json_get(p, "kms"), *gcm = kg_json_get(p, "aesgcm"), *cbc = kg_json_get(p, "aescbc"),
                      *box = kg_json_get(p, "secretbox"), *id = kg_json_get(p, "identity");
        int found = !!kms + !!gcm + !!cbc + !!box + !!id;
        if (found == 0) {
            add(e,
                "%s: Invalid value: {}: provider does not contain any of the expected providers: KMS, AESGCM, "
                "AESCBC, Secretbox, Identity",
                path);
            continue;
        }
        if (found > 1) {
            add(e,
                "%s: Invalid value: {}: more than one provider specified in a single element, should split into "
                "different list elements",
                path);
            continue;
        }
        char sub[96];
        if (kms) {
            add(e,
                "%s.kms: Unsupported value: \"kms\": KMS providers are not supported by kgate (supported: aescbc, "
                "aesgcm, secretbox, identity)",
                path);
        } else if (gcm) {
            snprintf(sub, sizeof sub, "%s.aesgcm", path);
            parse_keys(t, sub, KG_XF_AESGCM, "aesgcm", gcm, aes_lens, "[16 24 32]", rule->keys, &rule->nkeys, e);
        } else if (cbc) {
            snprintf(sub, sizeof sub, "%s.aescbc", path);
            parse_keys(t, sub, KG_XF_AESCBC, "aescbc", cbc, aes_lens, "[16 24 32]", rule->keys, &rule->nkeys, e);
        } else if (box) {
            snprintf(sub, sizeof sub, "%s.secretbox", path);
            parse_keys(t, sub, KG_XF_SECRETBOX, "secretbox", box, box_lens, "[32]", rule->keys, &rule->nkeys, e);
        } else {
            kg_xf_key *x = &rule->keys[rule->nkeys++];
            x->type = KG_XF_IDENTITY;
            x->prefix = "";
        }
    }
}

kg_transformer *kg_transformer_parse(const char *text, size_t len, kg_error *err)
{
    kg_transformer *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    kg_arena_init(&t->arena, 4096);
    errs e = {KG_BUF_INIT, 0};
    KG_ERROR_DECL(perr);
    kg_json *doc = kg_yaml_or_json_parse(&t->arena, text, len, &perr);
    if (!doc) {
        kg_err_set(err, KG_EINVAL, "error while parsing file: %s", perr.msg);
        goto fail;
    }
    const char *av = kg_json_get_str(doc, "apiVersion"), *kind = kg_json_get_str(doc, "kind");
    if (!kg_json_is(doc, KG_JSON_OBJECT) || !av || !kind || strcmp(av, "apiserver.config.k8s.io/v1") != 0 ||
        strcmp(kind, "EncryptionConfiguration") != 0) {
        kg_err_set(err, KG_EINVAL, "error while parsing file: no kind \"%s\" is registered for version \"%s\"",
                   kind ? kind : "", av ? av : "");
        goto fail;
    }
    const kg_json *res = kg_json_get(doc, "resources");
    if (list_len(res) == 0) {
        kg_err_set(err, KG_EINVAL,
                   "error while parsing file: resources: Required value: at least one resources is "
                   "required");
        goto fail;
    }
    t->rules = kg_arena_calloc(&t->arena, res->len * sizeof *t->rules);
    t->nrules = res->len;
    for (size_t i = 0; i < res->len; i++)
        parse_rule(t, i, res->u.items[i], &t->rules[i], &e);
    /* a resource named twice: the later rule would never apply */
    for (size_t i = 0; i < t->nrules; i++)
        for (size_t j = 0; j < t->rules[i].npatterns; j++)
            for (size_t k = 0; k <= i; k++)
                for (size_t l = 0; l < (k == i ? j : t->rules[k].npatterns); l++) {
                    const kg_xf_pattern *a = &t->rules[i].patterns[j], *b = &t->rules[k].patterns[l];
                    if (strcmp(a->group, b->group) == 0 && strcmp(a->resource, b->resource) == 0)
                        add(&e, "resources[%zu].resources[%zu]: Duplicate value: \"%s%s%s\"", i, j, a->resource,
                            a->group[0] || a->any_resource ? "." : "", a->group);
                }
    if (e.n) {
        kg_err_set(err, KG_EINVAL, "error while parsing file: %s%.*s%s", e.n > 1 ? "[" : "", (int)e.b.len,
                   e.b.data ? e.b.data : "", e.n > 1 ? "]" : "");
        goto fail;
    }
    kg_buf_free(&e.b);
    return t;
fail:
    kg_buf_free(&e.b);
    kg_transformer_free(t);
    return NULL;
}

kg_transformer *kg_transformer_load(const char *path, kg_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_err_set(err, KG_EINVAL, "error opening encryption provider configuration file \"%s\": open %s: %s", path,
                   path, strerror(errno));
        return NULL;
    }
    kg_buf b = KG_BUF_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= MAX_FILE_BYTES)
        kg_buf_append(&b, chunk, n);
    fclose(f);
    kg_transformer *t = NULL;
    if (b.len > MAX_FILE_BYTES)
        kg_err_set(err, KG_EINVAL, "encryption provider configuration file \"%s\" is larger than 1 MiB", path);
    else
        t = kg_transformer_parse(b.data ? b.data : "", b.len, err);
    if (b.data)
        OPENSSL_cleanse(b.data, b.len);
    kg_buf_free(&b);
    if (!t)
        kg_err_prefix(err, "error while parsing encryption provider configuration file \"%s\"", path);
    return t;
}
