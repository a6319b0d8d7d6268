/* The kubelet's image credential-provider machinery (CredentialProviderConfig v1, exec plugins), usable on its own.
 *
 * Behaviour follows pkg/credentialprovider{,/plugin} of Kubernetes: config loading and validation with upstream's
 * messages, URLsMatchStr image matching, the exec protocol with a timeout and strict response decoding, caching by
 * cacheKeyType (kept on disk here, because a command runs many times), keyring combination in provider order and
 * the service-account-token mode (KEP-4412). See docs/credentials.md. */
#ifndef KG_CREDENTIALPROVIDER_H
#define KG_CREDENTIALPROVIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

/* ---------------------------------------------------------------- durations (Go time.Duration) */

#define KG_CRED_SECOND INT64_C(1000000000)

/* Go time.ParseDuration: "12h", "1h30m", "1.5s", "-1m", "0". Errors read `time: invalid duration "x"`. */
bool kg_credentialprovider_parse_duration(const char *s, int64_t *ns, kg_error *err);
/* Go Duration.String(): "1h30m0s", "-1m0s", "0s", "1.5s", "300ms". */
char *kg_credentialprovider_format_duration(kg_arena *a, int64_t ns);

/* Drop kgate's " (at offset N)" suffix so a JSON error reads exactly like Go's encoding/json; returns true. */
bool kg_credentialprovider_go_json_error(char *msg);

/* ---------------------------------------------------------------- URLs and matching */

/* The parts of Go's url.Parse("https://" + s) that matching uses. */
typedef struct kg_cred_url {
    const char *host; /* authority without userinfo, brackets kept for IPv6 */
    const char *path; /* percent-decoded */
} kg_cred_url;

/* url.Parse("https://" + s). The error text is Go's: `parse "https://%x": invalid URL escape "%x"`. */
bool kg_credentialprovider_parse_schemeless_url(kg_arena *a, const char *s, kg_cred_url *out, kg_error *err);
/* url.Parse(s) for a string with a scheme ("https://x" or "http://x"); used for auth keys. */
bool kg_credentialprovider_parse_url(kg_arena *a, const char *s, kg_cred_url *out, kg_error *err);
/* Go path/filepath.Match on Linux; *bad (may be NULL) reports ErrBadPattern. */
bool kg_credentialprovider_glob_match(const char *pattern, const char *name, bool *bad);
/* URLsMatchStr(glob, target): label count, per-label globs, exact port, raw path prefix. */
bool kg_credentialprovider_urls_match(const char *glob, const char *target);
/* The same, allocating from the caller's arena (no malloc on a warm arena). */
bool kg_credentialprovider_urls_match_a(kg_arena *a, const char *glob, const char *target);
/* docker reference ParseNormalizedNamed(image).Name(): "nginx:1.25" -> "docker.io/library/nginx". */
char *kg_credentialprovider_normalize_image(kg_arena *a, const char *image, kg_error *err);

/* ---------------------------------------------------------------- configuration */

#define KG_CRED_API_V1 "credentialprovider.kubelet.k8s.io/v1"

typedef struct kg_cred_env {
    const char *name;
    const char *value;
} kg_cred_env;

typedef struct kg_cred_token_attributes {
    const char *audience;   /* serviceAccountTokenAudience ("" when absent) */
    const char *cache_type; /* "Token", "ServiceAccount" or as written ("" when absent) */
    bool has_require_sa;    /* requireServiceAccount was given */
    bool require_sa;
    const char **required_keys;
    size_t n_required;
    const char **optional_keys;
    size_t n_optional;
} kg_cred_token_attributes;

typedef struct kg_cred_provider {
    const char *name;
    const char **match_images;
    size_t n_match_images;
    bool has_default_cache_duration;
    int64_t default_cache_duration; /* ns */
    const char *api_version;        /* "" when absent */
    const char **args;
    size_t n_args;
    kg_cred_env *env;
    size_t n_env;
    kg_cred_token_attributes *token; /* NULL when tokenAttributes is absent */
} kg_cred_provider;

