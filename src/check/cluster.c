/* The in-memory cluster of `kgate check` (see cluster.h). */
#include "check/cluster.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission/chain.h"
#include "api/resources.h"
#include "auth/authorizer.h"
#include "auth/user.h"
#include "base/metrics.h"
#include "controllers/quota.h"
#include "controllers/serviceaccount.h"
#include "registry/bootstrap.h"
#include "registry/codec.h"
#include "registry/featuregates.h"
#include "registry/pipeline.h"
#include "registry/storeclient.h"
#include "registry/storeservices.h"

struct kg_check_cluster {
    kg_store_services_config svc_cfg; /* first: the services' ctx, from which subscribe finds the cluster */
    kg_store *store;
    kg_feature_gates *gates;
    kg_authorizer *authz;
    kg_metrics_registry *metrics_reg;
    kg_apiserver_metrics metrics;
    kg_admission_services svc;
    kg_admission_chain *chain;
    kg_pipeline pipeline;
    kg_controller_client client;
    kg_admission_user user;
    const kg_admission_tracer *tracer;
    /* change subscribers (services.subscribe); notified by kg_check_cluster_notify, i.e. by mirror writes */
    pthread_mutex_t subs_mu;
    struct {
        uint64_t id;
        char resource[64];
        kg_admission_event_fn fn;
        void *ud;
    } subs[16];
    size_t nsubs;
    uint64_t next_sub;
};

static kg_check_cluster *of_ctx(void *ctx)
{
    return (kg_check_cluster *)((char *)ctx - offsetof(kg_check_cluster, svc_cfg));
}

static uint64_t cluster_subscribe(void *ctx, const char *resource, kg_admission_event_fn fn, void *ud, kg_error *err)
{
    kg_check_cluster *c = of_ctx(ctx);
    pthread_mutex_lock(&c->subs_mu);
    uint64_t id = 0;
    if (c->nsubs < sizeof c->subs / sizeof c->subs[0] && strlen(resource) < sizeof c->subs[0].resource) {
        id = ++c->next_sub;
        c->subs[c->nsubs].id = id;
        snprintf(c->subs[c->nsubs].resource, sizeof c->subs[0].resource, "%s", resource);
        c->subs[c->nsubs].fn = fn;
        c->subs[c->nsubs].ud = ud;
        c->nsubs++;
    }
    pthread_mutex_unlock(&c->subs_mu);
    if (!id)
        kg_err_set(err, KG_EINVAL, "too many subscriptions");
    return id;
}

static void cluster_unsubscribe(void *ctx, uint64_t id)
{
    kg_check_cluster *c = of_ctx(ctx);
    pthread_mutex_lock(&c->subs_mu);
    for (size_t i = 0; i < c->nsubs; i++)
        if (c->subs[i].id == id) {
            c->subs[i] = c->subs[--c->nsubs];
            break;
        }
    pthread_mutex_unlock(&c->subs_mu);
}

void kg_check_cluster_notify(kg_check_cluster *c, const kg_admission_event *ev)
{
    /* one call at a time (the lock is held while delivering: subscribers must not subscribe from a callback) */
    pthread_mutex_lock(&c->subs_mu);
    for (size_t i = 0; i < c->nsubs; i++)
        if (!strcmp(c->subs[i].resource, ev->resource) && c->subs[i].fn)
            c->subs[i].fn(c->subs[i].ud, ev);
    pthread_mutex_unlock(&c->subs_mu);
}

struct kg_store *kg_check_cluster_store(const kg_check_cluster *c)
{
    return c->store;
}

static void run_controllers(kg_check_cluster *c, kg_arena *a, const kg_resource *r, const kg_json *stored);

/* Change notification (services.h subscribe): the store services have none (nothing is cached over the store), but
 * plugins that compile what they read — policies and bindings, webhook configurations — load once and then follow
 * changes, as they follow serve's watches. The cluster tells them of every write it makes (notify) and of every
 * mirror write (kg_check_cluster_notify). */
static void notify(kg_check_cluster *c, const kg_resource *r, const char *ns, const kg_json *obj, bool created)
{
    const char *name = kg_json_path_str(obj, "metadata.name");
    kg_admission_event ev = {.type = created ? KG_ADMISSION_EVENT_ADDED : KG_ADMISSION_EVENT_MODIFIED,
                             .resource = r->plural,
                             .ns = ns ? ns : "",
                             .name = name ? name : "",
                             .object = obj};
    kg_check_cluster_notify(c, &ev);
}

void kg_check_cluster_free(kg_check_cluster *c)
{
    if (!c)
        return;
    kg_admission_chain_free(c->chain);
    if (c->authz)
        kg_authorizer_free(c->authz);
    kg_feature_gates_free(c->gates);
    if (c->store)
        kg_store_close(c->store);
    if (c->metrics_reg)
        kg_metrics_registry_free(c->metrics_reg);
    pthread_mutex_destroy(&c->subs_mu);
    free(c);
}

