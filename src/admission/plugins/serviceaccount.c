/* ServiceAccount (plugin/pkg/admission/serviceaccount), mutating + validating, CREATE/UPDATE of pods (and the
 * pods/ephemeralcontainers subresource):
 *   - admit (CREATE): spec.serviceAccountName defaults to "default"; the service account must exist (cache, then a
 *     live GET: 10 attempts for "default", which the serviceaccounts controller creates asynchronously, 1 for any
 *     other; 100-199 ms apart); unless automounting is off (pod, else service account), every init container and
 *     container without a mount at /var/run/secrets/kubernetes.io/serviceaccount gets one of the projected
 *     kube-api-access-<5 chars> volume (token + kube-root-ca.crt + namespace), which is added unless the pod
 *     already has a kube-api-access-* volume; a pod without imagePullSecrets gets the service account's.
 *     Mirror pods are never mutated. Re-running it changes nothing (the volume and mounts are found again).
 *   - validate: mirror pods may not reference service accounts, secrets or token projections; other pods need a
 *     service account that exists; with the service account annotation kubernetes.io/enforce-mountable-secrets
 *     true, secret volumes, env/envFrom secret references and imagePullSecrets must be listed by it (ephemeral
 *     containers are checked on pods/ephemeralcontainers UPDATE). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/serviceaccount.h"
#include "admission/plugins/plugin_util.h"
#include "json/template.h"
#include "meta/names.h"

#define DEFAULT_SA "default"
#define TOKEN_MOUNT_PATH "/var/run/secrets/kubernetes.io/serviceaccount"
#define VOLUME_PREFIX "kube-api-access-"
#define MIRROR_ANNOTATION "kubernetes.io/config.mirror"
#define ENFORCE_ANNOTATION "kubernetes.io/enforce-mountable-secrets"
#define TOKEN_EXPIRATION_SECONDS 3607 /* WarnOnlyBoundTokenExpirationSeconds */

static bool should_ignore(const kg_admission_attributes *a)
{
    if (!kg_admission_pu_is(a, "", "pods") &&
        !(strcmp(a->resource.group, "") == 0 && strcmp(a->resource.resource, "pods") == 0 &&
          strcmp(a->subresource, "ephemeralcontainers") == 0))
        return true;
    return !kg_json_is(a->object, KG_JSON_OBJECT) || !kg_admission_pu_obj_kind(a->object, "Pod");
}

static bool is_mirror(const kg_json *pod)
{
    return kg_json_get(kg_json_get(kg_json_get(pod, "metadata"), "annotations"), MIRROR_ANNOTATION) != NULL;
}

static kg_json *array_of(const kg_json *obj, const char *key)
{
    kg_json *v = kg_json_get(obj, key);
    return kg_json_is(v, KG_JSON_ARRAY) ? v : NULL;
}

/* getServiceAccount: cache, then live GETs. NULL with *msg set (the error text) on failure. */
static const kg_json *get_service_account(const kg_admission_services *svc, kg_arena *ar, const char *ns,
                                          const char *name, const char **msg)
{
    KG_ERROR_DECL(e);
    const kg_json *sa = kg_admission_view_obj(svc, ar, "serviceaccounts", ns, name, &e);
    if (sa)
        return sa;
    if (e.code != KG_ENOTFOUND) {
        *msg = kg_arena_strdup(ar, e.msg);
        return NULL;
    }
    int attempts = strcmp(name, DEFAULT_SA) == 0 ? 10 : 1;
    /* a fixed random interval of 100-199 ms between attempts */
    uint64_t x = (uint64_t)kg_admission_now_ns(svc) ^ (uint64_t)(uintptr_t)ar;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    int64_t interval = (int64_t)(100 + x % 100) * 1000000LL;
    for (int i = 0; i < attempts; i++) {
        if (i)
            kg_admission_sleep_ns(svc, interval);
        kg_err_clear(&e);
        sa = kg_admission_get(svc, ar, "serviceaccounts", ns, name, KG_ADMISSION_GET_LIVE, &e);
        if (sa)
            return sa;
        if (e.code != KG_ENOTFOUND) {
            *msg = kg_arena_strdup(ar, e.msg);
            return NULL;
        }
    }
    *msg = kg_arena_sprintf(ar, "serviceaccount %s not found", kg_admission_pu_quote(ar, name));
    return NULL;
}

static kg_status *lookup_failed(const kg_admission_attributes *a, const char *name, const char *msg)
{
    return kg_admission_forbidden(a, "error looking up service account %s/%s: %s", a->ns, name, msg);
}

/* ---- mutation ---- */