typedef struct kg_cred_config {
    kg_cred_provider *providers;
    size_t n_providers;
    char hash[72]; /* "sha256:<hex>" over (8-byte big-endian length, bytes) of each file in order */
} kg_cred_config;

/* Decode one CredentialProviderConfig document (YAML or JSON) strictly (unknown and duplicate fields are errors). */
bool kg_credentialprovider_config_decode(kg_arena *a, const char *data, size_t len, kg_cred_config *out, kg_error *err);
/* Load a file, or every regular file ending .json, .yaml or .yml of a directory in lexicographic order, merging
 * providers and rejecting duplicate names across files. Does not validate. */
bool kg_credentialprovider_config_load(kg_arena *a, const char *path, kg_cred_config *out, kg_error *err);

/* validateCredentialProviderConfig: every error, in upstream order and text ("providers.name: Duplicate value: ...").
 * Returns the number of errors; *errs (arena) receives them. */
size_t kg_credentialprovider_config_validate(kg_arena *a, const kg_cred_config *cfg, bool sa_token_gate,
                                             const char ***errs);
/* utilerrors aggregate rendering: one message as is, several as "[e1, e2]" (duplicates dropped). */
char *kg_credentialprovider_aggregate(kg_arena *a, const char *const *errs, size_t n);
/* The kubelet's bin-dir checks: the directory exists, and <binDir>/<name> is an executable file for each provider. */
bool kg_credentialprovider_check_bin_dir(kg_arena *a, const kg_cred_config *cfg, const char *bin_dir, kg_error *err);

/* ---------------------------------------------------------------- runtime */

/* A pod's identity for service-account-token mode. */
typedef struct kg_cred_pod {
    const char *namespace_;
    const char *name;    /* pod name (boundObjectRef), may be NULL */
    const char *uid;     /* pod uid (boundObjectRef), may be NULL */
    const char *sa_name; /* "" / NULL: the pod has no service account */
} kg_cred_pod;

/* What a token source returns for a service account. */
typedef struct kg_cred_sa_info {
    const char *uid;
    kg_json *annotations; /* object or NULL */
} kg_cred_sa_info;

/* Service-account and TokenRequest access (the kubelet's informer + token manager). */
typedef struct kg_cred_token_source {
    void *ctx;
    bool (*get_service_account)(void *ctx, kg_arena *a, const char *ns, const char *name, kg_cred_sa_info *out,
                                kg_error *err);
    char *(*request_token)(void *ctx, kg_arena *a, const char *ns, const char *sa_name, const char *sa_uid,
                           const char *audience, const char *pod_name, const char *pod_uid, kg_error *err);
} kg_cred_token_source;

typedef struct kg_cred_options {
    const char *bin_dir;
    const char *cache_dir;   /* NULL: no disk cache */
    bool no_cache;           /* neither read nor write the cache */
    int64_t exec_timeout_ms; /* 0: the kubelet's 1 minute */
    int64_t now_ns;          /* 0: the real clock (tests move time forward) */
    bool sa_token_gate;      /* KubeletServiceAccountTokenForCredentialProviders */
    const kg_cred_pod *pod;  /* NULL: no pod context (SA providers are then skipped) */
    const kg_cred_token_source *tokens;
    /* Called once per failure that upstream logs ("error execing credential provider plugin ..."); may be NULL. */
    void (*on_error)(void *ctx, const char *provider, const char *msg);
    void *on_error_ctx;
} kg_cred_options;

typedef struct kg_cred_auth {
    const char *key; /* the keyring key the credential is stored under */
    const char *username;
    const char *password;
    const char *provider;
} kg_cred_auth;

