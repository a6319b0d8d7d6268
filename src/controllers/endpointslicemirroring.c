/* EndpointSlice mirroring controller: the reconciler (kg_epsm_sync) and its threads (see endpointslicemirroring.h). */
#include "controllers/endpointslicemirroring.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "meta/names.h"
#include "meta/object.h"

#define LABEL_SERVICE_NAME "kubernetes.io/service-name"
#define LABEL_MANAGED_BY "endpointslice.kubernetes.io/managed-by"
#define LABEL_SKIP_MIRROR "endpointslice.kubernetes.io/skip-mirror"
#define ANN_LEADER "control-plane.alpha.kubernetes.io/leader"
#define ANN_TRIGGER_TIME "endpoints.kubernetes.io/last-change-trigger-time"
#define ANN_LAST_APPLIED "kubectl.kubernetes.io/last-applied-configuration"
#define EVENT_COMPONENT "endpoint-slice-mirroring-controller" /* upstream's event source */

/* ======================================================================================================
 * Desired state
 * ====================================================================================================== */

/* An IP as Go's net.ParseIPSloppy reads it (IPv4 octets may have leading zeros), re-formatted as IP.String():
 * family 4 (IPv4, or IPv4-mapped IPv6) or 6; false when s is no IP. */
static bool parse_ip(const char *s, char out[INET6_ADDRSTRLEN], int *family)
{
    if (!s || !*s)
        return false;
    unsigned char b[16];
    if (strchr(s, ':')) {
        if (inet_pton(AF_INET6, s, b) != 1)
            return false;
        static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (!memcmp(b, mapped, sizeof mapped)) {
            snprintf(out, INET6_ADDRSTRLEN, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
            *family = 4;
            return true;
        }
        *family = 6;
        return inet_ntop(AF_INET6, b, out, INET6_ADDRSTRLEN) != NULL;
    }
    const char *p = s;
    for (int i = 0; i < 4; i++) {
        unsigned v = 0, digits = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            v = v * 10 + (unsigned)(*p - '0');
            if (++digits > 3)
                return false;
        }
        if (!digits || v > 255 || *p != (i < 3 ? '.' : '\0'))
            return false;
        if (i < 3)
            p++;
        b[i] = (unsigned char)v;
    }
    snprintf(out, INET6_ADDRSTRLEN, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    *family = 4;
    return true;
}

static const char *str_or(const char *s, const char *dflt)
{
    return s ? s : dflt;
}

static int64_t int_of(const kg_json *v)
{
    return kg_json_is(v, KG_JSON_INT) ? v->u.i : 0;
}

/* An EndpointSlice port from an Endpoints port (or a slice port, normalised the same way): name "" and protocol
 * TCP when unset, as the API's defaulting. */
static kg_json *slice_port(kg_arena *a, const kg_json *p)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "name", kg_json_new_str(a, str_or(kg_json_get_str(p, "name"), "")));
    kg_json_set(a, o, "port", kg_json_new_int(a, int_of(kg_json_get(p, "port"))));
    kg_json_set(a, o, "protocol", kg_json_new_str(a, str_or(kg_json_get_str(p, "protocol"), "TCP")));
    const char *app = kg_json_get_str(p, "appProtocol");
    if (app)
        kg_json_set(a, o, "appProtocol", kg_json_new_str(a, app));
    return o;
}

static int port_cmp(const void *x, const void *y)
{
    const kg_json *p = *(kg_json *const *)x, *q = *(kg_json *const *)y;
    int c = strcmp(kg_json_get_str(p, "name"), kg_json_get_str(q, "name"));
    if (c)
        return c;
    int64_t a = int_of(kg_json_get(p, "port")), b = int_of(kg_json_get(q, "port"));
    if (a != b)
        return a < b ? -1 : 1;
    c = strcmp(kg_json_get_str(p, "protocol"), kg_json_get_str(q, "protocol"));
    if (c)
        return c;
    return strcmp(str_or(kg_json_get_str(p, "appProtocol"), ""), str_or(kg_json_get_str(q, "appProtocol"), ""));
}

/* The ports normalised and sorted (order does not matter to the mapping, as upstream's port map key), and their
 * key. */
static kg_json *sorted_ports(kg_arena *a, const kg_json *ports, const char **key)
{
    kg_json *out = kg_json_new_array(a);
    for (size_t i = 0; kg_json_is(ports, KG_JSON_ARRAY) && i < ports->len; i++)
        kg_json_array_append(a, out, slice_port(a, kg_json_at(ports, i)));
    if (out->len > 1)
        qsort(out->u.items, out->len, sizeof *out->u.items, port_cmp);
    *key = kg_json_to_string(a, out, 0, NULL);
    return out;
}

typedef struct addr {
    const char *ip, *uid; /* as written; uid of the targetRef ("" without one) */
    const kg_json *obj;
    bool ready;
} addr;