static bool automount(const kg_json *sa, const kg_json *pod)
{
    const kg_json *v = kg_json_get(kg_json_get(pod, "spec"), "automountServiceAccountToken");
    if (kg_json_is(v, KG_JSON_BOOL))
        return v->b;
    v = kg_json_get(sa, "automountServiceAccountToken");
    if (kg_json_is(v, KG_JSON_BOOL))
        return v->b;
    return true;
}

static kg_json *token_volume(kg_arena *ar, const char *name)
{
    kg_json *vol = kg_json_new_object(ar);
    kg_json_set(ar, vol, "name", kg_json_new_str(ar, name));
    kg_json *proj = kg_json_new_object(ar);
    kg_json *sources = kg_json_new_array(ar);

    kg_json *sat = kg_json_new_object(ar), *s1 = kg_json_new_object(ar);
    kg_json_set(ar, sat, "expirationSeconds", kg_json_new_int(ar, TOKEN_EXPIRATION_SECONDS));
    kg_json_set(ar, sat, "path", kg_json_new_str(ar, "token"));
    kg_json_set(ar, s1, "serviceAccountToken", sat);
    kg_json_array_append(ar, sources, s1);

    kg_json *cm = kg_json_new_object(ar), *s2 = kg_json_new_object(ar), *items = kg_json_new_array(ar);
    kg_json *kp = kg_json_new_object(ar);
    kg_json_set(ar, kp, "key", kg_json_new_str(ar, KG_SA_ROOT_CA_KEY));
    kg_json_set(ar, kp, "path", kg_json_new_str(ar, KG_SA_ROOT_CA_KEY));
    kg_json_array_append(ar, items, kp);
    kg_json_set(ar, cm, "name", kg_json_new_str(ar, KG_SA_ROOT_CA_CONFIGMAP));
    kg_json_set(ar, cm, "items", items);
    kg_json_set(ar, s2, "configMap", cm);
    kg_json_array_append(ar, sources, s2);

    kg_json *dapi = kg_json_new_object(ar), *s3 = kg_json_new_object(ar), *ditems = kg_json_new_array(ar);
    kg_json *file = kg_json_new_object(ar), *ref = kg_json_new_object(ar);
    kg_json_set(ar, ref, "apiVersion", kg_json_new_str(ar, "v1"));
    kg_json_set(ar, ref, "fieldPath", kg_json_new_str(ar, "metadata.namespace"));
    kg_json_set(ar, file, "path", kg_json_new_str(ar, "namespace"));
    kg_json_set(ar, file, "fieldRef", ref);
    kg_json_array_append(ar, ditems, file);
    kg_json_set(ar, dapi, "items", ditems);
    kg_json_set(ar, s3, "downwardAPI", dapi);
    kg_json_array_append(ar, sources, s3);

    kg_json_set(ar, proj, "sources", sources);
    kg_json_set(ar, proj, "defaultMode", kg_json_new_int(ar, 420));
    kg_json_set(ar, vol, "projected", proj);
    return vol;
}

/* The volume and mount are the same for every pod but for the volume name: built once, copied per pod (the copies
 * share the template's strings, which live as long as the process). */
static kg_arena tmpl_arena;
static kg_json_template *tmpl_volume, *tmpl_mount;
static pthread_once_t tmpl_once = PTHREAD_ONCE_INIT;

static void tmpl_init(void)
{
    kg_arena_init(&tmpl_arena, 2048);
    kg_json *mount = kg_json_new_object(&tmpl_arena);
    kg_json_set(&tmpl_arena, mount, "name", kg_json_new_str(&tmpl_arena, ""));
    kg_json_set(&tmpl_arena, mount, "readOnly", kg_json_new_bool(&tmpl_arena, true));
    kg_json_set(&tmpl_arena, mount, "mountPath", kg_json_new_str(&tmpl_arena, TOKEN_MOUNT_PATH));
    tmpl_volume = kg_json_template_new(token_volume(&tmpl_arena, ""));
    tmpl_mount = kg_json_template_new(mount);
    if (!tmpl_volume || !tmpl_mount)
        abort(); /* at first use, a few hundred bytes */
}

/* a copy of a template whose first member is "name", named name */
static kg_json *named_copy(kg_arena *ar, const kg_json_template *tmpl, kg_json *name)
{
    kg_json *v = kg_json_template_instance(ar, tmpl);
    v->u.members[0].val = name;
    return v;
}

