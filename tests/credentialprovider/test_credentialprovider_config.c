/* CredentialProviderConfig: strict decoding (JSON and YAML), file/directory loading, every validation rule with
 * upstream's exact text, the aggregate rendering and the bin-dir checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/str.h"
#include "credentialprovider/credentialprovider.h"

#define V1 "credentialprovider.kubelet.k8s.io/v1"
#define GOOD_PROVIDER                                                                                                  \
    "\"name\":\"p\",\"matchImages\":[\"*.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\""

static char tmpdir[256];

static void write_file(const char *path, const char *text, int mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    chmod(path, (mode_t)mode);
}

/* Validate a config holding the given providers (a JSON array body); returns every error joined by '\n'. */
static char *validate(kg_arena *a, const char *providers, bool gate)
{
    char *doc = kg_arena_sprintf(
        a, "{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"CredentialProviderConfig\",\"providers\":[%s]}",
        providers);
    kg_cred_config cfg;
    kg_error e = {0};
    if (!kg_credentialprovider_config_decode(a, doc, strlen(doc), &cfg, &e))
        fail_msg("decode: %s", e.msg);
    const char **errs;
    size_t n = kg_credentialprovider_config_validate(a, &cfg, gate, &errs);
    char *out = kg_arena_strdup(a, "");
    for (size_t i = 0; i < n; i++)
        out = kg_arena_sprintf(a, "%s%s%s", out, i ? "\n" : "", errs[i]);
    return out;
}

