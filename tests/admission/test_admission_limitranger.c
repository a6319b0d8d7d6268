/* LimitRanger: upstream scenarios (plugin/pkg/admission/limitranger/admission_test.go) with exact messages,
 * defaulting + idempotence, Pod aggregation with sidecars, PVCs, skips, the live-lookup fallback, LimitRange
 * object defaulting. */
#include <pthread.h>
#include <stdatomic.h>

#include "admission/plugins/limitranger.h"
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
    const kg_admission_plugin *ps[] = {&kg_admission_plugin_limit_ranger};
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

/* Put a LimitRange (defaulted as the server does on create) into ns "test". */
static void put_lr(fixture *f, const char *name, const char *limits_json, unsigned flags)
{
    char *text = kg_arena_sprintf(&f->a,
                                  "{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"metadata\":{\"name\":\"%s\","
                                  "\"namespace\":\"test\"},\"spec\":{\"limits\":%s}}",
                                  name, limits_json);
    kg_json *lr = tj(&f->a, text);
    kg_admission_limitrange_defaults(&f->a, lr);
    kg_error e = {0};
    assert_true(kg_admission_memcluster_put(f->m, "limitranges", lr, flags, &e));
}

static kg_status *run_pod(fixture *f, kg_admission_op op, const char *sub, kg_json *pod, kg_json *old)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, "Pod", "pods", "test", "p", pod, old);
    at.subresource = sub;
    return kg_admission_chain_run(f->chain, &at);
}

static kg_status *run_pvc(fixture *f, kg_admission_op op, kg_json *pvc)
{
    kg_admission_attributes at;
    tattrs(&at, &f->a, op, "PersistentVolumeClaim", "persistentvolumeclaims", "test", "c", pvc,
           op == KG_ADMISSION_UPDATE ? kg_json_clone(&f->a, pvc) : NULL);
    return kg_admission_chain_run(f->chain, &at);
}

static kg_json *pod1(fixture *f, const char *resources)
{
    return tj(&f->a, kg_arena_sprintf(&f->a,
                                      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                                      "\"namespace\":\"test\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"
                                      "\"nginx\",\"resources\":%s}]}}",
                                      resources));
}

static const char *path_str(const kg_json *j, const char *p)
{
    const char *s = kg_json_path_str(j, p);
    return s ? s : "<absent>";
}

static void defaults_applied_and_idempotent(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr",
           "[{\"type\":\"Container\",\"default\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
           "\"defaultRequest\":{\"cpu\":\"500m\"}}]",
           0);
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    const kg_json *c = kg_json_at(kg_json_path(pod, "spec.containers"), 0);
    assert_string_equal(path_str(c, "resources.requests.cpu"), "500m");
    assert_string_equal(path_str(c, "resources.requests.memory"), "1Gi");
    assert_string_equal(path_str(c, "resources.limits.cpu"), "1");
    assert_string_equal(path_str(c, "resources.limits.memory"), "1Gi");
    const kg_json *ann = kg_json_path(pod, "metadata.annotations");
    assert_string_equal(
        kg_json_get_str(ann, "kubernetes.io/limit-ranger"),
        "LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c");
    /* running the mutating phase again changes nothing */
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_true(kg_json_equal(before, pod));
}

/* the parsed form is kept per LimitRange version: an update takes effect on the next request, and pods never share
 * nodes with it (editing the pod leaves the cached LimitRange alone) */
static void updated_limit_range_applies_next(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"default\":{\"cpu\":\"1\"}}]", 0);
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    kg_json *c = kg_json_at(kg_json_path(pod, "spec.containers"), 0);
    assert_string_equal(path_str(c, "resources.limits.cpu"), "1");
    kg_json_set(&f->a, kg_json_path(c, "resources.limits"), "cpu", kg_json_new_str(&f->a, "edited"));
    pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_string_equal(path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.cpu"), "1");
    put_lr(f, "lr", "[{\"type\":\"Container\",\"default\":{\"cpu\":\"2\"},\"max\":{\"cpu\":\"3\"}}]", 0);
    pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_string_equal(path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.cpu"), "2");
    pod = pod1(f, "{\"limits\":{\"cpu\":\"4\"}}");
    kg_status *s = run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL);
    assert_non_null(s);
    assert_non_null(strstr(s->message, "maximum cpu usage per Container is 3, but limit is 4"));
}