static bool has_token_mount(const kg_json *c)
{
    const kg_json *mounts = array_of(c, "volumeMounts");
    for (size_t i = 0; mounts && i < mounts->len; i++)
        if (strcmp(kg_admission_pu_str(kg_json_at(mounts, i), "mountPath"), TOKEN_MOUNT_PATH) == 0)
            return true;
    return false;
}

static void mount_token(kg_arena *ar, kg_json *pod)
{
    kg_json *spec = kg_json_get_or_add_object(ar, pod, "spec");
    const char *vol_name = NULL;
    const kg_json *vols = array_of(spec, "volumes");
    for (size_t i = 0; vols && i < vols->len; i++) {
        const char *n = kg_admission_pu_str(kg_json_at(vols, i), "name");
        if (strncmp(n, VOLUME_PREFIX, strlen(VOLUME_PREFIX)) == 0) {
            vol_name = n;
            break;
        }
    }
    bool has_volume = vol_name != NULL;
    if (!vol_name)
        vol_name = kg_generate_name(ar, VOLUME_PREFIX);
    bool needs_volume = false;
    pthread_once(&tmpl_once, tmpl_init);
    kg_json *name_node = kg_json_new_str(ar, vol_name);
    static const char *const lists[] = {"initContainers", "containers"};
    for (int li = 0; li < 2; li++) {
        kg_json *cs = array_of(spec, lists[li]);
        for (size_t i = 0; cs && i < cs->len; i++) {
            kg_json *c = kg_json_at(cs, i);
            if (!kg_json_is(c, KG_JSON_OBJECT) || has_token_mount(c))
                continue;
            kg_json_array_append(ar, kg_admission_pu_array(ar, c, "volumeMounts"),
                                 named_copy(ar, tmpl_mount, kg_json_clone_nodes(ar, name_node)));
            needs_volume = true;
        }
    }
    if (!has_volume && needs_volume)
        kg_json_array_append(ar, kg_admission_pu_array(ar, spec, "volumes"), named_copy(ar, tmpl_volume, name_node));
}

static kg_status *validate_with(const kg_admission_attributes *a, const kg_admission_services *svc,
                                const kg_json *known_sa);

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (should_ignore(a) || a->operation != KG_ADMISSION_CREATE)
        return NULL;
    kg_arena *ar = a->arena;
    kg_json *pod = a->object;
    if (is_mirror(pod))
        return validate_with(a, svc, NULL);
    kg_json *spec = kg_json_get_or_add_object(ar, pod, "spec");
    const char *sa_name = kg_admission_pu_str(spec, "serviceAccountName");
    if (!sa_name[0]) {
        sa_name = DEFAULT_SA;
        kg_json_set(ar, spec, "serviceAccountName", kg_json_new_str(ar, sa_name));
    }
    const char *msg = NULL;
    const kg_json *sa = get_service_account(svc, ar, a->ns, sa_name, &msg);
    if (!sa)
        return lookup_failed(a, sa_name, msg);
    if (automount(sa, pod))
        mount_token(ar, pod);
    const kg_json *pull = array_of(spec, "imagePullSecrets");
    const kg_json *sa_pull = array_of(sa, "imagePullSecrets");
    if ((!pull || !pull->len) && sa_pull && sa_pull->len) {
        kg_json *out = kg_json_new_array(ar);
        for (size_t i = 0; i < sa_pull->len; i++) {
            kg_json *ref = kg_json_new_object(ar);
            kg_json_set(ar, ref, "name", kg_json_new_str(ar, kg_admission_pu_str(kg_json_at(sa_pull, i), "name")));
            kg_json_array_append(ar, out, ref);
        }
        kg_json_set(ar, spec, "imagePullSecrets", out);
    }
    /* upstream's Admit ends with Validate, whose lister lookup returns this same object */
    return validate_with(a, svc, sa);
}

/* ---- validation ---- */

static bool enforce_mountable(const kg_json *sa)
{
    const char *v = kg_json_get_str(kg_json_get(kg_json_get(sa, "metadata"), "annotations"), ENFORCE_ANNOTATION);
    if (!v)
        return false;
    /* strconv.ParseBool */
    static const char *const truths[] = {"1", "t", "T", "TRUE", "true", "True"};
    for (size_t i = 0; i < sizeof truths / sizeof *truths; i++)
        if (strcmp(v, truths[i]) == 0)
            return true;
    return false;
}

static bool listed(const kg_json *refs, const char *name)
{
    for (size_t i = 0; kg_json_is(refs, KG_JSON_ARRAY) && i < refs->len; i++) {
        const char *n = kg_json_get_str(kg_json_at(refs, i), "name");
        if (strcmp(n ? n : "", name) == 0)
            return true;
    }
    return false;
}