/* by (ip, uid), the ready copy of an address first */
static int addr_ip_cmp(const void *x, const void *y)
{
    const addr *p = x, *q = y;
    int c = strcmp(p->ip, q->ip);
    if (!c)
        c = strcmp(p->uid, q->uid);
    return c ? c : (int)q->ready - (int)p->ready;
}

/* ready ones first (they are mirrored first), then by (ip, uid) */
static int addr_cmp(const void *x, const void *y)
{
    const addr *p = x, *q = y;
    if (p->ready != q->ready)
        return p->ready ? -1 : 1;
    int c = strcmp(p->ip, q->ip);
    return c ? c : strcmp(p->uid, q->uid);
}

/* One repacked subset: its ports and every address. */
typedef struct group {
    const char *port_key;
    kg_json *ports;
    addr *addrs;
    size_t n, cap;
} group;

/* One wanted slice. */
typedef struct want {
    const char *addr_type, *port_key;
    kg_json *ports, *endpoints;
    kg_json *existing; /* the slice kept for it (NULL: create) */
} want;

static void group_add(kg_arena *a, group *g, const kg_json *list, bool ready)
{
    for (size_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
        const kg_json *ad = kg_json_at(list, i);
        if (g->n == g->cap) {
            size_t nc = g->cap ? g->cap * 2 : 16;
            g->addrs = kg_arena_realloc(a, g->addrs, g->cap * sizeof *g->addrs, nc * sizeof *g->addrs);
            g->cap = nc;
        }
        g->addrs[g->n++] =
            (addr){str_or(kg_json_get_str(ad, "ip"), ""), str_or(kg_json_path_str(ad, "targetRef.uid"), ""), ad, ready};
    }
}

static kg_json *endpoint_of(kg_arena *a, const addr *ad, const char *ip)
{
    kg_json *ep = kg_json_new_object(a), *addrs = kg_json_new_array(a), *cond = kg_json_new_object(a);
    kg_json_array_append(a, addrs, kg_json_new_str(a, ip));
    kg_json_set(a, ep, "addresses", addrs);
    kg_json_set(a, cond, "ready", kg_json_new_bool(a, ad->ready));
    kg_json_set(a, ep, "conditions", cond);
    const char *hostname = kg_json_get_str(ad->obj, "hostname"), *node = kg_json_get_str(ad->obj, "nodeName");
    if (hostname && *hostname)
        kg_json_set(a, ep, "hostname", kg_json_new_str(a, hostname));
    if (node)
        kg_json_set(a, ep, "nodeName", kg_json_new_str(a, node));
    const kg_json *tr = kg_json_get(ad->obj, "targetRef");
    if (kg_json_is(tr, KG_JSON_OBJECT))
        kg_json_set(a, ep, "targetRef", kg_json_clone(a, tr));
    return ep;
}

/* The wanted slices of an Endpoints: repack its subsets, split each by address type. */
static want *desired(kg_arena *a, const kg_json *eps, int max, size_t *nwant, kg_epsm_result *res)
{
    const kg_json *subsets = kg_json_get(eps, "subsets");
    size_t ns = kg_json_is(subsets, KG_JSON_ARRAY) ? subsets->len : 0, ng = 0;
    group *groups = kg_arena_calloc(a, (ns ? ns : 1) * sizeof *groups);
    for (size_t i = 0; i < ns; i++) {
        const kg_json *ss = kg_json_at(subsets, i);
        const char *key;
        kg_json *ports = sorted_ports(a, kg_json_get(ss, "ports"), &key);
        size_t g = 0;
        while (g < ng && strcmp(groups[g].port_key, key))
            g++;
        if (g == ng)
            groups[ng++] = (group){.port_key = key, .ports = ports};
        group_add(a, &groups[g], kg_json_get(ss, "addresses"), true);
        group_add(a, &groups[g], kg_json_get(ss, "notReadyAddresses"), false);
    }
    want *w = kg_arena_calloc(a, (2 * ng + 1) * sizeof *w);
    size_t nw = 0;
    for (size_t g = 0; g < ng; g++) {
        group *gr = &groups[g];
        /* one endpoint per (ip, targetRef uid): sorted with the ready copy first, the first copy kept */
        if (gr->n > 1)
            qsort(gr->addrs, gr->n, sizeof *gr->addrs, addr_ip_cmp);
        size_t k = 0;
        for (size_t i = 0; i < gr->n; i++)
            if (!k || strcmp(gr->addrs[k - 1].ip, gr->addrs[i].ip) || strcmp(gr->addrs[k - 1].uid, gr->addrs[i].uid))
                gr->addrs[k++] = gr->addrs[i];
        gr->n = k;
        if (gr->n > 1)
            qsort(gr->addrs, gr->n, sizeof *gr->addrs, addr_cmp);
        want *v4 = &w[nw], *v6 = &w[nw + 1];
        *v4 = (want){"IPv4", gr->port_key, gr->ports, kg_json_new_array(a), NULL};
        *v6 = (want){"IPv6", gr->port_key, gr->ports, kg_json_new_array(a), NULL};
        size_t added = 0, invalid = 0;
        for (size_t i = 0; i < gr->n && added < (size_t)max; i++) {
            char ip[INET6_ADDRSTRLEN];
            int family;
            if (!parse_ip(gr->addrs[i].ip, ip, &family)) {
                invalid++;
                continue;
            }
            kg_json_array_append(a, family == 4 ? v4->endpoints : v6->endpoints, endpoint_of(a, &gr->addrs[i], ip));
            added++;
        }
        if (res) {
            res->skipped_invalid += invalid;
            res->skipped_over_capacity += gr->n - added - invalid;
        }
        nw += 2;
    }
    /* drop the empty ones (upstream: a port map without endpoints wants no slice) */
    size_t k = 0;
    for (size_t i = 0; i < nw; i++)
        if (w[i].endpoints->len)
            w[k++] = w[i];
    *nwant = k;
    return w;
}

