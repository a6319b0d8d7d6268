/* The Node authorizer's graph (see graph.h). */
#include "auth/node/graph.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/node/podrefs.h"
#include "base/hash.h"

/* ---- a chained string-keyed table ---- */

typedef struct ent {
    struct ent *next;
    uint64_t h;
    char *key;
    void *val;    /* table-specific */
    size_t count; /* counted sets */
} ent;

typedef struct table {
    ent **b;
    size_t nb, n;
} table;

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

static uint64_t hstr(const char *s)
{
    return kg_fnv1a64_continue_str(KG_FNV1A64_INIT, s);
}

static ent *t_find(const table *t, const char *key)
{
    if (!t->nb)
        return NULL;
    uint64_t h = hstr(key);
    for (ent *e = t->b[h & (t->nb - 1)]; e; e = e->next)
        if (e->h == h && !strcmp(e->key, key))
            return e;
    return NULL;
}

static void t_grow(table *t)
{
    size_t nb = t->nb ? t->nb * 2 : 16;
    ent **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < t->nb; i++)
        for (ent *e = t->b[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->h & (nb - 1)];
            b[e->h & (nb - 1)] = e;
        }
    free(t->b);
    t->b = b;
    t->nb = nb;
}

/* Find or insert key (val NULL, count 0). */
static ent *t_get(table *t, const char *key)
{
    ent *e = t_find(t, key);
    if (e)
        return e;
    if (t->n + 1 > t->nb * 3 / 4)
        t_grow(t);
    e = xcalloc(1, sizeof *e);
    e->h = hstr(key);
    e->key = xstrdup(key);
    e->next = t->b[e->h & (t->nb - 1)];
    t->b[e->h & (t->nb - 1)] = e;
    t->n++;
    return e;
}

/* Unlink and return key's entry (the caller frees it with ent_free), or NULL. */
static ent *t_take(table *t, const char *key)
{
    if (!t->nb)
        return NULL;
    uint64_t h = hstr(key);
    for (ent **p = &t->b[h & (t->nb - 1)]; *p; p = &(*p)->next)
        if ((*p)->h == h && !strcmp((*p)->key, key)) {
            ent *e = *p;
            *p = e->next;
            t->n--;
            return e;
        }
    return NULL;
}

static void ent_free(ent *e)
{
    free(e->key);
    free(e);
}

/* Free every entry, calling fn on its value first (fn may be NULL). */
static void t_clear(table *t, void (*fn)(void *))
{
    for (size_t i = 0; i < t->nb; i++)
        for (ent *e = t->b[i], *next; e; e = next) {
            next = e->next;
            if (fn)
                fn(e->val);
            ent_free(e);
        }
    free(t->b);
    memset(t, 0, sizeof *t);
}

/* counted sets: add / release one reference; an entry whose count drops to 0 goes */
static void cs_add(table *t, const char *key)
{
    t_get(t, key)->count++;
}

static void cs_release(table *t, const char *key)
{
    ent *e = t_find(t, key);
    if (e && --e->count == 0)
        ent_free(t_take(t, key));
}

/* ---- vertices ---- */

/* "<kind byte><ns>\x1f<name>" */
static char *vkey(char *buf, size_t n, kg_node_vertex kind, const char *ns, const char *name)
{
    snprintf(buf, n, "%c%s\x1f%s", (char)('0' + kind), ns ? ns : "", name ? name : "");
    return buf;
}

typedef struct pod_rec {
    char *node;
    char **refs; /* vertex keys this pod makes reachable from node (the pod itself first) */
    size_t n;
} pod_rec;

typedef struct pv_rec {
    char *claim;    /* PVC vertex key of spec.claimRef, or NULL */
    char **secrets; /* secret vertex keys */
    size_t n;
} pv_rec;

struct kg_node_graph {
    pthread_rwlock_t mu;
    table pods;        /* "ns\x1fname" -> pod_rec */
    table nodes;       /* node name -> table* (counted set of vertex keys) */
    table pvs;         /* pv name -> pv_rec */
    table secret_pvs;  /* secret vertex key -> table* (counted set of pv names) */
    table attachments; /* va name -> node name (char*) */
};

