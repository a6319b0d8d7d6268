/* ServiceAccount plugin: upstream scenarios (plugin/pkg/admission/serviceaccount/admission_test.go) with exact
 * messages and resulting fields, idempotence, plus the default-ServiceAccount / kube-root-ca.crt helpers. */
#include "admission/plugins/serviceaccount.h"
#include "controllers/serviceaccount.h"
#include "admission_testutil.h"
#include "faulty_services.h"

typedef struct fixture {
    kg_admission_memcluster *m;
    kg_faulty_services *fs; /* around m: injected read/write failures */
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_arena a;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->m = kg_admission_memcluster_new();
    kg_admission_memcluster_set_clock(f->m, 1000000000LL);
    kg_admission_services inner = kg_admission_memcluster_services(f->m, NULL);
    f->fs = kg_faulty_services_new(&inner);
    f->svc = kg_faulty_services_get(f->fs);
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_service_account};
    kg_error e = {0};
    f->chain = kg_admission_chain_new_from(ps, 1, NULL, &f->svc, NULL, &e);
    assert_non_null(f->chain);
    kg_arena_init(&f->a, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    kg_admission_chain_free(f->chain);
    kg_arena_free(&f->a);
    kg_faulty_services_free(f->fs);
    kg_admission_memcluster_free(f->m);
    free(f);
    return 0;
}

/* meta_extra: more metadata members (",\"annotations\":{...}"); top_extra: more top-level members */
static void put_sa(fixture *f, const char *name, const char *meta_extra, const char *top_extra, unsigned flags)
{
    char *text = kg_arena_sprintf(&f->a,
                                  "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"%s\","
                                  "\"namespace\":\"test\"%s}%s}",
                                  name, meta_extra, top_extra);
    tput(f->m, "serviceaccounts", text, flags);
}

static kg_json *pod_with(fixture *f, const char *spec_members)
{
    return tj(&f->a, kg_arena_sprintf(&f->a,
                                      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                                      "\"namespace\":\"test\"},\"spec\":{%s}}",
                                      spec_members));
}

static kg_status *run(fixture *f, kg_admission_op op, const char *sub, kg_json *pod)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, "Pod", "pods", "test", "p", pod,
           op == KG_ADMISSION_UPDATE ? kg_json_clone(&f->a, pod) : NULL);
    at.subresource = sub;
    return kg_admission_chain_run(f->chain, &at);
}

static const char *vol_name_of(const kg_json *pod)
{
    const kg_json *vols = kg_json_path(pod, "spec.volumes");
    assert_non_null(vols);
    return kg_json_get_str(kg_json_at(vols, vols->len - 1), "name");
}

