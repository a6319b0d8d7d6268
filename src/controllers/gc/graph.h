/* The garbage collector's graph (upstream pkg/controller/garbagecollector/graph.go): every object the collector has
 * seen, keyed by uid, with its ownerReferences, and for every uid the objects that name it as an owner.
 *
 * An entry exists for each uid that is an object (node set) or that some object names as an owner (node NULL:
 * upstream's "virtual" node — an owner the collector has not seen, possibly absent). Entries without a node and
 * without dependents are dropped. Strings are owned by the graph. Single-threaded: the collector's thread alone
 * reads and writes it. */
#ifndef KG_CONTROLLERS_GC_GRAPH_H
#define KG_CONTROLLERS_GC_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "json/json.h"

typedef struct kg_gc_owner {
    char *uid, *api_version, *kind, *name;
    bool block_owner_deletion;
} kg_gc_owner;

typedef struct kg_gc_node {
    char *uid;
    char *group, *resource; /* the resource the object is stored under (plural; group "" for core) */
    char *ns, *name;        /* ns "" for cluster-scoped objects */
    kg_gc_owner *owners;
    size_t nowners;
    bool deleting;   /* metadata.deletionTimestamp set */
    bool foreground; /* finalizer foregroundDeletion */
    bool orphan;     /* finalizer orphan */
    /* pods being deleted with a grace period: when it ends (epoch seconds; 0: not such a pod) and their node */
    long long grace_deadline;
    char *node_name;
} kg_gc_node;

typedef struct kg_gc_entry {
    char *uid;
    kg_gc_node *node;          /* NULL: known only as an owner */
    struct kg_gc_entry **deps; /* entries whose node names this uid as an owner */
    size_t ndeps, capdeps;
    bool queued;              /* in the collector's work queue */
    bool reaping;             /* in the collector's list of terminating pods */
    struct kg_gc_entry *next; /* hash chain */
} kg_gc_entry;

typedef struct kg_gc_graph {
    kg_gc_entry **buckets;
    size_t nbuckets, count;
} kg_gc_graph;

void kg_gc_graph_init(kg_gc_graph *g);
void kg_gc_graph_free(kg_gc_graph *g);

kg_gc_entry *kg_gc_graph_find(const kg_gc_graph *g, const char *uid);

/* Record obj (its metadata: uid, ownerReferences, deletionTimestamp, finalizers) as stored under group/resource.
 * Returns its entry, or NULL when obj has no uid. *owners_changed (may be NULL) tells whether its owner uids
 * changed. */
kg_gc_entry *kg_gc_graph_upsert(kg_gc_graph *g, const char *group, const char *resource, const char *ns,
                                const char *name, const kg_json *obj, bool *owners_changed);

/* Forget the object with this uid (deleted). Its entry stays while others name it as an owner (then node NULL). */
void kg_gc_graph_remove(kg_gc_graph *g, const char *uid);

/* Drop an entry that has neither a node nor dependents (and is not queued). */
void kg_gc_graph_prune(kg_gc_graph *g, kg_gc_entry *e);

/* The owner reference of dep that names uid (NULL if none). */
const kg_gc_owner *kg_gc_node_owner(const kg_gc_node *dep, const char *uid);

#endif