kg_node_graph *kg_node_graph_new(void)
{
    kg_node_graph *g = xcalloc(1, sizeof *g);
    pthread_rwlock_init(&g->mu, NULL);
    return g;
}

static void pod_rec_free(void *v)
{
    pod_rec *p = v;
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->refs[i]);
    free(p->refs);
    free(p->node);
    free(p);
}

static void pv_rec_free(void *v)
{
    pv_rec *p = v;
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->secrets[i]);
    free(p->secrets);
    free(p->claim);
    free(p);
}

static void table_free(void *v)
{
    table *t = v;
    if (!t)
        return;
    t_clear(t, NULL);
    free(t);
}

void kg_node_graph_free(kg_node_graph *g)
{
    if (!g)
        return;
    t_clear(&g->pods, pod_rec_free);
    t_clear(&g->nodes, table_free);
    t_clear(&g->pvs, pv_rec_free);
    t_clear(&g->secret_pvs, table_free);
    t_clear(&g->attachments, free);
    pthread_rwlock_destroy(&g->mu);
    free(g);
}

/* ---- pods ---- */

static void pod_unlink(kg_node_graph *g, const char *pkey)
{
    ent *e = t_take(&g->pods, pkey);
    if (!e)
        return;
    pod_rec *p = e->val;
    ent *ne = t_find(&g->nodes, p->node);
    if (ne) {
        table *set = ne->val;
        for (size_t i = 0; i < p->n; i++)
            cs_release(set, p->refs[i]);
        if (!set->n) {
            ent *gone = t_take(&g->nodes, p->node);
            table_free(gone->val);
            ent_free(gone);
        }
    }
    pod_rec_free(p);
    ent_free(e);
}

typedef struct refs_acc {
    const char *ns;
    char **refs;
    size_t n, cap;
} refs_acc;

static void acc_add(refs_acc *r, kg_node_vertex kind, const char *ns, const char *name)
{
    char buf[768];
    vkey(buf, sizeof buf, kind, ns, name);
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->refs[i], buf))
            return;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->refs = realloc(r->refs, r->cap * sizeof *r->refs);
        if (!r->refs)
            abort();
    }
    r->refs[r->n++] = xstrdup(buf);
}

static bool on_ref(void *ud, kg_podref_kind kind, const char *name)
{
    refs_acc *r = ud;
    static const kg_node_vertex map[] = {[KG_PODREF_SECRET] = KG_NODE_V_SECRET,
                                         [KG_PODREF_CONFIGMAP] = KG_NODE_V_CONFIGMAP,
                                         [KG_PODREF_PVC] = KG_NODE_V_PVC,
                                         [KG_PODREF_SERVICEACCOUNT] = KG_NODE_V_SERVICEACCOUNT,
                                         [KG_PODREF_RESOURCECLAIM] = KG_NODE_V_RESOURCECLAIM};
    acc_add(r, map[kind], r->ns, name);
    return true;
}

static void pod_set_locked(kg_node_graph *g, const kg_json *pod)
{
    const char *ns = kg_json_path_str(pod, "metadata.namespace"), *name = kg_json_path_str(pod, "metadata.name");
    if (!name)
        return;
    ns = ns ? ns : "";
    char pkey[512];
    snprintf(pkey, sizeof pkey, "%s\x1f%s", ns, name);
    pod_unlink(g, pkey);
    const char *node = kg_json_path_str(pod, "spec.nodeName");
    if (!node || !*node)
        return;
    refs_acc r = {.ns = ns};
    acc_add(&r, KG_NODE_V_POD, ns, name);
    kg_podrefs_visit(pod, on_ref, &r);
    pod_rec *p = xcalloc(1, sizeof *p);
    p->node = xstrdup(node);
    p->refs = r.refs;
    p->n = r.n;
    t_get(&g->pods, pkey)->val = p;
    ent *ne = t_get(&g->nodes, node);
    if (!ne->val)
        ne->val = xcalloc(1, sizeof(table));
    for (size_t i = 0; i < p->n; i++)
        cs_add(ne->val, p->refs[i]);
}