/* env / envFrom secret references of the containers in list; kind is "init container", "container" or
 * "ephemeral container". Returns the violation message or NULL. */
static char *check_env(kg_arena *ar, const kg_json *list, const char *kind, const kg_json *sa)
{
    const kg_json *mountable = kg_json_get(sa, "secrets");
    const char *sa_name = kg_json_get_str(kg_json_get(sa, "metadata"), "name");
    sa_name = sa_name ? sa_name : "";
    for (size_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
        const kg_json *c = kg_json_at(list, i);
        const char *cname = kg_admission_pu_str(c, "name");
        const kg_json *env = kg_json_get(c, "env");
        for (size_t j = 0; kg_json_is(env, KG_JSON_ARRAY) && j < env->len; j++) {
            const kg_json *ref = kg_json_path(kg_json_at(env, j), "valueFrom.secretKeyRef");
            if (!kg_json_is(ref, KG_JSON_OBJECT))
                continue;
            const char *sn = kg_admission_pu_str(ref, "name");
            if (!listed(mountable, sn))
                return kg_arena_sprintf(ar,
                                        "%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed "
                                        "because service account %s does not reference that secret",
                                        kind, cname, kg_admission_pu_str(kg_json_at(env, j), "name"), sn, sa_name);
        }
        const kg_json *env_from = kg_json_get(c, "envFrom");
        for (size_t j = 0; kg_json_is(env_from, KG_JSON_ARRAY) && j < env_from->len; j++) {
            const kg_json *ref = kg_json_get(kg_json_at(env_from, j), "secretRef");
            if (!kg_json_is(ref, KG_JSON_OBJECT))
                continue;
            const char *sn = kg_admission_pu_str(ref, "name");
            if (!listed(mountable, sn))
                return kg_arena_sprintf(ar,
                                        "%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed "
                                        "because service account %s does not reference that secret",
                                        kind, cname, sn, sa_name);
        }
    }
    return NULL;
}

static char *limit_secret_references(kg_arena *ar, const kg_json *sa, const kg_json *pod)
{
    const kg_json *spec = kg_json_get(pod, "spec");
    const kg_json *mountable = kg_json_get(sa, "secrets");
    const char *sa_name = kg_json_get_str(kg_json_get(sa, "metadata"), "name");
    sa_name = sa_name ? sa_name : "";
    const kg_json *vols = kg_json_get(spec, "volumes");
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *sec = kg_json_get(kg_json_at(vols, i), "secret");
        if (!kg_json_is(sec, KG_JSON_OBJECT))
            continue;
        const char *sn = kg_admission_pu_str(sec, "secretName");
        if (!listed(mountable, sn))
            return kg_arena_sprintf(ar,
                                    "volume with secret.secretName=\"%s\" is not allowed because service account %s "
                                    "does not reference that secret",
                                    sn, sa_name);
    }
    char *m = check_env(ar, kg_json_get(spec, "initContainers"), "init container", sa);
    if (!m)
        m = check_env(ar, kg_json_get(spec, "containers"), "container", sa);
    if (m)
        return m;
    const kg_json *pull = kg_json_get(spec, "imagePullSecrets");
    const kg_json *sa_pull = kg_json_get(sa, "imagePullSecrets");
    for (size_t i = 0; kg_json_is(pull, KG_JSON_ARRAY) && i < pull->len; i++) {
        const char *n = kg_admission_pu_str(kg_json_at(pull, i), "name");
        if (!listed(sa_pull, n))
            return kg_arena_sprintf(ar,
                                    "imagePullSecrets[%zu].name=\"%s\" is not allowed because service account %s does "
                                    "not reference that imagePullSecret",
                                    i, n, sa_name);
    }
    return NULL;
}

/* podutil.VisitPodSecretNames found anything (imagePullSecrets, env/envFrom of every container kind, secret-bearing
 * volume sources). */