static void default_sa_volume_and_mounts(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", "", "", 0);
    kg_json *pod =
        pod_with(f, "\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
                    "\"ephemeralContainers\":[{\"name\":\"e\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_string_equal(kg_json_path_str(pod, "spec.serviceAccountName"), "default");
    const char *vn = vol_name_of(pod);
    assert_int_equal(strlen(vn), strlen("kube-api-access-") + 5);
    assert_memory_equal(vn, "kube-api-access-", 16);
    for (size_t i = 16; i < 21; i++)
        assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", vn[i]));
    kg_json *want_vol = tj(
        &f->a, kg_arena_sprintf(&f->a,
                                "{\"name\":\"%s\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{"
                                "\"expirationSeconds\":3607,\"path\":\"token\"}},{\"configMap\":{\"name\":\"kube-root-"
                                "ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},{\"downwardAPI\":{"
                                "\"items\":[{\"path\":\"namespace\",\"fieldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":"
                                "\"metadata.namespace\"}}]}}],\"defaultMode\":420}}",
                                vn));
    assert_int_equal(kg_json_path(pod, "spec.volumes")->len, 1);
    assert_true(kg_json_equal(kg_json_at(kg_json_path(pod, "spec.volumes"), 0), want_vol));
    kg_json *want_mount = tj(&f->a, kg_arena_sprintf(&f->a,
                                                     "[{\"name\":\"%s\",\"readOnly\":true,\"mountPath\":\"/var/run/"
                                                     "secrets/kubernetes.io/serviceaccount\"}]",
                                                     vn));
    assert_true(kg_json_equal(kg_json_get(kg_json_at(kg_json_path(pod, "spec.initContainers"), 0), "volumeMounts"),
                              want_mount));
    for (size_t i = 0; i < 2; i++)
        assert_true(kg_json_equal(kg_json_get(kg_json_at(kg_json_path(pod, "spec.containers"), i), "volumeMounts"),
                                  want_mount));
    /* ephemeral containers are never mutated; no imagePullSecrets are invented */
    assert_null(kg_json_get(kg_json_at(kg_json_path(pod, "spec.ephemeralContainers"), 0), "volumeMounts"));
    assert_null(kg_json_path(pod, "spec.imagePullSecrets"));
    /* idempotent: the second run finds the volume and the mounts */
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_true(kg_json_equal(before, pod));
}

static void ignored_requests(void **state)
{
    fixture *f = *state; /* no service account at all: anything looked at would fail */
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "ConfigMap", "configmaps", "test", "x",
           tj(&f->a, "{\"metadata\":{\"name\":\"x\"}}"), NULL);
    assert_null(kg_admission_chain_run(f->chain, &at));
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "test", "p", NULL, NULL);
    assert_null(kg_admission_chain_run(f->chain, &at));
    kg_json *pod = pod_with(f, "\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_UPDATE, "status", pod));
    assert_null(run(f, KG_ADMISSION_UPDATE, "", pod)); /* only CREATE is mutated / validated */
    assert_null(kg_json_path(pod, "spec.serviceAccountName"));
    /* a non-Pod object on the pods resource */
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "test", "p", tj(&f->a, "{\"kind\":\"Binding\"}"), NULL);
    assert_null(kg_admission_chain_run(f->chain, &at));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).gets + kg_admission_memcluster_get_stats(f->m).live_gets,
                     0);
}

static void mirror_pods(void **state)
{
    fixture *f = *state;
    const char *mirror = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"annotations\":{\"kubernetes.io/"
                         "config.mirror\":\"x\"}},\"spec\":{%s}}";
    kg_json *pod = tj(&f->a, kg_arena_sprintf(&f->a, mirror, "\"containers\":[{\"name\":\"a\"}]"));
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_true(kg_json_equal(before, pod)); /* untouched: no service account, no volume */
    assert_status(
        run(f, KG_ADMISSION_CREATE, "",
            tj(&f->a, kg_arena_sprintf(&f->a, mirror, "\"serviceAccountName\":\"default\",\"containers\":[]"))),
        403, "Forbidden", "pods \"p\" is forbidden: a mirror pod may not reference service accounts");
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      tj(&f->a, kg_arena_sprintf(&f->a, mirror,
                                                 "\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"s\"}}]"))),
                  403, "Forbidden", "pods \"p\" is forbidden: a mirror pod may not reference secrets");
    assert_status(
        run(f, KG_ADMISSION_CREATE, "",
            tj(&f->a, kg_arena_sprintf(&f->a, mirror,
                                       "\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"E\",\"valueFrom\":"
                                       "{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"}}}]}]"))),
        403, "Forbidden", "pods \"p\" is forbidden: a mirror pod may not reference secrets");
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      tj(&f->a, kg_arena_sprintf(&f->a, mirror,
                                                 "\"volumes\":[{\"name\":\"v\",\"projected\":{\"sources\":[{"
                                                 "\"serviceAccountToken\":{\"path\":\"token\"}}]}}]"))),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: a mirror pod may not use ServiceAccountToken volume projections");
}