/* ======================================================================================================
 * Reconciling
 * ====================================================================================================== */

static bool is_true(const char *s)
{
    return s && !strcmp(s, "true");
}

static bool selector_set(const kg_json *svc)
{
    const kg_json *sel = kg_json_path(svc, "spec.selector");
    return kg_json_is(sel, KG_JSON_OBJECT) && sel->len > 0; /* an empty selector is dropped on storage, as nil */
}

static bool mirrored_by_us(const kg_json *slice, const char *name)
{
    const kg_json *labels = kg_json_path(slice, "metadata.labels");
    const char *svc = kg_json_get_str(labels, LABEL_SERVICE_NAME), *by = kg_json_get_str(labels, LABEL_MANAGED_BY);
    return svc && by && !strcmp(by, KG_EPSM_CONTROLLER_NAME) && (!name || !strcmp(svc, name));
}

/* The slices of ns mirrored for name, in list order (by name). */
static kg_json *mirrored_slices(const kg_controller_client *c, kg_arena *a, const char *ns, const char *name,
                                kg_error *err)
{
    kg_json *all = c->list(c->ctx, a, "endpointslices", ns, err);
    if (!all)
        return NULL;
    kg_json *out = kg_json_new_array(a);
    for (size_t i = 0; i < all->len; i++)
        if (mirrored_by_us(kg_json_at(all, i), name))
            kg_json_array_append(a, out, kg_json_at(all, i));
    return out;
}

static bool delete_slice(const kg_controller_client *c, kg_arena *a, const char *ns, const kg_json *slice,
                         kg_epsm_result *res, kg_error *err)
{
    KG_ERROR_DECL(de);
    if (c->delete_object(c->ctx, a, "endpointslices", ns, kg_json_path_str(slice, "metadata.name"), NULL, &de)) {
        if (res)
            res->deleted++;
        return true;
    }
    if (de.code == KG_ENOTFOUND) /* gone already (the garbage collector may be quicker) */
        return true;
    *err = de;
    return false;
}

static bool delete_mirrored(const kg_controller_client *c, kg_arena *a, const char *ns, const char *name,
                            kg_epsm_result *res, kg_error *err)
{
    kg_json *slices = mirrored_slices(c, a, ns, name, err);
    if (!slices)
        return false;
    bool ok = true;
    for (size_t i = 0; i < slices->len; i++)
        if (!delete_slice(c, a, ns, kg_json_at(slices, i), res, err))
            ok = false;
    return ok;
}

static kg_json *object_or_empty(kg_arena *a, const kg_json *v)
{
    return kg_json_is(v, KG_JSON_OBJECT) ? kg_json_clone(a, v) : kg_json_new_object(a);
}

/* The slice metadata the Endpoints asks for (newEndpointSlice's labels, annotations and owner). */
typedef struct slice_meta {
    kg_json *labels, *annotations, *owners;
} slice_meta;

static slice_meta meta_for(kg_arena *a, const kg_json *eps, const char *name)
{
    const kg_json *md = kg_json_get(eps, "metadata");
    slice_meta m = {object_or_empty(a, kg_json_get(md, "labels")), object_or_empty(a, kg_json_get(md, "annotations")),
                    kg_json_new_array(a)};
    kg_json_set(a, m.labels, LABEL_SERVICE_NAME, kg_json_new_str(a, name));
    kg_json_set(a, m.labels, LABEL_MANAGED_BY, kg_json_new_str(a, KG_EPSM_CONTROLLER_NAME));
    kg_json_del(m.annotations, ANN_TRIGGER_TIME);
    kg_json_del(m.annotations, ANN_LAST_APPLIED);
    kg_json *ref = kg_json_new_object(a);
    kg_json_set(a, ref, "apiVersion", kg_json_new_str(a, "v1"));
    kg_json_set(a, ref, "kind", kg_json_new_str(a, "Endpoints"));
    kg_json_set(a, ref, "name", kg_json_new_str(a, name));
    const char *uid = kg_json_get_str(md, "uid");
    if (uid)
        kg_json_set(a, ref, "uid", kg_json_new_str(a, uid));
    kg_json_set(a, ref, "controller", kg_json_new_bool(a, true));
    kg_json_set(a, ref, "blockOwnerDeletion", kg_json_new_bool(a, true));
    kg_json_array_append(a, m.owners, ref);
    return m;
}