kg_check_cluster *kg_check_cluster_new(const kg_check_config *cfg, kg_error *err)
{
    static const char *const admin_groups[] = {KG_GROUP_MASTERS, KG_GROUP_AUTHENTICATED};
    static const char *const masters[] = {KG_GROUP_MASTERS};
    kg_check_cluster *c = calloc(1, sizeof *c);
    pthread_mutex_init(&c->subs_mu, NULL);
    c->gates = kg_feature_gates_parse(cfg->feature_gates, err);
    if (!c->gates) {
        kg_err_prefix(err, "invalid argument \"%s\" for \"--feature-gates\" flag", cfg->feature_gates);
        goto fail;
    }
    /* MutatingAdmissionPolicy: with its gate, its objects (admissionregistration.k8s.io/v1beta1) are accepted, as
     * serve does with --runtime-config=admissionregistration.k8s.io/v1beta1=true */
    kg_resources_serve_mutating_policies(kg_feature_enabled(c->gates, "MutatingAdmissionPolicy") ? "v1beta1" : NULL);
    c->store = kg_store_open("memory", NULL, NULL, err);
    if (!c->store)
        goto fail;
    c->metrics_reg = kg_metrics_registry_new();
    kg_metrics_apiserver_register(c->metrics_reg, &c->metrics);
    /* the authorizer serve gives admission: system:masters may do anything */
    c->authz = kg_authz_new_privileged_groups(masters, 1);
    c->svc_cfg = (kg_store_services_config){
        .store = c->store, .gates = c->gates, .authorizer = c->authz, .metrics = &c->metrics};
    kg_store_services_init(&c->svc, &c->svc_cfg);
    c->svc.subscribe = cluster_subscribe;
    c->svc.unsubscribe = cluster_unsubscribe;
    c->chain = kg_admission_chain_new(&cfg->admission, &c->svc, &c->metrics, err);
    if (!c->chain)
        goto fail;
    c->pipeline = (kg_pipeline){.store = c->store, .chain = c->chain};
    c->client = kg_store_controller_client(c->store, &c->svc);
    if (!kg_registry_bootstrap(c->store, err))
        goto fail;
    /* what serve's serviceaccounts controller and root-CA publisher do for the bootstrap namespaces */
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_json *nss = kg_store_object_list(c->store, &a, "namespaces", "", err);
    for (uint32_t i = 0; nss && i < nss->len; i++)
        run_controllers(c, &a, kg_resource_find_plural("namespaces"), kg_json_at(nss, i));
    kg_arena_free(&a);
    if (!nss)
        goto fail;
    c->user = (kg_admission_user){
        .name = cfg->user ? cfg->user : KG_ADMIN_USER,
        .uid = "",
        .groups = cfg->groups ? cfg->groups : admin_groups,
        .ngroups = cfg->groups ? cfg->ngroups : 2,
    };
    return c;
fail:
    kg_check_cluster_free(c);
    return NULL;
}

void kg_check_cluster_set_tracer(kg_check_cluster *c, const kg_admission_tracer *tracer)
{
    c->tracer = tracer;
}

const kg_admission_chain *kg_check_cluster_chain(const kg_check_cluster *c)
{
    return c->chain;
}

kg_metrics_registry *kg_check_cluster_metrics(const kg_check_cluster *c)
{
    return c->metrics_reg;
}

const kg_resource *kg_check_resource_of(kg_arena *a, const kg_json *obj, const char **msg)
{
    const char *av = kg_json_get_str(obj, "apiVersion");
    const char *kind = kg_json_get_str(obj, "kind");
    av = av ? av : "";
    kind = kind ? kind : "";
    const char *slash = strchr(av, '/');
    const char *group = slash ? kg_arena_strndup(a, av, (size_t)(slash - av)) : "";
    const char *version = slash ? slash + 1 : av;
    const kg_resource *r = kg_resource_find_kind(group, kind);
    if (!r || strcmp(r->version, version)) {
        /* kubectl's words when discovery does not know the kind */
        *msg = kg_arena_sprintf(a, "no matches for kind \"%s\" in version \"%s\"", kind, av);
        return NULL;
    }
    return r;
}

/* What serve's controllers do after a write of obj (see cluster.h). */
static void run_controllers(kg_check_cluster *c, kg_arena *a, const kg_resource *r, const kg_json *stored)
{
    if (!stored)
        return;
    if (!r->group[0] && !strcmp(r->plural, "namespaces"))
        kg_sa_controllers_sync(&c->client, a, stored, "");
    else if (!r->group[0] && !strcmp(r->plural, "resourcequotas")) {
        kg_error err;
        const char *ns = kg_json_path_str(stored, "metadata.namespace");
        kg_quota_sync_namespace(a, &c->svc, ns ? ns : "", NULL, &err);
    }
}

/* The request namespace: metadata.namespace, "default" for a namespaced object without one (kubectl's default),
 * "" for cluster-scoped resources. */