static void existing_keys_are_kept(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr",
           "[{\"type\":\"Container\",\"default\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
           "\"defaultRequest\":{\"cpu\":\"500m\"}}]",
           0);
    /* API defaulting already copied the cpu limit into requests */
    kg_json *pod = pod1(f, "{\"limits\":{\"cpu\":\"2\"},\"requests\":{\"cpu\":\"2\"}}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    const kg_json *c = kg_json_at(kg_json_path(pod, "spec.containers"), 0);
    assert_string_equal(path_str(c, "resources.requests.cpu"), "2");
    assert_string_equal(path_str(c, "resources.limits.cpu"), "2");
    assert_string_equal(path_str(c, "resources.requests.memory"), "1Gi");
    assert_string_equal(path_str(c, "resources.limits.memory"), "1Gi");
    assert_string_equal(kg_json_get_str(kg_json_path(pod, "metadata.annotations"), "kubernetes.io/limit-ranger"),
                        "LimitRanger plugin set: memory request for container c; memory limit for container c");
    /* a pod that sets everything gets no annotation */
    kg_json *full = pod1(f, "{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\","
                            "\"memory\":\"1Gi\"}}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", full, NULL));
    assert_null(kg_json_path(full, "metadata.annotations"));
}

static void init_containers_defaulted(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"default\":{\"memory\":\"256Mi\"}}]", 0);
    kg_json *pod = tj(&f->a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":"
                             "\"init\"}],\"containers\":[{\"name\":\"a\"},{\"name\":\"b\",\"resources\":{\"limits\":{"
                             "\"memory\":\"1Gi\"},\"requests\":{\"memory\":\"1Gi\"}}}],\"ephemeralContainers\":[{"
                             "\"name\":\"dbg\"}]}}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_string_equal(kg_json_get_str(kg_json_path(pod, "metadata.annotations"), "kubernetes.io/limit-ranger"),
                        "LimitRanger plugin set: memory request for container a; memory limit for container a; "
                        "memory request for init container init; memory limit for init container init");
    const kg_json *ic = kg_json_at(kg_json_path(pod, "spec.initContainers"), 0);
    assert_string_equal(path_str(ic, "resources.limits.memory"), "256Mi");
    /* ephemeral containers are never touched */
    assert_null(kg_json_get(kg_json_at(kg_json_path(pod, "spec.ephemeralContainers"), 0), "resources"));
    kg_json *before = kg_json_clone(&f->a, pod);
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_true(kg_json_equal(before, pod));
}

static void min_request(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"min\":{\"cpu\":\"100m\"}}]", 0);
    kg_status *st = run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{\"requests\":{\"cpu\":\"50m\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: minimum cpu usage per Container is 100m, but request is 50m");
    /* min is defaulted into defaultRequest, so an empty container gets 100m and passes */
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{}"), NULL));
    st = run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{\"requests\":{\"cpu\":\"200m\"},\"limits\":{\"cpu\":\"50m\"}}"),
                 NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: minimum cpu usage per Container is 100m, but limit is 50m");
}

static void min_no_request_when_not_defaulted(void **state)
{
    fixture *f = *state;
    /* stored without LimitRange defaulting (e.g. written before defaulting existed) */
    tput(f->m, "limitranges",
         "{\"metadata\":{\"name\":\"raw\",\"namespace\":\"test\"},\"spec\":{\"limits\":[{\"type\":\"Container\","
         "\"min\":{\"memory\":\"10Mi\"},\"max\":{\"cpu\":\"2\"}}]}}",
         0);
    kg_status *st = run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: [minimum memory usage per Container is 10Mi.  No request is specified, "
                  "maximum cpu usage per Container is 2.  No limit is specified]");
}

static void max_limit(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"max\":{\"memory\":\"1Gi\"}}]", 0);
    kg_status *st = run_pod(f, KG_ADMISSION_CREATE, "",
                            pod1(f, "{\"limits\":{\"memory\":\"1.5Gi\"},\"requests\":{\"memory\":\"1.5Gi\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum memory usage per Container is 1Gi, but limit is 1536Mi");
    st = run_pod(f, KG_ADMISSION_CREATE, "",
                 pod1(f, "{\"limits\":{\"memory\":\"1Gi\"},\"requests\":{\"memory\":\"2Gi\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum memory usage per Container is 1Gi, but request is 2Gi");
    /* max is defaulted into default, so a container without limits gets 1Gi and passes */
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_string_equal(path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.memory"),
                        "1Gi");
}

static void several_violations_aggregated(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"min\":{\"cpu\":\"100m\"},\"max\":{\"memory\":\"1Gi\"}}]", 0);
    kg_status *st = run_pod(
        f, KG_ADMISSION_CREATE, "",
        pod1(f, "{\"requests\":{\"cpu\":\"50m\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"50m\",\"memory\":\"2Gi\"}}"),
        NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum "
                  "memory usage per Container is 1Gi, but limit is 2Gi]");
}