/* Whether slice already carries what w and m ask for (upstream's early return: same endpoints, labels and
 * annotations; the ports already match through the key). Beyond upstream, the owner too: an Endpoints deleted and
 * created again has another uid, and the garbage collector would delete slices still owned by the old one. */
static bool slice_current(kg_arena *a, const kg_json *slice, const want *w, const slice_meta *m)
{
    const kg_json *md = kg_json_get(slice, "metadata");
    return kg_json_equal(kg_json_get(slice, "endpoints"), w->endpoints) &&
           kg_json_equal(object_or_empty(a, kg_json_get(md, "labels")), m->labels) &&
           kg_json_equal(object_or_empty(a, kg_json_get(md, "annotations")), m->annotations) &&
           kg_json_equal(kg_json_get(md, "ownerReferences"), m->owners);
}

static void fill_slice(kg_arena *a, kg_json *slice, const want *w, const slice_meta *m)
{
    kg_json *md = kg_json_get_or_add_object(a, slice, "metadata");
    kg_json_set(a, md, "labels", m->labels);
    if (m->annotations->len)
        kg_json_set(a, md, "annotations", m->annotations);
    else
        kg_json_del(md, "annotations");
    kg_json_set(a, md, "ownerReferences", m->owners);
    kg_json_set(a, slice, "addressType", kg_json_new_str(a, w->addr_type));
    kg_json_set(a, slice, "endpoints", w->endpoints);
    kg_json_set(a, slice, "ports", w->ports);
}

static bool create_slice(const kg_controller_client *c, kg_arena *a, const char *ns, const char *name, const want *w,
                         const slice_meta *m, kg_epsm_result *res, kg_error *err)
{
    for (int attempt = 0;; attempt++) {
        kg_json *s = kg_json_new_object(a), *md = kg_json_new_object(a);
        kg_json_set(a, s, "apiVersion", kg_json_new_str(a, "discovery.k8s.io/v1"));
        kg_json_set(a, s, "kind", kg_json_new_str(a, "EndpointSlice"));
        const char *prefix = kg_arena_sprintf(a, "%s-", name);
        kg_json_set(a, md, "name", kg_json_new_str(a, kg_generate_name(a, prefix)));
        kg_json_set(a, md, "generateName", kg_json_new_str(a, prefix));
        kg_json_set(a, md, "namespace", kg_json_new_str(a, ns));
        kg_json_set(a, s, "metadata", md);
        fill_slice(a, s, w, m);
        KG_ERROR_DECL(ce);
        if (c->create(c->ctx, a, "endpointslices", ns, s, &ce)) {
            if (res)
                res->created++;
            return true;
        }
        if (ce.code != KG_EEXIST || attempt >= 3) { /* a generated name taken: draw another */
            *err = ce;
            return false;
        }
    }
}

static bool update_slice(const kg_controller_client *c, kg_arena *a, const char *ns, const kg_json *existing,
                         const want *w, const slice_meta *m, kg_epsm_result *res, kg_error *err)
{
    kg_json *s = kg_json_clone(a, existing); /* its resourceVersion is the precondition */
    fill_slice(a, s, w, m);
    if (!c->update(c->ctx, a, "endpointslices", ns, s, err))
        return false;
    if (res)
        res->updated++;
    return true;
}