static void missing_default_sa_retries(void **state)
{
    fixture *f = *state;
    int64_t t0 = kg_admission_now_ns(&f->svc);
    assert_status(run(f, KG_ADMISSION_CREATE, "", pod_with(f, "\"containers\":[{\"name\":\"a\"}]")), 403, "Forbidden",
                  "pods \"p\" is forbidden: error looking up service account test/default: serviceaccount \"default\" "
                  "not found");
    /* 10 live attempts, 9 sleeps of one fixed 100-199 ms interval */
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 10);
    int64_t slept = kg_admission_now_ns(&f->svc) - t0;
    assert_true(slept >= 9 * 100000000LL && slept <= 9 * 199000000LL);
    assert_int_equal(slept % 9, 0);
    /* any other name: a single live attempt */
    kg_admission_memcluster_stats s0 = kg_admission_memcluster_get_stats(f->m);
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      pod_with(f, "\"serviceAccountName\":\"robot\",\"containers\":[{\"name\":\"a\"}]")),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: error looking up service account test/robot: serviceaccount \"robot\" not "
                  "found");
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets - s0.live_gets, 1);
}

static void sa_only_in_store_is_found(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", "", "", KG_MEMCLUSTER_STORE_ONLY);
    kg_json *pod = pod_with(f, "\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_non_null(kg_json_path(pod, "spec.volumes"));
}

static void lookup_error(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_reads(f->fs, "serviceaccounts", 0, KG_EIO);
    assert_status(run(f, KG_ADMISSION_CREATE, "", pod_with(f, "\"containers\":[{\"name\":\"a\"}]")), 403, "Forbidden",
                  "pods \"p\" is forbidden: error looking up service account test/default: injected read failure for "
                  "serviceaccounts \"default\"");
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).live_gets, 0);
}