static const char *request_ns(kg_arena *a, const kg_resource *r, kg_json *obj)
{
    if (!r->namespaced)
        return "";
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    const char *ns = kg_json_get_str(md, "namespace");
    if (!ns || !ns[0]) {
        ns = "default";
        kg_json_set(a, md, "namespace", kg_json_new_str(a, ns));
    }
    return ns;
}

kg_json *kg_check_load_get(kg_check_cluster *c, kg_arena *a, const kg_json *obj, kg_error *err)
{
    const char *msg;
    const kg_resource *r = kg_check_resource_of(a, obj, &msg);
    if (!r) {
        kg_err_set(err, KG_EINVAL, "%s", msg);
        return NULL;
    }
    kg_json *o = kg_json_clone(a, obj);
    const char *ns = request_ns(a, r, o);
    kg_json *stored = kg_store_object_create(c->store, a, r->plural, ns, o, err);
    if (!stored)
        return NULL;
    notify(c, r, ns, stored, true);
    run_controllers(c, a, r, stored);
    return stored;
}

bool kg_check_load(kg_check_cluster *c, kg_arena *a, const kg_json *obj, kg_error *err)
{
    return kg_check_load_get(c, a, obj, err) != NULL;
}

kg_status *kg_check_validate_only(kg_check_cluster *c, kg_arena *a, kg_json *stored, const kg_admission_tracer *tracer)
{
    const char *msg;
    const kg_resource *r = kg_check_resource_of(a, stored, &msg);
    if (!r)
        return kg_status_bad_request(a, msg);
    kg_admission_attributes at;
    kg_admission_attrs_init(&at, a);
    at.operation = KG_ADMISSION_CREATE;
    at.kind = (kg_gvk){r->group, r->version, r->kind};
    at.resource = (kg_gvr){r->group, r->version, r->plural};
    at.request_kind = at.kind;
    at.request_resource = at.resource;
    const char *name = kg_json_path_str(stored, "metadata.name");
    at.name = name ? name : "";
    at.ns = r->namespaced ? request_ns(a, r, stored) : "";
    if (!r->group[0] && !strcmp(r->plural, "namespaces"))
        at.ns = at.name;
    at.object = stored;
    at.dry_run = true;
    at.user = c->user;
    at.tracer = tracer;
    return kg_admission_chain_validate(c->chain, &at);
}

void kg_check_submit(kg_check_cluster *c, kg_arena *a, kg_json *obj, const kg_json *old, kg_check_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->kind = kg_json_get_str(obj, "kind");
    out->name = kg_json_path_str(obj, "metadata.name");
    out->name = out->name ? out->name : kg_json_path_str(obj, "metadata.generateName");
    out->name = out->name ? out->name : "";
    out->reason = out->message = "";
    const char *msg;
    const kg_resource *r = kg_check_resource_of(a, obj, &msg);
    if (!r) {
        out->input_error = true;
        out->ns = kg_json_path_str(obj, "metadata.namespace");
        out->ns = out->ns ? out->ns : "";
        out->code = 400;
        out->message = msg;
        return;
    }
    out->ns = request_ns(a, r, obj);
    kg_warnings *w = kg_arena_alloc(a, sizeof *w);
    kg_warnings_init(w, a);
    kg_write_request rq;
    kg_write_request_init(&rq, a, r);
    rq.ns = out->ns;
    rq.name = out->name;
    rq.user = c->user;
    rq.warnings = w;
    rq.tracer = c->tracer;
    kg_write_result res;
    if (old) {
        kg_error err;
        kg_json *o = kg_json_clone(a, old);
        request_ns(a, r, o);
        kg_json *stored = kg_store_object_create(c->store, a, r->plural, out->ns, o, &err);
        if (!stored && err.code != KG_EEXIST) {
            out->input_error = true;
            out->code = 400;
            out->message = kg_arena_sprintf(a, "storing the old object: %s", err.msg);
            return;
        }
        if (stored)
            notify(c, r, out->ns, stored, true);
        kg_pipeline_update(&c->pipeline, &rq, obj, &res);
    } else {
        kg_pipeline_create(&c->pipeline, &rq, obj, &res);
    }
    out->code = res.code;
    out->warnings = w->items;
    out->nwarnings = w->n;
    if (res.status) {
        out->allowed = false;
        out->reason = res.status->reason ? res.status->reason : "";
        out->message = res.status->message ? res.status->message : "";
        return;
    }
    out->allowed = true;
    if (res.object)
        out->admitted = res.object;
    else if (res.bytes) {
        kg_error err;
        out->admitted = kg_obj_decode(a, res.bytes, res.len, res.rev, &err);
    }
    if (out->admitted) {
        const char *nm = kg_json_path_str(out->admitted, "metadata.name");
        out->name = nm ? nm : out->name;
    }
    if (out->admitted)
        notify(c, r, out->ns, out->admitted, !old);
    run_controllers(c, a, r, out->admitted);
}