/* upstream's reconcile + reconcileByPortMapping + finalize (with recycleSlices) */
static bool reconcile(const kg_controller_client *c, kg_arena *a, const kg_json *eps, const char *ns, const char *name,
                      int max, kg_epsm_result *res, kg_error *err)
{
    size_t nw;
    want *w = desired(a, eps, max, &nw, res);
    if (res && (res->skipped_invalid || res->skipped_over_capacity))
        KG_V(1,
             "endpointslice mirroring: %s/%s: %zu invalid IP addresses and %zu addresses over the limit of %d per "
             "subset not mirrored",
             ns, name, res->skipped_invalid, res->skipped_over_capacity, max);
    kg_json *existing = mirrored_slices(c, a, ns, name, err);
    if (!existing)
        return false;
    slice_meta m = meta_for(a, eps, name);
    /* match existing slices to wanted ones by (address type, ports); the rest are to delete */
    kg_json **to_delete = kg_arena_calloc(a, (existing->len + 1) * sizeof *to_delete);
    size_t ndel = 0;
    for (size_t i = 0; i < existing->len; i++) {
        kg_json *s = kg_json_at(existing, i);
        const char *type = str_or(kg_json_get_str(s, "addressType"), ""), *key;
        sorted_ports(a, kg_json_get(s, "ports"), &key);
        want *match = NULL;
        for (size_t k = 0; k < nw && !match; k++)
            if (!strcmp(w[k].addr_type, type) && !strcmp(w[k].port_key, key))
                match = &w[k];
        if (match && !match->existing)
            match->existing = s;
        else
            to_delete[ndel++] = s;
    }
    bool terminating = kg_json_path(eps, "metadata.deletionTimestamp") != NULL;
    bool ok = true;
    for (size_t k = 0; k < nw && ok; k++) {
        if (w[k].existing) {
            if (!slice_current(a, w[k].existing, &w[k], &m))
                ok = update_slice(c, a, ns, w[k].existing, &w[k], &m, res, err);
            continue;
        }
        /* recycle a slice of the same address type that would be deleted */
        size_t r = 0;
        while (r < ndel && strcmp(str_or(kg_json_get_str(to_delete[r], "addressType"), ""), w[k].addr_type))
            r++;
        if (r < ndel) {
            ok = update_slice(c, a, ns, to_delete[r], &w[k], &m, res, err);
            to_delete[r] = to_delete[--ndel];
        } else if (!terminating) {
            ok = create_slice(c, a, ns, name, &w[k], &m, res, err);
        }
    }
    for (size_t i = 0; i < ndel && ok; i++)
        ok = delete_slice(c, a, ns, to_delete[i], res, err);
    return ok;
}

/* A Warning Event on the Endpoints, as upstream's event recorder writes it (failures are only logged). */
static void warn_event(const kg_controller_client *c, kg_arena *a, const kg_json *eps, const char *reason,
                       const char *message)
{
    const kg_json *md = kg_json_get(eps, "metadata");
    const char *ns = kg_json_get_str(md, "namespace"), *name = kg_json_get_str(md, "name");
    if (!ns || !name)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char tb[64];
    const char *now = kg_arena_strdup(a, kg_time_format(ts.tv_sec, tb));
    kg_json *ev = kg_json_new_object(a), *emd = kg_json_new_object(a), *ref = kg_json_new_object(a),
            *src = kg_json_new_object(a);
    kg_json_set(a, ev, "apiVersion", kg_json_new_str(a, "v1"));
    kg_json_set(a, ev, "kind", kg_json_new_str(a, "Event"));
    kg_json_set(a, emd, "name",
                kg_json_new_str(a, kg_arena_sprintf(a, "%s.%llx", name,
                                                    (unsigned long long)ts.tv_sec * 1000000000ull +
                                                        (unsigned long long)ts.tv_nsec)));
    kg_json_set(a, emd, "namespace", kg_json_new_str(a, ns));
    kg_json_set(a, ev, "metadata", emd);
    kg_json_set(a, ref, "kind", kg_json_new_str(a, "Endpoints"));
    kg_json_set(a, ref, "namespace", kg_json_new_str(a, ns));
    kg_json_set(a, ref, "name", kg_json_new_str(a, name));
    const char *uid = kg_json_get_str(md, "uid"), *rv = kg_json_get_str(md, "resourceVersion");
    if (uid)
        kg_json_set(a, ref, "uid", kg_json_new_str(a, uid));
    kg_json_set(a, ref, "apiVersion", kg_json_new_str(a, "v1"));
    if (rv)
        kg_json_set(a, ref, "resourceVersion", kg_json_new_str(a, rv));
    kg_json_set(a, ev, "involvedObject", ref);
    kg_json_set(a, ev, "reason", kg_json_new_str(a, reason));
    kg_json_set(a, ev, "message", kg_json_new_str(a, message));
    kg_json_set(a, src, "component", kg_json_new_str(a, EVENT_COMPONENT));
    kg_json_set(a, ev, "source", src);
    kg_json_set(a, ev, "firstTimestamp", kg_json_new_str(a, now));
    kg_json_set(a, ev, "lastTimestamp", kg_json_new_str(a, now));
    kg_json_set(a, ev, "count", kg_json_new_int(a, 1));
    kg_json_set(a, ev, "type", kg_json_new_str(a, "Warning"));
    kg_json_set(a, ev, "reportingComponent", kg_json_new_str(a, EVENT_COMPONENT));
    kg_json_set(a, ev, "reportingInstance", kg_json_new_str(a, ""));
    KG_ERROR_DECL(err);
    if (!c->create(c->ctx, a, "events", ns, ev, &err))
        KG_V(1, "endpointslice mirroring: event on %s/%s: %s", ns, name, err.msg);
}