static void valid_config_decodes_fields(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *yaml = "apiVersion: kubelet.config.k8s.io/v1\n"
                       "kind: CredentialProviderConfig\n"
                       "providers:\n"
                       "- name: ecr-credential-provider\n"
                       "  matchImages: [\"*.dkr.ecr.*.amazonaws.com\", \"*.dkr.ecr.*.amazonaws.com.cn\"]\n"
                       "  defaultCacheDuration: \"12h\"\n"
                       "  apiVersion: credentialprovider.kubelet.k8s.io/v1\n"
                       "  args: [\"get-credentials\"]\n"
                       "  env: [{name: AWS_PROFILE, value: temp}]\n"
                       "- name: acme-sa-provider\n"
                       "  matchImages: [\"registry.acme.io\"]\n"
                       "  defaultCacheDuration: \"5m\"\n"
                       "  apiVersion: credentialprovider.kubelet.k8s.io/v1\n"
                       "  tokenAttributes:\n"
                       "    serviceAccountTokenAudience: \"registry.acme.io\"\n"
                       "    cacheType: ServiceAccount\n"
                       "    requireServiceAccount: true\n"
                       "    requiredServiceAccountAnnotationKeys: [\"acme.io/identity-id\"]\n"
                       "    optionalServiceAccountAnnotationKeys: [\"acme.io/identity-type\"]\n";
    kg_cred_config cfg;
    kg_error e = {0};
    if (!kg_credentialprovider_config_decode(&a, yaml, strlen(yaml), &cfg, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(cfg.n_providers, 2);
    kg_cred_provider *p = &cfg.providers[0];
    assert_string_equal(p->name, "ecr-credential-provider");
    assert_int_equal(p->n_match_images, 2);
    assert_string_equal(p->match_images[1], "*.dkr.ecr.*.amazonaws.com.cn");
    assert_true(p->has_default_cache_duration);
    assert_int_equal(p->default_cache_duration, INT64_C(12) * 3600 * KG_CRED_SECOND);
    assert_int_equal(p->n_args, 1);
    assert_string_equal(p->args[0], "get-credentials");
    assert_int_equal(p->n_env, 1);
    assert_string_equal(p->env[0].name, "AWS_PROFILE");
    assert_string_equal(p->env[0].value, "temp");
    assert_null(p->token);
    p = &cfg.providers[1];
    assert_non_null(p->token);
    assert_string_equal(p->token->audience, "registry.acme.io");
    assert_string_equal(p->token->cache_type, "ServiceAccount");
    assert_true(p->token->has_require_sa && p->token->require_sa);
    assert_int_equal(p->token->n_required, 1);
    assert_string_equal(p->token->optional_keys[0], "acme.io/identity-type");
    const char **errs;
    assert_int_equal(kg_credentialprovider_config_validate(&a, &cfg, true, &errs), 0);
    kg_arena_free(&a);
}

static void decode_errors(void **state)
{
    static const struct {
        const char *doc, *msg;
    } c[] = {
        {"{\"apiVersion\":\"kubelet.config.k8s.io/"
         "v1\",\"kind\":\"CredentialProviderConfig\",\"providers\":[{" GOOD_PROVIDER ",\"foo\":1}],\"bar\":true}",
         "strict decoding error: unknown field \"providers[0].foo\", unknown field \"bar\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/"
         "v1\",\"kind\":\"CredentialProviderConfig\",\"providers\":[{" GOOD_PROVIDER
         ",\"env\":[{\"name\":\"A\",\"value\":\"b\",\"x\":\"y\"}],\"tokenAttributes\":{\"audience\":\"a\"}}]}",
         "strict decoding error: unknown field \"providers[0].env[0].x\", unknown field "
         "\"providers[0].tokenAttributes.audience\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"CredentialProviderConfig\",\"kind\":"
         "\"CredentialProviderConfig\",\"providers\":[]}",
         "strict decoding error: duplicate field \"kind\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"WrongKind\",\"providers\":[]}",
         "no kind \"WrongKind\" is registered for version \"kubelet.config.k8s.io/v1\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v2\",\"kind\":\"CredentialProviderConfig\"}",
         "no kind \"CredentialProviderConfig\" is registered for version "
         "\"kubelet.config.k8s.io/v2\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"CredentialProviderConfig\",\"providers\":[{\"name\":"
         "7}]}",
         "json: cannot unmarshal number into Go struct field CredentialProvider.providers.name of "
         "type string"},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"CredentialProviderConfig\",\"providers\":[{"
         "\"defaultCacheDuration\":\"1d\"}]}",
         "time: unknown unit \"d\" in duration \"1d\""},
        {"{\"apiVersion\":\"kubelet.config.k8s.io/v1\"", "couldn't get version/kind; json parse "
                                                         "error: unexpected end of JSON input"},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        kg_cred_config cfg;
        kg_error e = {0};
        if (kg_credentialprovider_config_decode(&a, c[i].doc, strlen(c[i].doc), &cfg, &e))
            fail_msg("case %zu decoded", i);
        assert_string_equal(e.msg, c[i].msg);
    }
    /* YAML: unknown fields are strict errors too; v1beta1 and v1alpha1 configs decode */
    const char *y = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: CredentialProviderConfig\nproviders:\n"
                    "- name: p\n  matchImages: [a.io]\n  defaultCacheDuration: 1m\n  apiVersion: " V1 "\n  extra: 1\n";
    kg_cred_config cfg;
    kg_error e = {0};
    assert_false(kg_credentialprovider_config_decode(&a, y, strlen(y), &cfg, &e));
    assert_string_equal(e.msg, "strict decoding error: unknown field \"providers[0].extra\"");
    /* YAML that does not parse */
    y = "apiVersion: kubelet.config.k8s.io/v1\nkind: [CredentialProviderConfig\n";
    assert_false(kg_credentialprovider_config_decode(&a, y, strlen(y), &cfg, &e));
    assert_true(kg_str_has_prefix(e.msg, "error converting YAML to JSON: yaml: line "));
    /* v1alpha1 and v1beta1 configs have no tokenAttributes */
    y = "---\nkind: CredentialProviderConfig\napiVersion: kubelet.config.k8s.io/v1beta1\nproviders:\n  - name: test\n"
        "    matchImages:\n    - \"registry.io/foobar\"\n    defaultCacheDuration: 10m\n"
        "    apiVersion: credentialprovider.kubelet.k8s.io/v1beta1\n    tokenAttributes:\n"
        "      serviceAccountTokenAudience: audience\n";
    assert_false(kg_credentialprovider_config_decode(&a, y, strlen(y), &cfg, &e));
    assert_string_equal(e.msg, "strict decoding error: unknown field \"providers[0].tokenAttributes\"");
    /* YAML duplicate keys, as go-yaml's UnmarshalStrict reports them (the line of the repeated key's value) */
    y = "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
        "- name: p\n  name: q\n  matchImages: [a.io]\n  defaultCacheDuration: 1m\n  apiVersion: " V1 "\n  extra: 1\n"
        "  env:\n  - {name: A, value: b}\n  env:\n\n  - {name: A, value: c}\n";
    assert_false(kg_credentialprovider_config_decode(&a, y, strlen(y), &cfg, &e));
    assert_string_equal(e.msg, "strict decoding error: yaml: unmarshal errors:\n"
                               "  line 5: key \"name\" already set in map\n"
                               "  line 14: key \"env\" already set in map, unknown field \"providers[0].extra\"");
    /* keys in different maps, or the same text quoted and as a number, are not duplicates */
    y = "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
        "- {name: p, matchImages: [a.io], defaultCacheDuration: 1m, apiVersion: " V1 "}\n"
        "- {name: q, matchImages: [a.io], defaultCacheDuration: 1m, apiVersion: " V1 "}\n";
    if (!kg_credentialprovider_config_decode(&a, y, strlen(y), &cfg, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(cfg.n_providers, 2);
    kg_arena_free(&a);
}

static void validation_rules(void **state)
{
    static const struct {
        const char *providers;
        bool gate;
        const char *errs;
    } c[] = {
        {"", true, "providers: Required value: at least 1 item in plugins is required"},
        {"{\"name\":\"foo/../bar\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1
         "\"}",
         true, "providers.name: Invalid value: \"foo/../bar\": provider name cannot contain '/'"},
        {"{\"name\":\"foo bar\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"}",
         true, "providers.name: Invalid value: \"foo bar\": provider name cannot contain spaces"},
        {"{\"name\":\".\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"}", true,
         "providers.name: Invalid value: \".\": provider name cannot be '.'"},
        {"{\"name\":\"..\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"}", true,
         "providers.name: Invalid value: \"..\": provider name cannot be '..'"},
        {"{\"name\":\"foobar\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"},"
         "{\"name\":\"foobar\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"}",
         true, "providers.name: Duplicate value: \"foobar\""},
        {"{\"name\":\"p\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\"}", true,
         "providers.apiVersion: Required value"},
        {"{\"name\":\"p\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "alpha0\"}",
         true,
         "providers.apiVersion: Unsupported value: \"credentialprovider.kubelet.k8s.io/v1alpha0\": supported values: "
         "\"credentialprovider.kubelet.k8s.io/v1\", \"credentialprovider.kubelet.k8s.io/v1alpha1\", "
         "\"credentialprovider.kubelet.k8s.io/v1beta1\""},
        {"{\"name\":\"p\",\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "\"}", true,
         "providers.matchImages: Required value: at least 1 item in matchImages is required"},
        {"{\"name\":\"p\",\"matchImages\":[\"%invalid%\",\"registry.io:*\"],\"defaultCacheDuration\":\"1m\","
         "\"apiVersion\":\"" V1 "\"}",
         true,
         "providers.matchImages: Invalid value: \"%invalid%\": match image is invalid: parse \"https://%invalid%\": "
         "invalid URL escape \"%in\"\n"
         "providers.matchImages: Invalid value: \"registry.io:*\": match image is invalid: parse "
         "\"https://registry.io:*\": invalid port \":*\" after host"},
        {"{\"name\":\"p\",\"matchImages\":[\"a.io\"],\"apiVersion\":\"" V1 "\"}", true,
         "providers.defaultCacheDuration: Required value"},
        {"{\"name\":\"p\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"-1m\",\"apiVersion\":\"" V1 "\"}", true,
         "providers.defaultCacheDuration: Invalid value: \"-1m0s\": must be greater than or equal to 0"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true,\"cacheType\":\"Token\"}}",
         false,
         "providers.tokenAttributes: Forbidden: tokenAttributes is not supported when "
         "KubeletServiceAccountTokenForCredentialProviders feature gate is disabled"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"requireServiceAccount\":true,\"cacheType\":\"Token\"}}", true,
         "providers.tokenAttributes.serviceAccountTokenAudience: Required value"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"cacheType\":\"Token\"}}",
         true, "providers.tokenAttributes.requireServiceAccount: Required value"},
        {"{\"name\":\"p\",\"matchImages\":[\"a.io\"],\"defaultCacheDuration\":\"1m\",\"apiVersion\":\"" V1 "beta1\","
         "\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":true,\"cacheType\":"
         "\"Token\"}}",
         true,
         "providers.tokenAttributes: Forbidden: tokenAttributes is only supported for "
         "credentialprovider.kubelet.k8s.io/v1 API version"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "false,\"cacheType\":\"Token\",\"requiredServiceAccountAnnotationKeys\":[\"a.io/x\"]}}",
         true,
         "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Forbidden: requireServiceAccount cannot be "
         "false when requiredServiceAccountAnnotationKeys is set"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true,\"cacheType\":\"Token\",\"requiredServiceAccountAnnotationKeys\":[\"cantendwithadash-\"],"
         "\"optionalServiceAccountAnnotationKeys\":[\"Now-With-Dashes/Simple\",\"now-with-dashes/simple\","
         "\"now-with-dashes/simple\"]}}",
         true,
         "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid value: \"cantendwithadash-\": name "
         "part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
         "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n"
         "providers.tokenAttributes.optionalServiceAccountAnnotationKeys: Duplicate value: "
         "\"now-with-dashes/simple\""},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true,\"cacheType\":\"Token\",\"requiredServiceAccountAnnotationKeys\":[\"now-with-dashes/simple-2\","
         "\"a.io/b\"],\"optionalServiceAccountAnnotationKeys\":[\"now-with-dashes/simple-2\",\"a.io/b\"]}}",
         true,
         "providers.tokenAttributes: Invalid value: [\"a.io/b\",\"now-with-dashes/simple-2\"]: annotation keys cannot "
         "be both required and optional"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true}}",
         true,
         "providers.tokenAttributes.cacheType: Required value: cacheType is required to be set when tokenAttributes "
         "is specified. Supported values are: ServiceAccount, Token"},
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true,\"cacheType\":\"invalid-cache-type\"}}",
         true,
         "providers.tokenAttributes.cacheType: Unsupported value: \"invalid-cache-type\": supported values: "
         "\"ServiceAccount\", \"Token\""},
        /* prefix rules of qualified names, and an empty key */
        {"{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\",\"requireServiceAccount\":"
         "true,\"cacheType\":\"Token\",\"requiredServiceAccountAnnotationKeys\":[\"/x\",\"\"]}}",
         true,
         "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid value: \"/x\": prefix part must be "
         "non-empty\n"
         "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid value: \"\": name part must be "
         "non-empty\n"
         "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid value: \"\": name part must consist "
         "of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
         "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"},
        /* several errors of one provider, in upstream order */
        {"{\"name\":\"a b/c\",\"matchImages\":[],\"defaultCacheDuration\":\"-5s\"}", true,
         "providers.name: Invalid value: \"a b/c\": provider name cannot contain '/'\n"
         "providers.name: Invalid value: \"a b/c\": provider name cannot contain spaces\n"
         "providers.apiVersion: Required value\n"
         "providers.matchImages: Required value: at least 1 item in matchImages is required\n"
         "providers.defaultCacheDuration: Invalid value: \"-5s\": must be greater than or equal to 0"},
    };
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char *got = validate(&a, c[i].providers, c[i].gate);
        if (strcmp(got, c[i].errs))
            fail_msg("case %zu:\n got: %s\nwant: %s", i, got, c[i].errs);
    }
    kg_arena_free(&a);
}