static void ratio(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"maxLimitRequestRatio\":{\"cpu\":\"2\"}}]", 0);
    kg_status *st = run_pod(f, KG_ADMISSION_CREATE, "",
                            pod1(f, "{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"500m\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is "
                  "5.000000");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "",
                        pod1(f, "{\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"200m\"}}"), NULL));
    st = run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{\"limits\":{\"cpu\":\"1\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: cpu max limit to request ratio per Container is 2, but no request is "
                  "specified or request is 0");
    st = run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{\"requests\":{\"cpu\":\"1\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: cpu max limit to request ratio per Container is 2, but no limit is "
                  "specified or limit is 0");
}

static void pod_type_sums_containers(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Pod\",\"max\":{\"cpu\":\"2\"}}]", 0);
    kg_json *pod = tj(&f->a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":["
                             "{\"name\":\"a\",\"resources\":{\"limits\":{\"cpu\":\"1500m\"},\"requests\":{\"cpu\":"
                             "\"1\"}}},"
                             "{\"name\":\"b\",\"resources\":{\"limits\":{\"cpu\":\"1500m\"},\"requests\":{\"cpu\":"
                             "\"1\"}}}]}}");
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum cpu usage per Pod is 2, but limit is 3");
    /* no Container defaults come from a Pod item */
    assert_null(kg_json_path(pod, "metadata.annotations"));
}

static void pod_type_init_and_sidecars(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Pod\",\"max\":{\"memory\":\"1Gi\"}}]", 0);
    /* regular init container (800Mi) is below the 600Mi+... peak rule: max(sum(containers)=600Mi, init 800Mi) */
    const char *ok = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":\"i\","
                     "\"resources\":{\"limits\":{\"memory\":\"800Mi\"}}}],\"containers\":[{\"name\":\"a\","
                     "\"resources\":{\"limits\":{\"memory\":\"600Mi\"}}}]}}";
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, ok), NULL));
    /* a sidecar (restartPolicy Always) runs alongside: 600Mi + 500Mi */
    const char *bad = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":\"s\","
                      "\"restartPolicy\":\"Always\",\"resources\":{\"limits\":{\"memory\":\"500Mi\"}}}],"
                      "\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":{\"memory\":\"600Mi\"}}}]}}";
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, bad), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1100Mi");
    /* an init container after a sidecar counts the sidecar too: 700Mi + 500Mi */
    const char *bad2 = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":\"s\","
                       "\"restartPolicy\":\"Always\",\"resources\":{\"limits\":{\"memory\":\"500Mi\"}}},{\"name\":"
                       "\"i\",\"resources\":{\"limits\":{\"memory\":\"700Mi\"}}}],\"containers\":[{\"name\":\"a\","
                       "\"resources\":{\"limits\":{\"memory\":\"100Mi\"}}}]}}";
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, bad2), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1200Mi");
}

static void pod_level_resources_gate(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Pod\",\"max\":{\"cpu\":\"2\"}}]", 0);
    const char *text = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"resources\":{\"limits\":{\"cpu\":"
                       "\"3\"}},\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}}";
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, text), NULL));
    kg_admission_memcluster_set_feature(f->m, "PodLevelResources", true);
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, text), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum cpu usage per Pod is 2, but limit is 3");
}