/* upstream's reconcile, then its Warning Events for skipped addresses; kgate records them when the sync wrote a
 * slice (the Endpoints changed), not on every resync (upstream's recorder aggregates repeats into a count). */
static bool reconcile_and_report(const kg_controller_client *c, kg_arena *a, const kg_json *eps, const char *ns,
                                 const char *name, int max, kg_epsm_result *res, kg_error *err)
{
    kg_epsm_result local = {0};
    kg_epsm_result *r = res ? res : &local;
    if (!reconcile(c, a, eps, ns, name, max, r, err))
        return false;
    if (!r->created && !r->updated)
        return true;
    if (r->skipped_invalid)
        warn_event(c, a, eps, "InvalidIPAddress",
                   kg_arena_sprintf(a, "Skipped %zu invalid IP addresses when mirroring to EndpointSlices",
                                    r->skipped_invalid));
    if (r->skipped_over_capacity)
        warn_event(c, a, eps, "TooManyAddressesToMirror",
                   kg_arena_sprintf(a,
                                    "A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. "
                                    "%zu addresses were skipped",
                                    max, r->skipped_invalid + r->skipped_over_capacity));
    return true;
}

bool kg_epsm_sync(const kg_controller_client *c, kg_arena *a, const char *ns, const char *name, int max_per_subset,
                  kg_epsm_result *res, kg_error *err)
{
    if (res)
        *res = (kg_epsm_result){0};
    int max = max_per_subset > 0 ? max_per_subset : KG_EPSM_MAX_ENDPOINTS_PER_SUBSET;
    KG_ERROR_DECL(ge);
    kg_json *eps = c->get(c->ctx, a, "endpoints", ns, name, &ge);
    if (!eps) {
        if (ge.code != KG_ENOTFOUND)
            return *err = ge, false;
        return delete_mirrored(c, a, ns, name, res, err);
    }
    const kg_json *md = kg_json_get(eps, "metadata");
    if (is_true(kg_json_get_str(kg_json_get(md, "labels"), LABEL_SKIP_MIRROR)) ||
        kg_json_get(kg_json_get(md, "annotations"), ANN_LEADER))
        return delete_mirrored(c, a, ns, name, res, err);
    KG_ERROR_DECL(se);
    kg_json *svc = c->get(c->ctx, a, "services", ns, name, &se);
    if (!svc) {
        if (se.code != KG_ENOTFOUND)
            return *err = se, false;
        return delete_mirrored(c, a, ns, name, res, err);
    }
    if (selector_set(svc))
        return delete_mirrored(c, a, ns, name, res, err);
    return reconcile_and_report(c, a, eps, ns, name, max, res, err);
}

/* ======================================================================================================
 * The controller: three watchers feeding a bounded de-duplicating queue, one worker
 * ====================================================================================================== */

#define QUEUE_MAX 4096 /* keys waiting; more → one full resync instead */
#define MAX_ATTEMPTS 6 /* a key whose sync fails is retried this often (backoff 100 ms doubling) */
#define WATCH_TIMEOUT_MS 1000

enum { W_ENDPOINTS, W_SERVICES, W_SLICES, W_COUNT };
static const char *const WATCHED[W_COUNT] = {"endpoints", "services", "endpointslices"};

typedef struct qitem {
    char *key; /* "ns/name" */
    int attempts;
    int64_t not_before_ms;
} qitem;

typedef struct watcher {
    kg_epsm_controller *m;
    int which;
    kg_client_watch *w;
    pthread_t th;
    bool started;
} watcher;

