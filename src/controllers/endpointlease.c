/* The `kubernetes` Service endpoints lease reconciler (endpointlease.h). */
#include "controllers/endpointlease.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "meta/object.h"

#define LEASE_NS "kube-system"
#define IDENTITY_LABEL "apiserver.kubernetes.io/identity"
#define ADDRESS_ANNOTATION "kgate.io/advertise-address"
#define SERVICE_NAME_LABEL "kubernetes.io/service-name"
#define MAX_PEERS 256 /* live replicas listed (more are ignored) */

struct kg_endpoint_lease {
    kg_controller_client client;
    char *address, *hostname;
    int port, lease_ms;
    char name[48];
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool stop, started;
};

static kg_json *str(kg_arena *a, const char *s)
{
    return kg_json_new_str(a, s);
}

static kg_json *obj_new(kg_arena *a, const char *api_version, const char *kind, const char *ns, const char *name)
{
    kg_json *o = kg_json_new_object(a), *md = kg_json_new_object(a);
    kg_json_set(a, o, "apiVersion", str(a, api_version));
    kg_json_set(a, o, "kind", str(a, kind));
    kg_json_set(a, md, "name", str(a, name));
    kg_json_set(a, md, "namespace", str(a, ns));
    kg_json_set(a, o, "metadata", md);
    return o;
}

/* This replica's Lease, created or renewed (its resourceVersion is the precondition of the renewal). */
static bool renew(kg_endpoint_lease *l, kg_arena *a, kg_error *err)
{
    kg_json *lease = l->client.get(l->client.ctx, a, "leases", LEASE_NS, l->name, err);
    if (!lease && err->code != KG_ENOTFOUND)
        return false;
    bool create = !lease;
    if (create)
        lease = obj_new(a, "coordination.k8s.io/v1", "Lease", LEASE_NS, l->name);
    kg_json *md = kg_json_get(lease, "metadata");
    kg_json *labels = kg_json_get_or_add_object(a, md, "labels");
    kg_json_set(a, labels, IDENTITY_LABEL, str(a, "kube-apiserver"));
    kg_json_set(a, labels, "kubernetes.io/hostname", str(a, l->hostname));
    kg_json *ann = kg_json_get_or_add_object(a, md, "annotations");
    kg_json_set(a, ann, ADDRESS_ANNOTATION, str(a, kg_arena_sprintf(a, "%s:%d", l->address, l->port)));
    kg_json *spec = kg_json_get_or_add_object(a, lease, "spec");
    kg_json_set(a, spec, "holderIdentity", str(a, l->name));
    kg_json_set(a, spec, "leaseDurationSeconds", kg_json_new_int(a, (l->lease_ms + 999) / 1000));
    char *now = kg_micro_time_now(a);
    if (create)
        kg_json_set(a, spec, "acquireTime", str(a, now));
    kg_json_set(a, spec, "renewTime", str(a, now));
    kg_err_clear(err);
    if (create)
        return l->client.create(l->client.ctx, a, "leases", LEASE_NS, lease, err) != NULL;
    return l->client.update(l->client.ctx, a, "leases", LEASE_NS, lease, err) != NULL;
}

typedef struct peer {
    const char *ip;
    int port;
} peer;

static int peer_cmp(const void *x, const void *y)
{
    const peer *a = x, *b = y;
    if (a->port != b->port)
        return a->port < b->port ? -1 : 1;
    return strcmp(a->ip, b->ip);
}