/* One provider's response after decoding. */
typedef struct kg_cred_response {
    const char *cache_key_type; /* Image / Registry / Global */
    bool has_cache_duration;
    int64_t cache_duration;
    kg_json *auth; /* object: pattern -> {username,password} (may be empty) */
} kg_cred_response;

/* Run one provider's plugin for image (already normalised). token/annotations are used in SA mode (may be NULL).
 * Errors name the provider. */
bool kg_credentialprovider_exec(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *image,
                                const char *token, const kg_json *annotations, kg_cred_response *out, kg_error *err);
/* Decode a plugin's stdout as upstream does (GVK sniff, apiVersion check, strict decode, kind, cacheKeyType). */
bool kg_credentialprovider_decode_response(kg_arena *a, const kg_cred_provider *p, const char *data, size_t len,
                                           kg_cred_response *out, kg_error *err);

/* provide(image) of one provider: matchImages, SA mode, cache lookup, exec, cache store. *auth is NULL when the
 * provider yields nothing. Failures are reported through o->on_error and yield nothing (the pull proceeds). */
void kg_credentialprovider_provide(kg_arena *a, const kg_cred_provider *p, const kg_cred_options *o, const char *image,
                                   kg_json **auth);

/* The external keyring's Lookup(image): every provider in config order, combined in a BasicDockerKeyring.
 * image may be un-normalised; returns the credentials in attempt order. */
bool kg_credentialprovider_lookup(kg_arena *a, const kg_cred_config *cfg, const kg_cred_options *o, const char *image,
                                  kg_cred_auth **out, size_t *n, kg_error *err);
/* The same for a name already normalised (or a registry host[:port][/path], as the docker helper protocol gives). */
void kg_credentialprovider_lookup_name(kg_arena *a, const kg_cred_config *cfg, const kg_cred_options *o,
                                       const char *name, kg_cred_auth **out, size_t *n);

/* ---------------------------------------------------------------- disk cache */

/* File name (hex) for a cache entry of provider p under (baseKey, saKey). */
char *kg_credentialprovider_cache_file(kg_arena *a, const kg_cred_provider *p, const char *base_key,
                                       const char *sa_key);
/* Read an unexpired entry; corrupted or expired files are ignored (expired ones are removed). */
bool kg_credentialprovider_cache_get(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *base_key,
                                     const char *sa_key, int64_t now_ns, kg_json **auth);
/* Store atomically, 0600 file in a 0700 directory (created). */
bool kg_credentialprovider_cache_put(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *base_key,
                                     const char *sa_key, int64_t expires_ns, const kg_json *auth, kg_error *err);
/* Cross-process singleflight: an exclusive lock on (provider, image, saKey) in the cache directory, waited for at
 * most timeout_ms, so concurrent kgate runs for the same image run the plugin once. -1: not locked (proceed). */
int kg_credentialprovider_cache_lock(kg_arena *a, const char *dir, const kg_cred_provider *p, const char *image,
                                     const char *sa_key, int64_t timeout_ms);
void kg_credentialprovider_cache_unlock(int fd);
/* The default cache directory: $XDG_CACHE_HOME/kgate/credentials or ~/.cache/kgate/credentials. */
char *kg_credentialprovider_default_cache_dir(kg_arena *a);

/* ---------------------------------------------------------------- kubeconfig token source */

typedef struct kg_cred_kubeconfig kg_cred_kubeconfig;
/* Parse a kubeconfig (current-context -> cluster + user): server, CA (data or file), insecure-skip-tls-verify,
 * bearer token (or tokenFile), client certificate/key (data or files). */
kg_cred_kubeconfig *kg_credentialprovider_kubeconfig_load(kg_arena *a, const char *path, kg_error *err);
/* A token source that GETs the ServiceAccount and POSTs a TokenRequest to the kubeconfig's server (libcurl). */
void kg_credentialprovider_kubeconfig_source(kg_cred_kubeconfig *kc, kg_cred_token_source *out);

#endif