static void pvc_min_max(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr",
           "[{\"type\":\"PersistentVolumeClaim\",\"min\":{\"storage\":\"1Gi\"},\"max\":{\"storage\":"
           "\"10Gi\"}}]",
           0);
    const char *fmt = "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\"},\"spec\":{\"resources\":%s}}";
    kg_status *st = run_pvc(f, KG_ADMISSION_CREATE,
                            tj(&f->a, kg_arena_sprintf(&f->a, fmt, "{\"requests\":{\"storage\":\"500Mi\"}}")));
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, "
                  "but request is 500Mi");
    st = run_pvc(f, KG_ADMISSION_CREATE, tj(&f->a, kg_arena_sprintf(&f->a, fmt, "{}")));
    assert_status(
        st, 403, "Forbidden",
        "persistentvolumeclaims \"c\" is forbidden: [minimum storage usage per PersistentVolumeClaim is 1Gi.  "
        "No request is specified, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is "
        "specified]");
    /* limits are ignored for PVCs; expanding beyond max on UPDATE is refused */
    st = run_pvc(f, KG_ADMISSION_UPDATE,
                 tj(&f->a, kg_arena_sprintf(&f->a, fmt,
                                            "{\"requests\":{\"storage\":\"20Gi\"},\"limits\":{"
                                            "\"storage\":\"1Gi\"}}")));
    assert_status(st, 403, "Forbidden",
                  "persistentvolumeclaims \"c\" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, "
                  "but request is 20Gi");
    kg_json *okpvc = tj(&f->a, kg_arena_sprintf(&f->a, fmt, "{\"requests\":{\"storage\":\"5Gi\"}}"));
    kg_json *before = kg_json_clone(&f->a, okpvc);
    assert_null(run_pvc(f, KG_ADMISSION_CREATE, okpvc));
    assert_true(kg_json_equal(before, okpvc)); /* PVCs are never defaulted */
}

static void skipped_requests(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"min\":{\"cpu\":\"100m\"},\"default\":{\"cpu\":\"50m\"}}]", 0);
    /* (default 50m < min: the container would be refused on CREATE) */
    assert_non_null(run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{}"), NULL));
    /* pod UPDATE and subresources are ignored */
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_UPDATE, "", pod, pod1(f, "{}")));
    assert_null(kg_json_path(pod, "metadata.annotations"));
    assert_null(run_pod(f, KG_ADMISSION_UPDATE, "status", pod1(f, "{}"), pod1(f, "{}")));
    /* an old object being deleted is ignored */
    kg_json *old = tj(&f->a, "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\",\"deletionTimestamp\":"
                             "\"2024-01-01T00:00:00Z\"}}");
    put_lr(f, "pvc", "[{\"type\":\"PersistentVolumeClaim\",\"min\":{\"storage\":\"1Gi\"}}]", 0);
    kg_admission_attributes at;
    tattrs(&at, &f->a, KG_ADMISSION_UPDATE, "PersistentVolumeClaim", "persistentvolumeclaims", "test", "c",
           tj(&f->a, "{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\"},\"spec\":{}}"), old);
    assert_null(kg_admission_chain_run(f->chain, &at));
    /* other kinds are ignored */
    tattrs(&at, &f->a, KG_ADMISSION_CREATE, "ConfigMap", "configmaps", "test", "x",
           tj(&f->a, "{\"metadata\":{\"name\":\"x\"}}"), NULL);
    assert_null(kg_admission_chain_run(f->chain, &at));
}

static void live_lookup_when_cache_empty(void **state)
{
    fixture *f = *state;
    /* the LimitRange is in the store but the cache has not seen it yet (kubernetes#22422) */
    put_lr(f, "lr", "[{\"type\":\"Container\",\"max\":{\"memory\":\"1Gi\"}}]", KG_MEMCLUSTER_STORE_ONLY);
    uint64_t lists0 = kg_admission_memcluster_get_stats(f->m).lists;
    kg_status *st = run_pod(f, KG_ADMISSION_CREATE, "",
                            pod1(f, "{\"limits\":{\"memory\":\"2Gi\"},\"requests\":{\"memory\":\"2Gi\"}}"), NULL);
    assert_status(st, 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi");
    /* admit: cache + live; validate: cache + remembered live result */
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).lists - lists0, 3);
    /* the remembered result expires after 30 s */
    kg_admission_sleep_ns(&f->svc, 31LL * 1000000000LL);
    lists0 = kg_admission_memcluster_get_stats(f->m).lists;
    assert_non_null(run_pod(f, KG_ADMISSION_CREATE, "",
                            pod1(f, "{\"limits\":{\"memory\":\"2Gi\"},\"requests\":{\"memory\":\"2Gi\"}}"), NULL));
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).lists - lists0, 3);
}

static void resize_subresource(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\"}}]", 0);
    kg_json *big = pod1(f, "{\"limits\":{\"cpu\":\"3\"},\"requests\":{\"cpu\":\"1\"}}");
    /* without InPlacePodVerticalScaling the resize subresource is skipped like any other */
    assert_null(run_pod(f, KG_ADMISSION_UPDATE, "resize", big, pod1(f, "{}")));
    kg_admission_memcluster_set_feature(f->m, "InPlacePodVerticalScaling", true);
    assert_status(run_pod(f, KG_ADMISSION_UPDATE, "resize", big, pod1(f, "{}")), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum cpu usage per Container is 2, but limit is 3");
    /* plain pod UPDATEs are still skipped */
    assert_null(run_pod(f, KG_ADMISSION_UPDATE, "", big, pod1(f, "{}")));
}