/* The Endpoints subsets for the live Leases (skip: a Lease name to leave out, the stopping replica's). */
static bool desired_subsets(kg_endpoint_lease *l, kg_arena *a, const char *skip, kg_json **out, kg_error *err)
{
    kg_json *leases = l->client.list(l->client.ctx, a, "leases", LEASE_NS, err);
    if (!leases)
        return false;
    peer *peers = kg_arena_alloc(a, MAX_PEERS * sizeof *peers);
    size_t n = 0;
    time_t now = time(NULL);
    for (size_t i = 0; i < leases->len && n < MAX_PEERS; i++) {
        const kg_json *lease = kg_json_at(leases, i);
        const kg_json *md = kg_json_get(lease, "metadata");
        const char *name = kg_json_get_str(md, "name");
        const char *identity = kg_json_get_str(kg_json_get(md, "labels"), IDENTITY_LABEL);
        if (!name || (skip && !strcmp(name, skip)) || !identity || strcmp(identity, "kube-apiserver"))
            continue;
        const char *addr = kg_json_get_str(kg_json_get(md, "annotations"), ADDRESS_ANNOTATION);
        const kg_json *spec = kg_json_get(lease, "spec");
        const kg_json *dur = kg_json_get(spec, "leaseDurationSeconds");
        time_t renewed;
        if (!addr || !kg_json_is(dur, KG_JSON_INT) || !kg_time_parse(kg_json_get_str(spec, "renewTime"), &renewed))
            continue;
        /* renewTime is at second precision here: a Lease counts until the end of the second it expires in */
        if ((int64_t)renewed + dur->u.i + 1 < (int64_t)now)
            continue;
        const char *colon = strrchr(addr, ':');
        char *end;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        if (!colon || colon == addr || *end || port <= 0 || port > 65535)
            continue;
        const char *ip = kg_arena_strndup(a, addr, (size_t)(colon - addr));
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = peers[k].port == (int)port && !strcmp(peers[k].ip, ip);
        if (!dup)
            peers[n++] = (peer){ip, (int)port};
    }
    qsort(peers, n, sizeof *peers, peer_cmp);
    kg_json *subsets = kg_json_new_array(a);
    for (size_t i = 0; i < n;) {
        kg_json *ss = kg_json_new_object(a), *addrs = kg_json_new_array(a), *ports = kg_json_new_array(a);
        size_t j = i;
        for (; j < n && peers[j].port == peers[i].port; j++) {
            kg_json *ad = kg_json_new_object(a);
            kg_json_set(a, ad, "ip", str(a, peers[j].ip));
            kg_json_array_append(a, addrs, ad);
        }
        kg_json *p = kg_json_new_object(a);
        kg_json_set(a, p, "name", str(a, "https"));
        kg_json_set(a, p, "port", kg_json_new_int(a, peers[i].port));
        kg_json_set(a, p, "protocol", str(a, "TCP"));
        kg_json_array_append(a, ports, p);
        kg_json_set(a, ss, "addresses", addrs);
        kg_json_set(a, ss, "ports", ports);
        kg_json_array_append(a, subsets, ss);
        i = j;
    }
    *out = subsets;
    return true;
}

/* The EndpointSlice default/kubernetes for subsets (upstream's EndpointsAdapter.Sync): label
 * kubernetes.io/service-name=kubernetes only, the addresses of the first subset (the lowest port: one slice has one
 * port list) of the address family of its first address, each {addresses: [ip], conditions: {ready: true}}, and
 * that subset's port. Other slices labelled for the Service are deleted. Written only when its endpoints, ports or
 * labels differ. */
static bool reconcile_slice(kg_endpoint_lease *l, kg_arena *a, const kg_json *subsets, kg_error *err)
{
    const kg_json *ss = subsets->len ? kg_json_at(subsets, 0) : NULL;
    const kg_json *addrs = kg_json_get(ss, "addresses");
    const char *first = kg_json_get_str(kg_json_at(addrs, 0), "ip");
    const char *type = first && strchr(first, ':') ? "IPv6" : "IPv4";
    kg_json *endpoints = kg_json_new_array(a);
    for (size_t i = 0; addrs && i < addrs->len; i++) {
        const char *ip = kg_json_get_str(kg_json_at(addrs, i), "ip");
        if (!ip || (strchr(ip, ':') != NULL) != !strcmp(type, "IPv6"))
            continue;
        kg_json *ep = kg_json_new_object(a), *list = kg_json_new_array(a), *cond = kg_json_new_object(a);
        kg_json_array_append(a, list, str(a, ip));
        kg_json_set(a, ep, "addresses", list);
        kg_json_set(a, cond, "ready", kg_json_new_bool(a, true));
        kg_json_set(a, ep, "conditions", cond);
        kg_json_array_append(a, endpoints, ep);
    }
    kg_json *labels = kg_json_new_object(a);
    kg_json_set(a, labels, SERVICE_NAME_LABEL, str(a, "kubernetes"));
    for (int attempt = 0;; attempt++) {
        kg_json *all = l->client.list(l->client.ctx, a, "endpointslices", "default", err);
        if (!all)
            return false;
        kg_json *slice = NULL;
        for (size_t i = 0; i < all->len; i++) {
            kg_json *s = kg_json_at(all, i);
            const char *svc = kg_json_get_str(kg_json_path(s, "metadata.labels"), SERVICE_NAME_LABEL);
            if (!svc || strcmp(svc, "kubernetes"))
                continue;
            const char *name = kg_json_path_str(s, "metadata.name"), *t = kg_json_get_str(s, "addressType");
            if (name && !strcmp(name, "kubernetes") && t && !strcmp(t, type)) {
                slice = s;
                continue;
            }
            KG_ERROR_DECL(de);
            if (name && !l->client.delete_object(l->client.ctx, a, "endpointslices", "default", name, NULL, &de) &&
                de.code != KG_ENOTFOUND)
                return *err = de, false;
        }
        kg_json *ports = kg_json_get(ss, "ports");
        if (!ports) /* no live replica: keep the port it had */
            ports = slice ? kg_json_get(slice, "ports") : NULL;
        if (!ports) {
            ports = kg_json_new_array(a);
            kg_json *p = kg_json_new_object(a);
            kg_json_set(a, p, "name", str(a, "https"));
            kg_json_set(a, p, "port", kg_json_new_int(a, l->port));
            kg_json_set(a, p, "protocol", str(a, "TCP"));
            kg_json_array_append(a, ports, p);
        }
        bool create = !slice;
        if (create) {
            slice = obj_new(a, "discovery.k8s.io/v1", "EndpointSlice", "default", "kubernetes");
        } else if (kg_json_equal(kg_json_get(slice, "endpoints"), endpoints) &&
                   kg_json_equal(kg_json_get(slice, "ports"), ports) &&
                   kg_json_equal(kg_json_path(slice, "metadata.labels"), labels)) {
            return true;
        }
        kg_json_set(a, kg_json_get(slice, "metadata"), "labels", labels);
        kg_json_set(a, slice, "addressType", str(a, type));
        kg_json_set(a, slice, "endpoints", endpoints);
        kg_json_set(a, slice, "ports", kg_json_clone(a, ports));
        kg_err_clear(err);
        bool ok = create ? l->client.create(l->client.ctx, a, "endpointslices", "default", slice, err) != NULL
                         : l->client.update(l->client.ctx, a, "endpointslices", "default", slice, err) != NULL;
        if (ok)
            return true;
        if ((err->code != KG_ECONFLICT && err->code != KG_EEXIST) || attempt >= 3)
            return false;
    }
}