struct kg_epsm_controller {
    kg_controller_client c;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    qitem *q;
    size_t nq;
    bool resync, stop;
    watcher watchers[W_COUNT];
    pthread_t worker;
    bool worker_started;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Queue key (mu held). delay_ms: not before then (a retry). */
static void enqueue_locked(kg_epsm_controller *m, const char *key, int attempts, int64_t delay_ms)
{
    int64_t nb = now_ms() + delay_ms;
    for (size_t i = 0; i < m->nq; i++)
        if (!strcmp(m->q[i].key, key)) {
            if (nb < m->q[i].not_before_ms) /* an event while a retry waits: sync now */
                m->q[i].not_before_ms = nb;
            return;
        }
    char *dup = m->nq < QUEUE_MAX ? strdup(key) : NULL;
    if (!dup) {
        m->resync = true; /* full (or out of memory): a resync covers every key */
    } else {
        m->q[m->nq++] = (qitem){dup, attempts, nb};
    }
    pthread_cond_signal(&m->cond);
}

static void enqueue(kg_epsm_controller *m, const char *ns, const char *name)
{
    char key[512];
    if ((size_t)snprintf(key, sizeof key, "%s/%s", ns, name) >= sizeof key)
        return; /* no valid object has such a key */
    pthread_mutex_lock(&m->mu);
    enqueue_locked(m, key, 0, 0);
    pthread_mutex_unlock(&m->mu);
}

static void on_event(kg_epsm_controller *m, int which, const kg_client_event *ev)
{
    if (which != W_SLICES) { /* an Endpoints or Service ns/name: the Endpoints of the same name */
        enqueue(m, ev->ns, ev->name);
        return;
    }
    if (ev->object && mirrored_by_us(ev->object, NULL))
        enqueue(m, ev->ns, kg_json_get_str(kg_json_path(ev->object, "metadata.labels"), LABEL_SERVICE_NAME));
}

static void *watch_run(void *arg)
{
    watcher *wt = arg;
    kg_epsm_controller *m = wt->m;
    char tname[16];
    snprintf(tname, sizeof tname, "kg-epsm-w%d", wt->which);
    pthread_setname_np(pthread_self(), tname);
    kg_arena a;
    kg_arena_init(&a, 0);
    for (;;) {
        kg_client_event ev;
        KG_ERROR_DECL(err);
        kg_client_watch_status st = m->c.watch_next(wt->w, WATCH_TIMEOUT_MS, &a, &ev, &err);
        if (st == KG_CLIENT_WATCH_EVENT) {
            on_event(m, wt->which, &ev);
        } else if (st == KG_CLIENT_WATCH_ERROR || st == KG_CLIENT_WATCH_CLOSED) {
            pthread_mutex_lock(&m->mu);
            if (m->stop) {
                pthread_mutex_unlock(&m->mu);
                break;
            }
            /* events were missed: reopen from now and resync everything */
            m->c.watch_close(wt->w);
            wt->w = m->c.watch_open(m->c.ctx, WATCHED[wt->which], wt->which == W_SLICES, &err);
            m->resync = true;
            pthread_cond_signal(&m->cond);
            pthread_mutex_unlock(&m->mu);
            if (!wt->w) {
                KG_WARN("endpointslice mirroring: watch %s: %s", WATCHED[wt->which], err.msg);
                break;
            }
        }
        kg_arena_reset(&a);
    }
    kg_arena_free(&a);
    return NULL;
}

static void sync_logged(kg_epsm_controller *m, kg_arena *a, const char *ns, const char *name, bool *ok)
{
    KG_ERROR_DECL(err);
    kg_epsm_result res;
    *ok = kg_epsm_sync(&m->c, a, ns, name, 0, &res, &err);
    if (!*ok)
        KG_V(1, "endpointslice mirroring: %s/%s: %s", ns, name, err.msg);
    else if (res.created || res.updated || res.deleted)
        KG_V(2, "endpointslice mirroring: %s/%s: %zu created, %zu updated, %zu deleted", ns, name, res.created,
             res.updated, res.deleted);
}

static int key_cmp(const char *ns1, const char *n1, const char *ns2, const char *n2)
{
    int c = strcmp(ns1, ns2);
    return c ? c : strcmp(n1, n2);
}

/* Every Endpoints, then every mirrored slice whose Endpoints is gone. */
static void resync(kg_epsm_controller *m, kg_arena *a)
{
    KG_ERROR_DECL(err);
    kg_json *eps = m->c.list(m->c.ctx, a, "endpoints", "", &err);
    kg_json *slices = eps ? m->c.list(m->c.ctx, a, "endpointslices", "", &err) : NULL;
    if (!slices) {
        KG_V(1, "endpointslice mirroring: resync: %s", err.msg);
        pthread_mutex_lock(&m->mu);
        m->resync = true; /* try again after a pause (the worker waits a retry delay) */
        pthread_mutex_unlock(&m->mu);
        return;
    }
    kg_arena scratch;
    kg_arena_init(&scratch, 0);
    bool ok;
    for (size_t i = 0; i < eps->len && !__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE); i++) {
        const char *ns = kg_json_path_str(kg_json_at(eps, i), "metadata.namespace");
        const char *name = kg_json_path_str(kg_json_at(eps, i), "metadata.name");
        if (ns && name)
            sync_logged(m, &scratch, ns, name, &ok);
        kg_arena_reset(&scratch);
    }
    for (size_t i = 0; i < slices->len && !__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE); i++) {
        const kg_json *s = kg_json_at(slices, i);
        if (!mirrored_by_us(s, NULL))
            continue;
        const char *ns = kg_json_path_str(s, "metadata.namespace");
        const char *svc = kg_json_get_str(kg_json_path(s, "metadata.labels"), LABEL_SERVICE_NAME);
        if (!ns || !svc)
            continue;
        size_t lo = 0, hi = eps->len; /* the list is ordered by namespace, then name */
        bool found = false;
        while (lo < hi && !found) {
            size_t mid = (lo + hi) / 2;
            const kg_json *e = kg_json_at(eps, mid);
            int c = key_cmp(str_or(kg_json_path_str(e, "metadata.namespace"), ""),
                            str_or(kg_json_path_str(e, "metadata.name"), ""), ns, svc);
            if (!c)
                found = true;
            else if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (!found)
            sync_logged(m, &scratch, ns, svc, &ok);
        kg_arena_reset(&scratch);
    }
    kg_arena_free(&scratch);
}