static void automount_opt_out(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", "", "", 0);
    put_sa(f, "quiet", "", ",\"automountServiceAccountToken\":false", 0);
    kg_json *pod = pod_with(f, "\"automountServiceAccountToken\":false,\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_null(kg_json_path(pod, "spec.volumes"));
    assert_null(kg_json_get(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "volumeMounts"));
    /* the service account's preference applies when the pod has none */
    pod = pod_with(f, "\"serviceAccountName\":\"quiet\",\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_null(kg_json_path(pod, "spec.volumes"));
    /* ... and the pod's wins over it */
    pod = pod_with(f, "\"serviceAccountName\":\"quiet\",\"automountServiceAccountToken\":true,\"containers\":[{"
                      "\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_non_null(kg_json_path(pod, "spec.volumes"));
}

static void existing_mount_and_volume(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", "", "", 0);
    /* every container already mounts something at the token path: no mount, no volume */
    kg_json *pod = pod_with(f, "\"volumes\":[{\"name\":\"mine\",\"emptyDir\":{}}],\"containers\":[{\"name\":\"a\","
                               "\"volumeMounts\":[{\"name\":\"mine\",\"mountPath\":\"/var/run/secrets/kubernetes.io/"
                               "serviceaccount\"}]}]");
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    kg_json_del(kg_json_get(pod, "spec"), "serviceAccountName");
    assert_true(kg_json_equal(before, pod));
    /* one container has it, the other gets the mount */
    pod = pod_with(f, "\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"mine\",\"mountPath\":\"/var/run/"
                      "secrets/kubernetes.io/serviceaccount\"}]},{\"name\":\"b\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_int_equal(kg_json_get(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "volumeMounts")->len, 1);
    assert_int_equal(kg_json_get(kg_json_at(kg_json_path(pod, "spec.containers"), 1), "volumeMounts")->len, 1);
    assert_int_equal(kg_json_path(pod, "spec.volumes")->len, 1);
    /* an existing kube-api-access-* volume is reused, not added again */
    pod = pod_with(f, "\"volumes\":[{\"name\":\"data\",\"emptyDir\":{}},{\"name\":\"kube-api-access-abc\","
                      "\"emptyDir\":{}}],\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_int_equal(kg_json_path(pod, "spec.volumes")->len, 2);
    const kg_json *m = kg_json_at(kg_json_get(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "volumeMounts"), 0);
    assert_string_equal(kg_json_get_str(m, "name"), "kube-api-access-abc");
}

static void image_pull_secrets(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", "", ",\"imagePullSecrets\":[{\"name\":\"foo\"},{\"name\":\"bar\"}]", 0);
    kg_json *pod = pod_with(f, "\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_true(kg_json_equal(kg_json_path(pod, "spec.imagePullSecrets"),
                              tj(&f->a, "[{\"name\":\"foo\"},{\"name\":\"bar\"}]")));
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_true(kg_json_equal(before, pod));
    /* never merged into the pod's own */
    pod = pod_with(f, "\"imagePullSecrets\":[{\"name\":\"mine\"}],\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_true(kg_json_equal(kg_json_path(pod, "spec.imagePullSecrets"), tj(&f->a, "[{\"name\":\"mine\"}]")));
}

static void enforce_mountable_secrets(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", ",\"annotations\":{\"kubernetes.io/enforce-mountable-secrets\":\"true\"}",
           ",\"secrets\":[{\"name\":\"ok\"}],\"imagePullSecrets\":[{\"name\":\"pull\"}]", 0);
    assert_null(run(f, KG_ADMISSION_CREATE, "",
                    pod_with(f, "\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"ok\"}}],\"containers\":[{"
                                "\"name\":\"a\",\"envFrom\":[{\"secretRef\":{\"name\":\"ok\"}}]}]")));
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      pod_with(f, "\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"bad\"}}],\"containers\":[{"
                                  "\"name\":\"a\"}]")),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: volume with secret.secretName=\"bad\" is not allowed because service "
                  "account default does not reference that secret");
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      pod_with(f, "\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"E\",\"valueFrom\":{"
                                  "\"secretKeyRef\":{\"name\":\"bad\",\"key\":\"k\"}}}]}]")),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: container a with envVar E referencing secret.secretName=\"bad\" is not "
                  "allowed because service account default does not reference that secret");
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      pod_with(f, "\"initContainers\":[{\"name\":\"i\",\"envFrom\":[{\"secretRef\":{\"name\":\"bad\"}}]"
                                  "}],\"containers\":[{\"name\":\"a\"}]")),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: init container i with envFrom referencing secret.secretName=\"bad\" is not "
                  "allowed because service account default does not reference that secret");
    assert_status(run(f, KG_ADMISSION_CREATE, "",
                      pod_with(f, "\"imagePullSecrets\":[{\"name\":\"pull\"},{\"name\":\"other\"}],\"containers\":[{"
                                  "\"name\":\"a\"}]")),
                  403, "Forbidden",
                  "pods \"p\" is forbidden: imagePullSecrets[1].name=\"other\" is not allowed because service account "
                  "default does not reference that imagePullSecret");
    /* the projected token volume the plugin adds is not a secret volume: a plain pod passes */
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod_with(f, "\"containers\":[{\"name\":\"a\"}]")));
}

static void not_enforced_without_annotation(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", ",\"annotations\":{\"kubernetes.io/enforce-mountable-secrets\":\"nope\"}", "", 0);
    assert_null(run(f, KG_ADMISSION_CREATE, "",
                    pod_with(f, "\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"bad\"}}],\"containers\":[{"
                                "\"name\":\"a\"}]")));
}