static bool reconcile_endpoints(kg_endpoint_lease *l, kg_arena *a, const char *skip, kg_error *err)
{
    for (int attempt = 0;; attempt++) {
        kg_json *subsets;
        if (!desired_subsets(l, a, skip, &subsets, err))
            return false;
        kg_json *ep = l->client.get(l->client.ctx, a, "endpoints", "default", "kubernetes", err);
        if (!ep && err->code != KG_ENOTFOUND)
            return false;
        bool create = !ep;
        if (create)
            ep = obj_new(a, "v1", "Endpoints", "default", "kubernetes");
        else if (kg_json_equal(kg_json_get(ep, "subsets"), subsets))
            return reconcile_slice(l, a, subsets, err);
        kg_json *labels = kg_json_get_or_add_object(a, kg_json_get(ep, "metadata"), "labels");
        kg_json_set(a, labels, "endpointslice.kubernetes.io/skip-mirror", str(a, "true"));
        kg_json_set(a, ep, "subsets", subsets);
        kg_err_clear(err);
        bool ok = create ? l->client.create(l->client.ctx, a, "endpoints", "default", ep, err) != NULL
                         : l->client.update(l->client.ctx, a, "endpoints", "default", ep, err) != NULL;
        if (ok)
            return reconcile_slice(l, a, subsets, err);
        if ((err->code != KG_ECONFLICT && err->code != KG_EEXIST) || attempt >= 3)
            return false;
    }
}

/* The Service default/kubernetes, when missing (never rewritten: an administrator may have changed it). */
static bool ensure_service(kg_endpoint_lease *l, kg_arena *a, kg_error *err)
{
    if (l->client.get(l->client.ctx, a, "services", "default", "kubernetes", err))
        return true;
    if (err->code != KG_ENOTFOUND)
        return false;
    kg_json *svc = obj_new(a, "v1", "Service", "default", "kubernetes");
    kg_json *labels = kg_json_get_or_add_object(a, kg_json_get(svc, "metadata"), "labels");
    kg_json_set(a, labels, "component", str(a, "apiserver"));
    kg_json_set(a, labels, "provider", str(a, "kubernetes"));
    kg_json *spec = kg_json_get_or_add_object(a, svc, "spec"), *ports = kg_json_new_array(a),
            *p = kg_json_new_object(a);
    kg_json_set(a, p, "name", str(a, "https"));
    kg_json_set(a, p, "port", kg_json_new_int(a, 443));
    kg_json_set(a, p, "protocol", str(a, "TCP"));
    kg_json_set(a, p, "targetPort", kg_json_new_int(a, l->port));
    kg_json_array_append(a, ports, p);
    kg_json_set(a, spec, "ports", ports);
    kg_json_set(a, spec, "type", str(a, "ClusterIP"));
    kg_json_set(a, spec, "sessionAffinity", str(a, "None"));
    kg_err_clear(err);
    if (l->client.create(l->client.ctx, a, "services", "default", svc, err) || err->code == KG_EEXIST)
        return true;
    return false;
}