static void qualified_name_edge_cases(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    /* keys are checked lower-cased, so upper-case prefixes are fine; underscores are not allowed in the prefix */
    char *got = validate(&a,
                         "{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\","
                         "\"requireServiceAccount\":true,\"cacheType\":\"ServiceAccount\","
                         "\"optionalServiceAccountAnnotationKeys\":[\"Example.COM/Key_1\",\"bad_prefix.io/k\"]}}",
                         true);
    assert_string_equal(got, "providers.tokenAttributes.optionalServiceAccountAnnotationKeys: Invalid value: "
                             "\"bad_prefix.io/k\": prefix part a lowercase RFC 1123 subdomain must consist of lower "
                             "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                             "character (e.g. 'example.com', regex used for validation is "
                             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    char longname[80];
    memset(longname, 'a', 64);
    longname[64] = 0;
    got = validate(&a,
                   kg_arena_sprintf(&a,
                                    "{" GOOD_PROVIDER ",\"tokenAttributes\":{\"serviceAccountTokenAudience\":\"aud\","
                                    "\"requireServiceAccount\":true,\"cacheType\":\"Token\","
                                    "\"requiredServiceAccountAnnotationKeys\":[\"%s\"]}}",
                                    longname),
                   true);
    assert_string_equal(got, kg_arena_sprintf(&a,
                                              "providers.tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid "
                                              "value: \"%s\": name part must be no more than 63 characters",
                                              longname));
    kg_arena_free(&a);
}

static void aggregate_rendering(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *one[] = {"e1"};
    assert_string_equal(kg_credentialprovider_aggregate(&a, one, 1), "e1");
    const char *two[] = {"e1", "e2", "e1"};
    assert_string_equal(kg_credentialprovider_aggregate(&a, two, 3), "[e1, e2]");
    const char *dup[] = {"e1", "e1"};
    assert_string_equal(kg_credentialprovider_aggregate(&a, dup, 2), "e1");
    kg_arena_free(&a);
}

static void sha256_expected(const char *const *contents, size_t n, char *out)
{
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    EVP_DigestInit_ex(h, EVP_sha256(), NULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t l = strlen(contents[i]);
        unsigned char be[8];
        for (int k = 7; k >= 0; k--, l >>= 8)
            be[k] = (unsigned char)(l & 0xff);
        EVP_DigestUpdate(h, be, 8);
        EVP_DigestUpdate(h, contents[i], strlen(contents[i]));
    }
    unsigned char md[32];
    unsigned int ml;
    EVP_DigestFinal_ex(h, md, &ml);
    EVP_MD_CTX_free(h);
    out += sprintf(out, "sha256:");
    for (unsigned i = 0; i < ml; i++)
        out += sprintf(out, "%02x", md[i]);
}

static const char *provider_doc(kg_arena *a, const char *name)
{
    return kg_arena_sprintf(a,
                            "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
                            "- name: %s\n  matchImages: [\"%s.io\"]\n  defaultCacheDuration: 1m\n  apiVersion: " V1
                            "\n",
                            name, name);
}

static void load_file_and_directory(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *dir = kg_arena_sprintf(&a, "%s/conf.d", tmpdir);
    mkdir(dir, 0755);
    const char *c10 = provider_doc(&a, "zeta");
    const char *c20 = kg_arena_sprintf(&a, "{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":"
                                           "\"CredentialProviderConfig\",\"providers\":[{\"name\":\"alpha\","
                                           "\"matchImages\":[\"alpha.io\"],\"defaultCacheDuration\":\"1m\","
                                           "\"apiVersion\":\"" V1 "\"}]}");
    const char *c30 = provider_doc(&a, "mid");
    write_file(kg_arena_sprintf(&a, "%s/10-zeta.yaml", dir), c10, 0644);
    write_file(kg_arena_sprintf(&a, "%s/20-alpha.json", dir), c20, 0644);
    write_file(kg_arena_sprintf(&a, "%s/30-mid.yml", dir), c30, 0644);
    write_file(kg_arena_sprintf(&a, "%s/README.txt", dir), "not a config", 0644);
    mkdir(kg_arena_sprintf(&a, "%s/sub.yaml", dir), 0755);
    kg_cred_config cfg;
    kg_error e = {0};
    if (!kg_credentialprovider_config_load(&a, dir, &cfg, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(cfg.n_providers, 3);
    assert_string_equal(cfg.providers[0].name, "zeta"); /* file order, not name order */
    assert_string_equal(cfg.providers[1].name, "alpha");
    assert_string_equal(cfg.providers[2].name, "mid");
    char want[80];
    const char *contents[] = {c10, c20, c30};
    sha256_expected(contents, 3, want);
    assert_string_equal(cfg.hash, want);

    /* a single file */
    char *file = kg_arena_sprintf(&a, "%s/10-zeta.yaml", dir);
    assert_true(kg_credentialprovider_config_load(&a, file, &cfg, &e));
    assert_int_equal(cfg.n_providers, 1);
    sha256_expected(contents, 1, want);
    assert_string_equal(cfg.hash, want);

    /* a duplicate name across files */
    write_file(kg_arena_sprintf(&a, "%s/40-again.yaml", dir), provider_doc(&a, "alpha"), 0644);
    assert_false(kg_credentialprovider_config_load(&a, dir, &cfg, &e));
    assert_string_equal(e.msg, "duplicate provider name \"alpha\" found in configuration file(s)");
    unlink(kg_arena_sprintf(&a, "%s/40-again.yaml", dir));

    /* a broken file names itself */
    char *broken = kg_arena_sprintf(&a, "%s/50-broken.json", dir);
    write_file(broken, "{\"apiVersion\":\"kubelet.config.k8s.io/v1\",\"kind\":\"Nope\"}", 0644);
    assert_false(kg_credentialprovider_config_load(&a, dir, &cfg, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a,
                                                "error decoding config \"%s\": no kind \"Nope\" is "
                                                "registered for version \"kubelet.config.k8s.io/v1\"",
                                                broken));
    unlink(broken);

    char *empty = kg_arena_sprintf(&a, "%s/empty.d", tmpdir);
    mkdir(empty, 0755);
    assert_false(kg_credentialprovider_config_load(&a, empty, &cfg, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "no configuration files found in directory \"%s\"", empty));
    assert_false(kg_credentialprovider_config_load(&a, "", &cfg, &e));
    assert_string_equal(e.msg, "credential provider config path is empty");
    char *missing = kg_arena_sprintf(&a, "%s/missing.yaml", tmpdir);
    assert_false(kg_credentialprovider_config_load(&a, missing, &cfg, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "unable to access path \"%s\": stat %s: No such file or directory",
                                                missing, missing));
    kg_arena_free(&a);
}

/* Test vectors of upstream's Test_readCredentialProviderConfig: the config hash of a file and of a directory. */
static void upstream_config_hash_vectors(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    const char *one = "---\nkind: CredentialProviderConfig\napiVersion: kubelet.config.k8s.io/v1alpha1\nproviders:\n"
                      "  - name: test\n    matchImages:\n    - \"registry.io/foobar\"\n    defaultCacheDuration: 10m\n"
                      "    apiVersion: credentialprovider.kubelet.k8s.io/v1alpha1\n    args:\n    - --v=5\n    env:\n"
                      "    - name: FOO\n      value: BAR";
    char *file = kg_arena_sprintf(&a, "%s/upstream.yaml", tmpdir);
    write_file(file, one, 0644);
    kg_cred_config cfg;
    kg_error e = {0};
    if (!kg_credentialprovider_config_load(&a, file, &cfg, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(cfg.hash, "sha256:8a62755289ba50c4ca9495baab69eb861068503f8bd49b853e8ba6cf95c72bb8");
    assert_int_equal(cfg.n_providers, 1);
    assert_string_equal(cfg.providers[0].args[0], "--v=5");
    assert_string_equal(cfg.providers[0].env[0].value, "BAR");
    char *dir = kg_arena_sprintf(&a, "%s/upstream.d", tmpdir);
    mkdir(dir, 0755);
    write_file(
        kg_arena_sprintf(&a, "%s/config-000.yaml", dir),
        "---\nkind: CredentialProviderConfig\napiVersion: kubelet.config.k8s.io/v1\nproviders:\n  - name: test1\n"
        "    matchImages:\n    - \"registry.io/one\"\n    defaultCacheDuration: 10m\n"
        "    apiVersion: credentialprovider.kubelet.k8s.io/v1",
        0644);
    write_file(
        kg_arena_sprintf(&a, "%s/config-001.yaml", dir),
        "---\nkind: CredentialProviderConfig\napiVersion: kubelet.config.k8s.io/v1\nproviders:\n  - name: test2\n"
        "    matchImages:\n    - \"registry.io/two\"\n    defaultCacheDuration: 5m\n"
        "    apiVersion: credentialprovider.kubelet.k8s.io/v1",
        0644);
    if (!kg_credentialprovider_config_load(&a, dir, &cfg, &e))
        fail_msg("%s", e.msg);
    assert_string_equal(cfg.hash, "sha256:efef09979a19eee4802fe4b7aa46d5122f16687a8419443647182c1920f76ac9");
    assert_int_equal(cfg.n_providers, 2);
    assert_int_equal(cfg.providers[1].default_cache_duration, 300 * KG_CRED_SECOND);
    kg_arena_free(&a);
}

static void bin_dir_checks(void **state)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    char *bin = kg_arena_sprintf(&a, "%s/bin", tmpdir);
    mkdir(bin, 0755);
    write_file(kg_arena_sprintf(&a, "%s/good", bin), "#!/bin/sh\n", 0755);
    write_file(kg_arena_sprintf(&a, "%s/noexec", bin), "#!/bin/sh\n", 0644);
    kg_cred_provider ps[1] = {{.name = "good"}};
    kg_cred_config cfg = {.providers = ps, .n_providers = 1};
    kg_error e = {0};
    assert_true(kg_credentialprovider_check_bin_dir(&a, &cfg, bin, &e));
    char *nodir = kg_arena_sprintf(&a, "%s/nope", tmpdir);
    assert_false(kg_credentialprovider_check_bin_dir(&a, &cfg, nodir, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "plugin binary directory %s did not exist", nodir));
    ps[0].name = "absent";
    assert_false(kg_credentialprovider_check_bin_dir(&a, &cfg, bin, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a, "plugin binary executable %s/absent did not exist", bin));
    ps[0].name = "noexec";
    assert_false(kg_credentialprovider_check_bin_dir(&a, &cfg, bin, &e));
    assert_string_equal(e.msg, kg_arena_sprintf(&a,
                                                "error inspecting binary executable %s/noexec: exec: \"%s/noexec\": "
                                                "permission denied",
                                                bin, bin));
    kg_arena_free(&a);
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kgate-cred-config-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_config_decodes_fields),
        cmocka_unit_test(decode_errors),
        cmocka_unit_test(validation_rules),
        cmocka_unit_test(qualified_name_edge_cases),
        cmocka_unit_test(aggregate_rendering),
        cmocka_unit_test(load_file_and_directory),
        cmocka_unit_test(bin_dir_checks),
        cmocka_unit_test(upstream_config_hash_vectors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
