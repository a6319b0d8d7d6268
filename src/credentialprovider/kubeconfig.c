/* A token source backed by a kubeconfig: GET the ServiceAccount (uid, annotations) and POST a TokenRequest for the
 * provider's audience to the server of the current context, through the HTTP client (client/client.h: http or
 * https with the CA, bearer token or client certificate the kubeconfig names; libcurl loaded on first use). */
#include <string.h>

#include "client/client.h"
#include "credentialprovider/credentialprovider.h"

struct kg_cred_kubeconfig {
    kg_client *client;
};

static void client_free(void *p)
{
    kg_client_free(p);
}

kg_cred_kubeconfig *kg_credentialprovider_kubeconfig_load(kg_arena *a, const char *path, kg_error *err)
{
    kg_client_config cfg;
    if (!kg_client_config_from_kubeconfig(a, path, &cfg, err))
        return NULL;
    cfg.user_agent = "kgate-credentials";
    cfg.timeout_ms = 30000;
    kg_cred_kubeconfig *kc = kg_arena_calloc(a, sizeof *kc);
    kc->client = kg_client_new(&cfg, err);
    if (!kc->client)
        return NULL;
    kg_arena_on_reset(a, client_free, kc->client);
    return kc;
}

/* One request; returns the parsed JSON body of a 2xx answer. */
static kg_json *call(kg_cred_kubeconfig *kc, kg_arena *a, const char *method, const char *path, const char *body,
                     kg_error *err)
{
    return kg_client_json(kc->client, a, method, path, body, NULL, err);
}

static bool get_sa(void *ctx, kg_arena *a, const char *ns, const char *name, kg_cred_sa_info *out, kg_error *err)
{
    kg_json *doc =
        call(ctx, a, "GET", kg_arena_sprintf(a, "/api/v1/namespaces/%s/serviceaccounts/%s", ns, name), NULL, err);
    if (!doc)
        return false;
    out->uid = kg_json_path_str(doc, "metadata.uid");
    out->annotations = kg_json_path(doc, "metadata.annotations");
    if (out->annotations && out->annotations->type != KG_JSON_OBJECT)
        out->annotations = NULL;
    return true;
}

static char *request_token(void *ctx, kg_arena *a, const char *ns, const char *sa, const char *sa_uid,
                           const char *audience, const char *pod_name, const char *pod_uid, kg_error *err)
{
    kg_json *tr = kg_json_new_object(a);
    kg_json_set(a, tr, "kind", kg_json_new_str(a, "TokenRequest"));
    kg_json_set(a, tr, "apiVersion", kg_json_new_str(a, "authentication.k8s.io/v1"));
    kg_json *md = kg_json_get_or_add_object(a, tr, "metadata");
    kg_json_set(a, md, "name", kg_json_new_str(a, sa));
    kg_json_set(a, md, "namespace", kg_json_new_str(a, ns));
    if (sa_uid && *sa_uid)
        kg_json_set(a, md, "uid", kg_json_new_str(a, sa_uid));
    kg_json *spec = kg_json_get_or_add_object(a, tr, "spec");
    kg_json *aud = kg_json_new_array(a);
    kg_json_array_append(a, aud, kg_json_new_str(a, audience));
    kg_json_set(a, spec, "audiences", aud);
    if (pod_name && *pod_name) {
        kg_json *ref = kg_json_get_or_add_object(a, spec, "boundObjectRef");
        kg_json_set(a, ref, "kind", kg_json_new_str(a, "Pod"));
        kg_json_set(a, ref, "apiVersion", kg_json_new_str(a, "v1"));
        kg_json_set(a, ref, "name", kg_json_new_str(a, pod_name));
        if (pod_uid && *pod_uid)
            kg_json_set(a, ref, "uid", kg_json_new_str(a, pod_uid));
    }
    char *body = kg_json_to_string(a, tr, 0, NULL);
    kg_json *doc =
        call(ctx, a, "POST", kg_arena_sprintf(a, "/api/v1/namespaces/%s/serviceaccounts/%s/token", ns, sa), body, err);
    if (!doc)
        return NULL;
    const char *tok = kg_json_path_str(doc, "status.token");
    if (!tok || !*tok)
        return kg_err_set(err, KG_EIO, "the TokenRequest answer has no status.token"), NULL;
    return kg_arena_strdup(a, tok);
}

void kg_credentialprovider_kubeconfig_source(kg_cred_kubeconfig *kc, kg_cred_token_source *out)
{
    out->ctx = kc;
    out->get_service_account = get_sa;
    out->request_token = request_token;
}