static void *worker_run(void *arg)
{
    kg_epsm_controller *m = arg;
    pthread_setname_np(pthread_self(), "kg-epsm");
    kg_arena a;
    kg_arena_init(&a, 0);
    int64_t next_resync_ok = 0;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        int64_t now = now_ms();
        if (m->resync && now >= next_resync_ok) {
            m->resync = false;
            for (size_t i = 0; i < m->nq; i++) /* the resync covers them */
                free(m->q[i].key);
            m->nq = 0;
            pthread_mutex_unlock(&m->mu);
            resync(m, &a);
            kg_arena_reset(&a);
            next_resync_ok = now_ms() + 1000; /* a failing resync is not retried in a tight loop */
            pthread_mutex_lock(&m->mu);
            continue;
        }
        size_t pick = m->nq;
        int64_t wake = m->resync ? next_resync_ok : INT64_MAX;
        for (size_t i = 0; i < m->nq; i++) {
            if (m->q[i].not_before_ms <= now) {
                pick = i;
                break;
            }
            if (m->q[i].not_before_ms < wake)
                wake = m->q[i].not_before_ms;
        }
        if (pick == m->nq) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t wait = wake == INT64_MAX ? 1000 : wake - now;
            int64_t ns = ts.tv_nsec + wait * 1000000;
            ts.tv_sec += ns / 1000000000;
            ts.tv_nsec = ns % 1000000000;
            pthread_cond_timedwait(&m->cond, &m->mu, &ts);
            continue;
        }
        qitem it = m->q[pick];
        memmove(&m->q[pick], &m->q[pick + 1], (m->nq - pick - 1) * sizeof *m->q);
        m->nq--;
        pthread_mutex_unlock(&m->mu);
        char *slash = strchr(it.key, '/');
        bool ok = true;
        if (slash) {
            *slash = '\0';
            sync_logged(m, &a, it.key, slash + 1, &ok);
            *slash = '/';
        }
        kg_arena_reset(&a);
        pthread_mutex_lock(&m->mu);
        if (!ok && it.attempts + 1 < MAX_ATTEMPTS)
            enqueue_locked(m, it.key, it.attempts + 1, 100ll << it.attempts);
        free(it.key);
    }
    pthread_mutex_unlock(&m->mu);
    kg_arena_free(&a);
    return NULL;
}

kg_epsm_controller *kg_epsm_controller_start(const kg_controller_client *c, kg_error *err)
{
    kg_epsm_controller *m = calloc(1, sizeof *m);
    qitem *q = calloc(QUEUE_MAX, sizeof *q);
    if (!m || !q) {
        free(m);
        free(q);
        kg_err_set(err, KG_EINTERNAL, "out of memory");
        return NULL;
    }
    m->c = *c;
    m->q = q;
    m->resync = true; /* everything once at start */
    pthread_mutex_init(&m->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cond, &ca);
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < W_COUNT; i++) {
        m->watchers[i] = (watcher){.m = m, .which = i};
        m->watchers[i].w = m->c.watch_open(m->c.ctx, WATCHED[i], i == W_SLICES, err);
        if (!m->watchers[i].w) {
            kg_epsm_controller_stop(m);
            return NULL;
        }
    }
    /* the watches are open before the first resync: no change falls between the two */
    for (int i = 0; i < W_COUNT; i++)
        m->watchers[i].started = pthread_create(&m->watchers[i].th, NULL, watch_run, &m->watchers[i]) == 0;
    m->worker_started = pthread_create(&m->worker, NULL, worker_run, m) == 0;
    return m;
}

void kg_epsm_controller_stop(kg_epsm_controller *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    __atomic_store_n(&m->stop, true, __ATOMIC_RELEASE);
    for (int i = 0; i < W_COUNT; i++)
        if (m->watchers[i].w)
            m->c.watch_cancel(m->watchers[i].w);
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->mu);
    for (int i = 0; i < W_COUNT; i++)
        if (m->watchers[i].started)
            pthread_join(m->watchers[i].th, NULL);
    if (m->worker_started)
        pthread_join(m->worker, NULL);
    for (int i = 0; i < W_COUNT; i++)
        if (m->watchers[i].w)
            m->c.watch_close(m->watchers[i].w);
    for (size_t i = 0; i < m->nq; i++)
        free(m->q[i].key);
    free(m->q);
    pthread_cond_destroy(&m->cond);
    pthread_mutex_destroy(&m->mu);
    free(m);
}