static void ephemeral_containers(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", ",\"annotations\":{\"kubernetes.io/enforce-mountable-secrets\":\"1\"}",
           ",\"secrets\":[{\"name\":\"ok\"}]", 0);
    const char *spec = "\"serviceAccountName\":\"default\",\"containers\":[{\"name\":\"a\"}],\"ephemeralContainers\":[{"
                       "\"name\":\"dbg\",%s}]";
    kg_json *pod = pod_with(
        f, kg_arena_sprintf(
               &f->a, spec,
               "\"env\":[{\"name\":\"E\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"bad\",\"key\":\"k\"}}}]"));
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_status(
        run(f, KG_ADMISSION_UPDATE, "ephemeralcontainers", pod), 403, "Forbidden",
        "pods \"p\" is forbidden: ephemeral container dbg with envVar E referencing secret.secretName=\"bad\" "
        "is not allowed because service account default does not reference that secret");
    assert_true(kg_json_equal(before, pod)); /* never mutated on update */
    assert_status(
        run(f, KG_ADMISSION_UPDATE, "ephemeralcontainers",
            pod_with(f, kg_arena_sprintf(&f->a, spec, "\"envFrom\":[{\"secretRef\":{\"name\":\"bad\"}}]"))),
        403, "Forbidden",
        "pods \"p\" is forbidden: ephemeral container dbg with envFrom referencing secret.secretName=\"bad\" is not "
        "allowed because service account default does not reference that secret");
    assert_null(run(f, KG_ADMISSION_UPDATE, "ephemeralcontainers",
                    pod_with(f, kg_arena_sprintf(&f->a, spec, "\"envFrom\":[{\"secretRef\":{\"name\":\"ok\"}}]"))));
    assert_status(run(f, KG_ADMISSION_UPDATE, "ephemeralcontainers",
                      pod_with(f, "\"containers\":[{\"name\":\"a\"}],\"ephemeralContainers\":[{\"name\":\"dbg\"}]")),
                  403, "Forbidden", "pods \"p\" is forbidden: no service account specified for pod test/p");
}

static void validate_requires_service_account(void **state)
{
    fixture *f = *state;
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "Pod", "pods", "test", "p", pod_with(f, "\"containers\":[]"), NULL);
    assert_status(kg_admission_plugin_service_account.validate(NULL, &at, &f->svc), 403, "Forbidden",
                  "pods \"p\" is forbidden: no service account specified for pod test/p");
}

static const char *const k_malformed[] = {
    "{\"kind\":\"Pod\"}",
    "{\"kind\":\"Pod\",\"metadata\":null,\"spec\":null}",
    "{\"kind\":\"Pod\",\"metadata\":{\"annotations\":\"x\"},\"spec\":{\"containers\":\"x\",\"initContainers\":7}}",
    "{\"kind\":\"Pod\",\"spec\":{\"containers\":[null,1,\"s\",{\"name\":3,\"resources\":[],\"volumeMounts\":{}}]}}",
    "{\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"bogus\"},\"requests\":{\"cpu\":"
    "true}}}]}}",
    "{\"kind\":\"Pod\",\"spec\":{\"volumes\":[1,{\"name\":null}],\"imagePullSecrets\":[{}],\"containers\":[{\"env\":[{"
    "\"valueFrom\":{\"secretKeyRef\":{}}}],\"envFrom\":[{\"secretRef\":null}]}]}}",
};