void kg_node_graph_set_pod(kg_node_graph *g, const kg_json *pod)
{
    pthread_rwlock_wrlock(&g->mu);
    pod_set_locked(g, pod);
    pthread_rwlock_unlock(&g->mu);
}

void kg_node_graph_delete_pod(kg_node_graph *g, const char *ns, const char *name)
{
    char pkey[512];
    snprintf(pkey, sizeof pkey, "%s\x1f%s", ns ? ns : "", name ? name : "");
    pthread_rwlock_wrlock(&g->mu);
    pod_unlink(g, pkey);
    pthread_rwlock_unlock(&g->mu);
}

/* ---- persistent volumes ---- */

static void pv_unlink(kg_node_graph *g, const char *name)
{
    ent *e = t_take(&g->pvs, name);
    if (!e)
        return;
    pv_rec *p = e->val;
    for (size_t i = 0; i < p->n; i++) {
        ent *se = t_find(&g->secret_pvs, p->secrets[i]);
        if (!se)
            continue;
        cs_release(se->val, name);
        if (!((table *)se->val)->n) {
            ent *gone = t_take(&g->secret_pvs, p->secrets[i]);
            table_free(gone->val);
            ent_free(gone);
        }
    }
    pv_rec_free(p);
    ent_free(e);
}

/* VisitPVSecretNames: the secret references of a PV's sources; a reference without a namespace reads the claim's */
static void pv_secrets(const kg_json *spec, const char *claim_ns, refs_acc *r)
{
    static const char *const refs[] = {"cephfs.secretRef",
                                       "cinder.secretRef",
                                       "flexVolume.secretRef",
                                       "rbd.secretRef",
                                       "scaleIO.secretRef",
                                       "iscsi.secretRef",
                                       "storageos.secretRef",
                                       "csi.controllerPublishSecretRef",
                                       "csi.controllerExpandSecretRef",
                                       "csi.nodePublishSecretRef",
                                       "csi.nodeStageSecretRef",
                                       "csi.nodeExpandSecretRef"};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        const kg_json *ref = kg_json_path(spec, refs[i]);
        const char *name = kg_json_get_str(ref, "name"), *ns = kg_json_get_str(ref, "namespace");
        if (name && *name)
            acc_add(r, KG_NODE_V_SECRET, ns && *ns ? ns : claim_ns, name);
    }
    const char *az = kg_json_path_str(spec, "azureFile.secretName");
    if (az && *az) {
        const char *ns = kg_json_path_str(spec, "azureFile.secretNamespace");
        acc_add(r, KG_NODE_V_SECRET, ns && *ns ? ns : "default", az);
    }
}

static void pv_set_locked(kg_node_graph *g, const kg_json *pv)
{
    const char *name = kg_json_path_str(pv, "metadata.name");
    if (!name)
        return;
    pv_unlink(g, name);
    pv_rec *p = xcalloc(1, sizeof *p);
    const kg_json *claim = kg_json_path(pv, "spec.claimRef");
    const char *cns = kg_json_get_str(claim, "namespace"), *cname = kg_json_get_str(claim, "name");
    if (cname && *cname) {
        char buf[768];
        p->claim = xstrdup(vkey(buf, sizeof buf, KG_NODE_V_PVC, cns ? cns : "", cname));
    }
    refs_acc r = {0};
    pv_secrets(kg_json_get(pv, "spec"), cns ? cns : "", &r);
    p->secrets = r.refs;
    p->n = r.n;
    t_get(&g->pvs, name)->val = p;
    for (size_t i = 0; i < p->n; i++) {
        ent *se = t_get(&g->secret_pvs, p->secrets[i]);
        if (!se->val)
            se->val = xcalloc(1, sizeof(table));
        cs_add(se->val, name);
    }
}

void kg_node_graph_set_pv(kg_node_graph *g, const kg_json *pv)
{
    pthread_rwlock_wrlock(&g->mu);
    pv_set_locked(g, pv);
    pthread_rwlock_unlock(&g->mu);
}