static bool references_secrets(const kg_json *pod)
{
    const kg_json *spec = kg_json_get(pod, "spec");
    const kg_json *pull = kg_json_get(spec, "imagePullSecrets");
    if (kg_json_is(pull, KG_JSON_ARRAY) && pull->len)
        return true;
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    for (int li = 0; li < 3; li++) {
        const kg_json *cs = kg_json_get(spec, lists[li]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
            const kg_json *c = kg_json_at(cs, i);
            const kg_json *ef = kg_json_get(c, "envFrom");
            for (size_t j = 0; kg_json_is(ef, KG_JSON_ARRAY) && j < ef->len; j++)
                if (kg_json_is(kg_json_get(kg_json_at(ef, j), "secretRef"), KG_JSON_OBJECT))
                    return true;
            const kg_json *env = kg_json_get(c, "env");
            for (size_t j = 0; kg_json_is(env, KG_JSON_ARRAY) && j < env->len; j++)
                if (kg_json_is(kg_json_path(kg_json_at(env, j), "valueFrom.secretKeyRef"), KG_JSON_OBJECT))
                    return true;
        }
    }
    static const char *const refs[] = {"cephfs.secretRef",    "cinder.secretRef",        "flexVolume.secretRef",
                                       "rbd.secretRef",       "scaleIO.secretRef",       "iscsi.secretRef",
                                       "storageos.secretRef", "csi.nodePublishSecretRef"};
    const kg_json *vols = kg_json_get(spec, "volumes");
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *v = kg_json_at(vols, i);
        if (kg_json_is(kg_json_get(v, "secret"), KG_JSON_OBJECT))
            return true;
        const char *af = kg_json_get_str(kg_json_get(v, "azureFile"), "secretName");
        if (af && af[0])
            return true;
        for (size_t r = 0; r < sizeof refs / sizeof *refs; r++)
            if (kg_json_is(kg_json_path(v, refs[r]), KG_JSON_OBJECT))
                return true;
        const kg_json *srcs = kg_json_get(kg_json_get(v, "projected"), "sources");
        for (size_t j = 0; kg_json_is(srcs, KG_JSON_ARRAY) && j < srcs->len; j++)
            if (kg_json_is(kg_json_get(kg_json_at(srcs, j), "secret"), KG_JSON_OBJECT))
                return true;
    }
    return false;
}

static bool uses_token_projection(const kg_json *pod)
{
    const kg_json *vols = kg_json_get(kg_json_get(pod, "spec"), "volumes");
    for (size_t i = 0; kg_json_is(vols, KG_JSON_ARRAY) && i < vols->len; i++) {
        const kg_json *srcs = kg_json_path(kg_json_at(vols, i), "projected.sources");
        for (size_t j = 0; kg_json_is(srcs, KG_JSON_ARRAY) && j < srcs->len; j++)
            if (kg_json_is(kg_json_get(kg_json_at(srcs, j), "serviceAccountToken"), KG_JSON_OBJECT))
                return true;
    }
    return false;
}

/* Validate; known_sa is the ServiceAccount admit has just looked up under spec.serviceAccountName (or NULL). */
static kg_status *validate_with(const kg_admission_attributes *a, const kg_admission_services *svc,
                                const kg_json *known_sa)
{
    if (should_ignore(a))
        return NULL;
    kg_arena *ar = a->arena;
    const kg_json *pod = a->object;
    const char *sa_name = kg_json_get_str(kg_json_get(pod, "spec"), "serviceAccountName");
    sa_name = sa_name ? sa_name : "";

    bool ephemeral = a->operation == KG_ADMISSION_UPDATE && strcmp(a->subresource, "ephemeralcontainers") == 0;
    if (!ephemeral && a->operation != KG_ADMISSION_CREATE)
        return NULL;
    if (!ephemeral && is_mirror(pod)) {
        if (sa_name[0])
            return kg_admission_forbidden(a, "a mirror pod may not reference service accounts");
        if (references_secrets(pod))
            return kg_admission_forbidden(a, "a mirror pod may not reference secrets");
        if (uses_token_projection(pod))
            return kg_admission_forbidden(a, "a mirror pod may not use ServiceAccountToken volume projections");
        return NULL;
    }
    if (!sa_name[0]) {
        const char *pod_name = kg_json_get_str(kg_json_get(pod, "metadata"), "name");
        return kg_admission_forbidden(a, "no service account specified for pod %s/%s", a->ns, pod_name ? pod_name : "");
    }
    const char *msg = NULL;
    const kg_json *sa = known_sa ? known_sa : get_service_account(svc, ar, a->ns, sa_name, &msg);
    if (!sa)
        return lookup_failed(a, sa_name, msg);
    if (!enforce_mountable(sa))
        return NULL;
    char *bad = ephemeral ? check_env(ar, kg_json_get(kg_json_get(pod, "spec"), "ephemeralContainers"), "ephemeral container", sa)
                          : limit_secret_references(ar, sa, pod);
    return bad ? kg_admission_forbidden(a, "%s", bad) : NULL;
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    (void)state;
    return validate_with(a, svc, NULL);
}

const kg_admission_plugin kg_admission_plugin_service_account = {
    .name = "ServiceAccount",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .admit = admit,
    .validate = validate,
};