static void pod_type_allocated_resources(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Pod\",\"max\":{\"cpu\":\"2\"}}]", 0);
    const char *fmt = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"a\","
                      "\"resources\":{\"limits\":{\"cpu\":\"2\"},\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{%s"
                      "\"containerStatuses\":[{\"name\":\"a\",\"allocatedResources\":{\"cpu\":\"3\"}}]}}";
    kg_json *pod = tj(&f->a, kg_arena_sprintf(&f->a, fmt, ""));
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL)); /* status ignored without the gate */
    kg_admission_memcluster_set_feature(f->m, "InPlacePodVerticalScaling", true);
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: maximum cpu usage per Pod is 2, but request is 3");
    /* an infeasible resize counts the allocated resources only */
    const char *fmt2 = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
                       "\"a\",\"resources\":{\"limits\":{\"cpu\":\"2\"},\"requests\":{\"cpu\":\"1500m\"}}}]},"
                       "\"status\":{\"resize\":\"Infeasible\",\"containerStatuses\":[{\"name\":\"a\","
                       "\"allocatedResources\":{\"cpu\":\"500m\"}}]}}";
    put_lr(f, "lr", "[{\"type\":\"Pod\",\"min\":{\"cpu\":\"1\"}}]", 0);
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, fmt2), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: minimum cpu usage per Pod is 1, but request is 500m");
}

static void live_list_failure(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_reads(f->fs, "limitranges", 1, KG_EIO);
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{}"), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: injected read failure for limitranges");
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

/* odd shapes (what a webhook or `kgate check` may hand over before validation) never crash or leak */
static void malformed_objects(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr",
           "[{\"type\":\"Container\",\"min\":{\"cpu\":\"1m\"},\"default\":{\"cpu\":\"1\"}},{\"type\":\"Pod\","
           "\"max\":{\"cpu\":\"100\"}}]",
           0);
    tput(f->m, "limitranges",
         "{\"metadata\":{\"name\":\"odd\",\"namespace\":\"test\"},\"spec\":{\"limits\":[1,{\"type\":"
         "\"Container\",\"max\":[]},{\"type\":\"Pod\",\"min\":{\"cpu\":\"x\"}}]}}",
         0);
    for (size_t i = 0; i < sizeof k_malformed / sizeof *k_malformed; i++)
        (void)run_pod(f, KG_ADMISSION_CREATE, "", tj(&f->a, k_malformed[i]), NULL);
    (void)run_pvc(f, KG_ADMISSION_CREATE, tj(&f->a, "{\"spec\":{\"resources\":{\"requests\":[]}}}"));
    /* a well-formed pod still gets its defaults next to the odd LimitRange */
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    assert_string_equal(path_str(kg_json_at(kg_json_path(pod, "spec.containers"), 0), "resources.limits.cpu"), "1");
}

typedef struct worker {
    fixture *f;
    atomic_int *rejected;
} worker;

static void *worker_run(void *arg)
{
    worker *w = arg;
    kg_arena a;
    kg_arena_init(&a, 0);
    for (int i = 0; i < 50; i++) {
        kg_admission_attributes at;
        tattrs(&at, &a, KG_ADMISSION_CREATE, "Pod", "pods", "test", "p",
               tj(&a, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":"
                      "\"c\",\"resources\":{\"limits\":{\"memory\":\"2Gi\"}}}]}}"),
               NULL);
        kg_status *st = kg_admission_chain_run(w->f->chain, &at);
        if (st && strcmp(st->message, "pods \"p\" is forbidden: maximum memory usage per Container is 1Gi, but limit "
                                      "is 2Gi") == 0)
            atomic_fetch_add(w->rejected, 1);
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

/* concurrent requests while the cache lags: one live list serves them all (the clock stands still) */
static void concurrent_live_lookups(void **state)
{
    fixture *f = *state;
    put_lr(f, "lr", "[{\"type\":\"Container\",\"max\":{\"memory\":\"1Gi\"}}]", KG_MEMCLUSTER_STORE_ONLY);
    atomic_int rejected = 0;
    pthread_t th[4];
    worker w = {f, &rejected};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker_run, &w), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&rejected), 4 * 50);
    /* two cache lists per request (admit, validate) plus a single live list */
    assert_int_equal(kg_admission_memcluster_get_stats(f->m).lists, 2 * 4 * 50 + 1);
}