void kg_node_graph_delete_pv(kg_node_graph *g, const char *name)
{
    pthread_rwlock_wrlock(&g->mu);
    pv_unlink(g, name ? name : "");
    pthread_rwlock_unlock(&g->mu);
}

/* ---- volume attachments ---- */

static void va_set_locked(kg_node_graph *g, const kg_json *va)
{
    const char *name = kg_json_path_str(va, "metadata.name"), *node = kg_json_path_str(va, "spec.nodeName");
    if (!name)
        return;
    ent *e = t_take(&g->attachments, name);
    if (e) {
        free(e->val);
        ent_free(e);
    }
    if (node && *node)
        t_get(&g->attachments, name)->val = xstrdup(node);
}

void kg_node_graph_set_attachment(kg_node_graph *g, const kg_json *va)
{
    pthread_rwlock_wrlock(&g->mu);
    va_set_locked(g, va);
    pthread_rwlock_unlock(&g->mu);
}

void kg_node_graph_delete_attachment(kg_node_graph *g, const char *name)
{
    pthread_rwlock_wrlock(&g->mu);
    ent *e = t_take(&g->attachments, name ? name : "");
    if (e) {
        free(e->val);
        ent_free(e);
    }
    pthread_rwlock_unlock(&g->mu);
}

void kg_node_graph_replace(kg_node_graph *g, kg_node_vertex kind, const kg_json *const *objs, size_t n)
{
    pthread_rwlock_wrlock(&g->mu);
    switch (kind) {
    case KG_NODE_V_POD:
        t_clear(&g->pods, pod_rec_free);
        t_clear(&g->nodes, table_free);
        for (size_t i = 0; i < n; i++)
            pod_set_locked(g, objs[i]);
        break;
    case KG_NODE_V_PV:
        t_clear(&g->pvs, pv_rec_free);
        t_clear(&g->secret_pvs, table_free);
        for (size_t i = 0; i < n; i++)
            pv_set_locked(g, objs[i]);
        break;
    case KG_NODE_V_VOLUMEATTACHMENT:
        t_clear(&g->attachments, free);
        for (size_t i = 0; i < n; i++)
            va_set_locked(g, objs[i]);
        break;
    default: break;
    }
    pthread_rwlock_unlock(&g->mu);
}

/* ---- queries ---- */

static bool direct(const kg_node_graph *g, const char *node, const char *key)
{
    const ent *ne = t_find(&g->nodes, node);
    return ne && t_find(ne->val, key);
}

static bool pv_reachable(const kg_node_graph *g, const char *node, const char *pv)
{
    const ent *e = t_find(&g->pvs, pv);
    const pv_rec *p = e ? e->val : NULL;
    return p && p->claim && direct(g, node, p->claim);
}

bool kg_node_graph_reachable(kg_node_graph *g, const char *node, kg_node_vertex kind, const char *ns, const char *name)
{
    char key[768];
    bool ok = false;
    pthread_rwlock_rdlock(&g->mu);
    switch (kind) {
    case KG_NODE_V_PV: ok = pv_reachable(g, node, name); break;
    case KG_NODE_V_VOLUMEATTACHMENT: {
        const ent *e = t_find(&g->attachments, name);
        ok = e && !strcmp(e->val, node);
        break;
    }
    default:
        vkey(key, sizeof key, kind, ns, name);
        ok = direct(g, node, key);
        if (!ok && kind == KG_NODE_V_SECRET) {
            const ent *se = t_find(&g->secret_pvs, key);
            const table *pvs = se ? se->val : NULL;
            for (size_t i = 0; pvs && !ok && i < pvs->nb; i++)
                for (const ent *pe = pvs->b[i]; pe && !ok; pe = pe->next)
                    ok = pv_reachable(g, node, pe->key);
        }
    }
    pthread_rwlock_unlock(&g->mu);
    return ok;
}

kg_node_graph_stats kg_node_graph_get_stats(kg_node_graph *g)
{
    pthread_rwlock_rdlock(&g->mu);
    kg_node_graph_stats s = {g->pods.n, g->nodes.n, g->pvs.n, g->attachments.n};
    pthread_rwlock_unlock(&g->mu);
    return s;
}