/* odd shapes never crash or leak, enforcement on or off */
static void malformed_objects(void **state)
{
    fixture *f = *state;
    put_sa(f, "default", ",\"annotations\":{\"kubernetes.io/enforce-mountable-secrets\":\"true\"}",
           ",\"secrets\":[1,{}],\"imagePullSecrets\":\"x\"", 0);
    for (size_t i = 0; i < sizeof k_malformed / sizeof *k_malformed; i++) {
        (void)run(f, KG_ADMISSION_CREATE, "", tj(&f->a, k_malformed[i]));
        (void)run(f, KG_ADMISSION_UPDATE, "ephemeralcontainers", tj(&f->a, k_malformed[i]));
    }
    kg_json *pod = pod_with(f, "\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_non_null(kg_json_path(pod, "spec.volumes"));
}

/* ---- controllers ---- */

static void controller_objects(void **state)
{
    fixture *f = *state;
    assert_true(
        kg_json_equal(kg_sa_default_serviceaccount(&f->a, "team-a"),
                      tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\","
                                "\"namespace\":\"team-a\"}}")));
    kg_json *cm = kg_sa_root_ca_configmap(&f->a, "team-a", "-----BEGIN CERTIFICATE-----\nX\n");
    assert_true(kg_json_equal(
        cm, tj(&f->a, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"kube-root-ca.crt\","
                      "\"namespace\":\"team-a\",\"annotations\":{\"kubernetes.io/description\":\"Contains a CA bundle "
                      "that can be used to verify the kube-apiserver when using internal endpoints such as the "
                      "internal service IP or kubernetes.default.svc. No other usage is guaranteed across "
                      "distributions of Kubernetes clusters.\"}},\"data\":{\"ca.crt\":\"-----BEGIN "
                      "CERTIFICATE-----\\nX\\n\"}}")));
    /* up to date → nothing to do; changed bundle, extra keys or a missing description → fixed copy */
    assert_null(kg_sa_root_ca_configmap_fix(&f->a, cm, "-----BEGIN CERTIFICATE-----\nX\n"));
    kg_json *fixed = kg_sa_root_ca_configmap_fix(&f->a, cm, "NEW");
    assert_non_null(fixed);
    assert_string_equal(kg_json_get_str(kg_json_get(fixed, "data"), "ca.crt"), "NEW");
    kg_json *tampered = tj(&f->a, "{\"metadata\":{\"name\":\"kube-root-ca.crt\",\"resourceVersion\":\"7\"},\"data\":{"
                                  "\"ca.crt\":\"B\",\"extra\":\"x\"}}");
    fixed = kg_sa_root_ca_configmap_fix(&f->a, tampered, "B");
    assert_non_null(fixed);
    assert_true(kg_json_equal(kg_json_get(fixed, "data"), tj(&f->a, "{\"ca.crt\":\"B\"}")));
    assert_string_equal(kg_json_path_str(fixed, "metadata.resourceVersion"), "7");
    assert_non_null(kg_json_get_str(kg_json_path(fixed, "metadata.annotations"), "kubernetes.io/description"));
    assert_null(kg_sa_root_ca_configmap_fix(&f->a, fixed, "B"));
    /* only active namespaces get them */
    assert_true(kg_sa_namespace_active(tj(&f->a, "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Active\"}}")));
    assert_true(kg_sa_namespace_active(tj(&f->a, "{\"metadata\":{\"name\":\"a\"}}")));
    assert_false(
        kg_sa_namespace_active(tj(&f->a, "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Terminating\"}}")));
    assert_false(kg_sa_namespace_active(
        tj(&f->a, "{\"metadata\":{\"name\":\"a\",\"deletionTimestamp\":\"2024-01-01T00:00:00Z\"}}")));
}

static void controller_sa_satisfies_plugin(void **state)
{
    fixture *f = *state;
    kg_error e = {0};
    assert_true(
        kg_admission_memcluster_put(f->m, "serviceaccounts", kg_sa_default_serviceaccount(&f->a, "test"), 0, &e));
    kg_json *pod = pod_with(f, "\"containers\":[{\"name\":\"a\"}]");
    assert_null(run(f, KG_ADMISSION_CREATE, "", pod));
    assert_string_equal(kg_json_path_str(pod, "spec.serviceAccountName"), "default");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(default_sa_volume_and_mounts, setup, teardown),
        cmocka_unit_test_setup_teardown(ignored_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(mirror_pods, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_default_sa_retries, setup, teardown),
        cmocka_unit_test_setup_teardown(sa_only_in_store_is_found, setup, teardown),
        cmocka_unit_test_setup_teardown(lookup_error, setup, teardown),
        cmocka_unit_test_setup_teardown(automount_opt_out, setup, teardown),
        cmocka_unit_test_setup_teardown(existing_mount_and_volume, setup, teardown),
        cmocka_unit_test_setup_teardown(image_pull_secrets, setup, teardown),
        cmocka_unit_test_setup_teardown(enforce_mountable_secrets, setup, teardown),
        cmocka_unit_test_setup_teardown(not_enforced_without_annotation, setup, teardown),
        cmocka_unit_test_setup_teardown(ephemeral_containers, setup, teardown),
        cmocka_unit_test_setup_teardown(validate_requires_service_account, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(controller_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(controller_sa_satisfies_plugin, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