bool kg_endpoint_lease_sync(kg_endpoint_lease *l, kg_error *err)
{
    kg_arena a;
    kg_arena_init(&a, 8192);
    bool ok = renew(l, &a, err) && reconcile_endpoints(l, &a, NULL, err) && ensure_service(l, &a, err);
    kg_arena_free(&a);
    return ok;
}

static void *run(void *arg)
{
    kg_endpoint_lease *l = arg;
    pthread_setname_np(pthread_self(), "kg-eplease");
    int interval_ms = l->lease_ms * 2 / 3;
    pthread_mutex_lock(&l->mu);
    while (!l->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t ns = ts.tv_nsec + (int64_t)interval_ms * 1000000;
        ts.tv_sec += ns / 1000000000;
        ts.tv_nsec = ns % 1000000000;
        pthread_cond_timedwait(&l->cond, &l->mu, &ts);
        if (l->stop)
            break;
        pthread_mutex_unlock(&l->mu);
        KG_ERROR_DECL(err);
        if (!kg_endpoint_lease_sync(l, &err))
            KG_V(1, "endpoint lease %s: %s", l->name, err.msg);
        pthread_mutex_lock(&l->mu);
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

/* FNV-1a 64 */
static uint64_t fnv(const char *s, uint64_t h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

kg_endpoint_lease *kg_endpoint_lease_start(const kg_controller_client *client, const kg_endpoint_lease_config *cfg,
                                           kg_error *err)
{
    if (!cfg->advertise_address || !cfg->advertise_address[0] || cfg->port <= 0 || cfg->port > 65535) {
        kg_err_set(err, KG_EINVAL, "endpoint lease: an advertise address and a port are required");
        return NULL;
    }
    kg_endpoint_lease *l = calloc(1, sizeof *l);
    if (!l) {
        kg_err_set(err, KG_EINTERNAL, "out of memory");
        return NULL;
    }
    char host[256] = "localhost";
    if (cfg->hostname)
        snprintf(host, sizeof host, "%s", cfg->hostname);
    else
        gethostname(host, sizeof host - 1);
    l->client = *client;
    l->address = strdup(cfg->advertise_address);
    l->hostname = strdup(host);
    l->port = cfg->port;
    l->lease_ms = cfg->lease_duration_ms > 0 ? cfg->lease_duration_ms : 15000;
    if (l->lease_ms < 1500)
        l->lease_ms = 1500;
    char port[16];
    snprintf(port, sizeof port, "%d", cfg->port);
    uint64_t h = fnv(port, fnv("|", fnv(l->address, fnv("|", fnv(host, 1469598103934665603ull)))));
    snprintf(l->name, sizeof l->name, "apiserver-%016llx", (unsigned long long)h);
    pthread_mutex_init(&l->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &ca);
    pthread_condattr_destroy(&ca);
    KG_ERROR_DECL(e);
    if (!kg_endpoint_lease_sync(l, &e))
        KG_V(1, "endpoint lease %s: %s", l->name, e.msg);
    l->started = pthread_create(&l->th, NULL, run, l) == 0;
    return l;
}

const char *kg_endpoint_lease_name(const kg_endpoint_lease *l)
{
    return l->name;
}

void kg_endpoint_lease_stop(kg_endpoint_lease *l)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_cond_signal(&l->cond);
    pthread_mutex_unlock(&l->mu);
    if (l->started)
        pthread_join(l->th, NULL);
    /* upstream's RemoveEndpoints on shutdown: drop the Lease, then this replica from the Endpoints */
    kg_arena a;
    kg_arena_init(&a, 8192);
    KG_ERROR_DECL(err);
    if (!l->client.delete_object(l->client.ctx, &a, "leases", LEASE_NS, l->name, NULL, &err) &&
        err.code != KG_ENOTFOUND)
        KG_V(1, "endpoint lease %s: delete: %s", l->name, err.msg);
    kg_err_clear(&err);
    if (!reconcile_endpoints(l, &a, l->name, &err))
        KG_V(1, "endpoint lease %s: %s", l->name, err.msg);
    kg_arena_free(&a);
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->mu);
    free(l->address);
    free(l->hostname);
    free(l);
}