static void lookup_failure(void **state)
{
    fixture *f = *state;
    kg_faulty_fail_reads(f->fs, "limitranges", 0, KG_EIO);
    assert_status(run_pod(f, KG_ADMISSION_CREATE, "", pod1(f, "{}"), NULL), 403, "Forbidden",
                  "pods \"p\" is forbidden: unable to CREATE /v1, Resource=pods at this time because there was an "
                  "error enforcing limit ranges");
}

static void limitrange_object_defaulting(void **state)
{
    fixture *f = *state;
    kg_json *lr = tj(&f->a, "{\"spec\":{\"limits\":[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},"
                            "\"min\":{\"cpu\":\"100m\",\"memory\":\"10Mi\"},\"default\":{\"memory\":\"512Mi\"}},"
                            "{\"type\":\"Pod\",\"max\":{\"cpu\":\"4\"}}]}}");
    kg_admission_limitrange_defaults(&f->a, lr);
    kg_json *want =
        tj(&f->a, "{\"spec\":{\"limits\":[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},"
                  "\"min\":{\"cpu\":\"100m\",\"memory\":\"10Mi\"},\"default\":{\"memory\":\"512Mi\",\"cpu\":"
                  "\"2\"},\"defaultRequest\":{\"memory\":\"512Mi\",\"cpu\":\"2\"}},"
                  "{\"type\":\"Pod\",\"max\":{\"cpu\":\"4\"}}]}}");
    assert_true(kg_json_equal(lr, want));
    kg_admission_limitrange_defaults(&f->a, lr);
    assert_true(kg_json_equal(lr, want));
    /* min only: defaultRequest from min, no default */
    kg_json *lr2 = tj(&f->a, "{\"spec\":{\"limits\":[{\"type\":\"Container\",\"min\":{\"cpu\":\"100m\"}}]}}");
    kg_admission_limitrange_defaults(&f->a, lr2);
    assert_true(kg_json_equal(
        lr2, tj(&f->a, "{\"spec\":{\"limits\":[{\"type\":\"Container\",\"min\":{\"cpu\":\"100m\"},\"defaultRequest\":{"
                       "\"cpu\":\"100m\"}}]}}")));
}

static void several_limitranges(void **state)
{
    fixture *f = *state;
    put_lr(f, "a", "[{\"type\":\"Container\",\"default\":{\"cpu\":\"1\"}}]", 0);
    put_lr(f, "b", "[{\"type\":\"Container\",\"default\":{\"memory\":\"1Gi\"}}]", 0);
    kg_json *pod = pod1(f, "{}");
    assert_null(run_pod(f, KG_ADMISSION_CREATE, "", pod, NULL));
    const kg_json *c = kg_json_at(kg_json_path(pod, "spec.containers"), 0);
    assert_string_equal(path_str(c, "resources.limits.cpu"), "1");
    assert_string_equal(path_str(c, "resources.limits.memory"), "1Gi");
    /* the annotation is overwritten by the last LimitRange that set something */
    assert_string_equal(kg_json_get_str(kg_json_path(pod, "metadata.annotations"), "kubernetes.io/limit-ranger"),
                        "LimitRanger plugin set: memory request for container c; memory limit for container c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(defaults_applied_and_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(updated_limit_range_applies_next, setup, teardown),
        cmocka_unit_test_setup_teardown(existing_keys_are_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(init_containers_defaulted, setup, teardown),
        cmocka_unit_test_setup_teardown(min_request, setup, teardown),
        cmocka_unit_test_setup_teardown(min_no_request_when_not_defaulted, setup, teardown),
        cmocka_unit_test_setup_teardown(max_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(several_violations_aggregated, setup, teardown),
        cmocka_unit_test_setup_teardown(ratio, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_type_sums_containers, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_type_init_and_sidecars, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_level_resources_gate, setup, teardown),
        cmocka_unit_test_setup_teardown(pvc_min_max, setup, teardown),
        cmocka_unit_test_setup_teardown(skipped_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(live_lookup_when_cache_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(lookup_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(malformed_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(live_list_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_live_lookups, setup, teardown),
        cmocka_unit_test_setup_teardown(resize_subresource, setup, teardown),
        cmocka_unit_test_setup_teardown(pod_type_allocated_resources, setup, teardown),
        cmocka_unit_test_setup_teardown(limitrange_object_defaulting, setup, teardown),
        cmocka_unit_test_setup_teardown(several_limitranges, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
