/* The Node authorizer (see authorizer.h). */
#include "auth/node/authorizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/nodeidentity.h"
#include "auth/rbac/bootstrappolicy.h"
#include "auth/rbac/rule.h"
#include "meta/fields.h"

typedef struct node_authz {
    kg_authorizer base;
    kg_node_graph *g;
    bool selectors;
    kg_arena arena; /* the static rules */
    kg_rbac_rule *rules;
    size_t nrules;
} node_authz;

static bool eq(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static bool empty(const char *s)
{
    return !s || !*s;
}

static bool verb_in(const char *verb, const char *const *verbs)
{
    for (; *verbs; verbs++)
        if (eq(verb, *verbs))
            return true;
    return false;
}

static kg_authz_decision no(const char **reason, const char *why)
{
    *reason = why;
    return KG_AUTHZ_NO_OPINION;
}

/* authorize: a path from the node to the object */
static kg_authz_decision graph(const node_authz *z, const char *node, kg_node_vertex kind,
                               const kg_authz_attributes *at, kg_arena *a, const char **reason)
{
    if (empty(at->name))
        return no(reason, "No Object name found");
    if (!kg_node_graph_reachable(z->g, node, kind, at->namespace_ ? at->namespace_ : "", at->name))
        return no(reason, kg_arena_sprintf(a, "no relationship found between node '%s' and this object", node));
    return KG_AUTHZ_ALLOW;
}

static kg_authz_decision read_namespaced(const node_authz *z, const char *node, kg_node_vertex kind,
                                         const kg_authz_attributes *at, kg_arena *a, const char **reason)
{
    if (!verb_in(at->verb, (const char *const[]){"get", "list", "watch", NULL}))
        return no(reason, "can only read resources of this type");
    if (!empty(at->subresource))
        return no(reason, "cannot read subresource");
    if (empty(at->namespace_))
        return no(reason, "can only read namespaced object of this type");
    return graph(z, node, kind, at, a, reason);
}

static kg_authz_decision get_only(const node_authz *z, const char *node, kg_node_vertex kind,
                                  const kg_authz_attributes *at, kg_arena *a, const char **reason)
{
    if (!eq(at->verb, "get"))
        return no(reason, "can only get individual resources of this type");
    if (!empty(at->subresource))
        return no(reason, "cannot get subresource");
    return graph(z, node, kind, at, a, reason);
}

static kg_authz_decision status_update(const node_authz *z, const char *node, kg_node_vertex kind,
                                       const kg_authz_attributes *at, kg_arena *a, const char **reason)
{
    if (!verb_in(at->verb, (const char *const[]){"update", "patch", NULL}))
        return no(reason, "can only get/update/patch this type");
    if (!eq(at->subresource, "status"))
        return no(reason, "can only update status subresource");
    return graph(z, node, kind, at, a, reason);
}

/* a field selector that pins field to value (fields.Requirements with Operator Equals) */
static bool selects(kg_arena *a, const char *selector, const char *field, const char *value)
{
    if (empty(selector))
        return false;
    kg_field_selector sel;
    KG_ERROR_DECL(err);
    if (!kg_fields_parse(a, selector, &sel, &err))
        return false;
    for (size_t i = 0; i < sel.n; i++)
        if (!sel.reqs[i].not_equal && eq(sel.reqs[i].field, field) && eq(sel.reqs[i].value, value))
            return true;
    return false;
}

static kg_authz_decision node_object(const char *node, const kg_authz_attributes *at, kg_arena *a, const char **reason)
{
    if (empty(at->subresource)) {
        if (verb_in(at->verb, (const char *const[]){"create", "update", "patch", NULL}))
            return KG_AUTHZ_ALLOW;
        if (verb_in(at->verb, (const char *const[]){"get", "list", "watch", NULL})) {
            if (eq(at->name, node))
                return KG_AUTHZ_ALLOW;
            if (empty(at->name))
                return no(reason,
                          kg_arena_sprintf(a, "node '%s' cannot read all nodes, only its own Node object", node));
            return no(reason,
                      kg_arena_sprintf(a, "node '%s' cannot read '%s', only its own Node object", node, at->name));
        }
    } else if (eq(at->subresource, "status") && verb_in(at->verb, (const char *const[]){"update", "patch", NULL})) {
        return KG_AUTHZ_ALLOW;
    }
    return KG_AUTHZ_NO_OPINION;
}

static kg_authz_decision pod_object(const node_authz *z, const char *node, const kg_authz_attributes *at, kg_arena *a,
                                    const char **reason)
{
    if (empty(at->subresource)) {
        if (eq(at->verb, "get"))
            return graph(z, node, KG_NODE_V_POD, at, a, reason);
        if (verb_in(at->verb, (const char *const[]){"list", "watch", NULL})) {
            if (selects(a, at->field_selector, "spec.nodeName", node))
                return KG_AUTHZ_ALLOW;
            if (!empty(at->name))
                return graph(z, node, KG_NODE_V_POD, at, a, reason);
            return no(reason, "can only list/watch pods with spec.nodeName field selector");
        }
        if (verb_in(at->verb, (const char *const[]){"create", "delete", NULL}))
            return KG_AUTHZ_ALLOW;
    } else if (eq(at->subresource, "status")) {
        if (verb_in(at->verb, (const char *const[]){"update", "patch", NULL}))
            return KG_AUTHZ_ALLOW;
    } else if (eq(at->subresource, "eviction") && eq(at->verb, "create")) {
        return KG_AUTHZ_ALLOW;
    }
    return KG_AUTHZ_NO_OPINION;
}

static const char *const lease_verbs[] = {"get", "create", "update", "patch", "delete", NULL};

static kg_authz_decision resource_slice(const node_authz *z, const char *node, const kg_authz_attributes *at,
                                        kg_arena *a, const char **reason)
{
    if (!empty(at->subresource))
        return no(reason, "cannot authorize ResourceSlice subresources");
    if (eq(at->verb, "create"))
        return KG_AUTHZ_ALLOW;
    if (verb_in(at->verb, (const char *const[]){"get", "update", "patch", "delete", NULL}))
        return no(reason, kg_arena_sprintf(a, "no relationship found between node '%s' and this object", node));
    if (verb_in(at->verb, (const char *const[]){"watch", "list", "deletecollection", NULL})) {
        if (!z->selectors || selects(a, at->field_selector, "spec.nodeName", node))
            return KG_AUTHZ_ALLOW;
        return no(reason, "can only list/watch/deletecollection resourceslices with nodeName field selector");
    }
    return no(reason, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, "
                      "patch, delete, deletecollection");
}

static kg_authz_decision node_authorize(void *ctx, const kg_authz_attributes *at, kg_arena *a, const char **reason,
                                        kg_error *err)
{
    (void)err;
    const node_authz *z = ctx;
    const char *node;
    if (!kg_node_identity(at->user, &node))
        return KG_AUTHZ_NO_OPINION;
    if (!*node)
        return no(reason, kg_arena_sprintf(a, "unknown node for user \"%s\"", at->user->name));
    if (at->resource_request) {
        const char *g = at->api_group ? at->api_group : "", *r = at->resource ? at->resource : "";
        if (!*g) {
            if (!strcmp(r, "secrets"))
                return read_namespaced(z, node, KG_NODE_V_SECRET, at, a, reason);
            if (!strcmp(r, "configmaps"))
                return read_namespaced(z, node, KG_NODE_V_CONFIGMAP, at, a, reason);
            if (!strcmp(r, "persistentvolumeclaims")) {
                if (eq(at->subresource, "status"))
                    return status_update(z, node, KG_NODE_V_PVC, at, a, reason);
                return get_only(z, node, KG_NODE_V_PVC, at, a, reason);
            }
            if (!strcmp(r, "persistentvolumes"))
                return get_only(z, node, KG_NODE_V_PV, at, a, reason);
            if (!strcmp(r, "serviceaccounts")) {
                if (!eq(at->verb, "create") || empty(at->name))
                    return no(reason, "can only create tokens for individual service accounts");
                if (!eq(at->subresource, "token"))
                    return no(reason, "can only create token subresource of serviceaccount");
                return graph(z, node, KG_NODE_V_SERVICEACCOUNT, at, a, reason);
            }
            if (!strcmp(r, "nodes") && z->selectors)
                return node_object(node, at, a, reason);
            if (!strcmp(r, "pods") && z->selectors)
                return pod_object(z, node, at, a, reason);
        } else if (!strcmp(g, "resource.k8s.io") && !strcmp(r, "resourceclaims")) {
            return get_only(z, node, KG_NODE_V_RESOURCECLAIM, at, a, reason);
        } else if (!strcmp(g, "resource.k8s.io") && !strcmp(r, "resourceslices")) {
            return resource_slice(z, node, at, a, reason);
        } else if (!strcmp(g, "storage.k8s.io") && !strcmp(r, "volumeattachments")) {
            return get_only(z, node, KG_NODE_V_VOLUMEATTACHMENT, at, a, reason);
        } else if (!strcmp(g, "coordination.k8s.io") && !strcmp(r, "leases")) {
            if (!verb_in(at->verb, lease_verbs))
                return no(reason, "can only get, create, update, patch, or delete a node lease");
            if (!eq(at->namespace_, "kube-node-lease"))
                return no(reason, "can only access leases in the \"kube-node-lease\" system namespace");
            if (!eq(at->verb, "create") && !eq(at->name, node))
                return no(reason, "can only access node lease with the same name as the requesting node");
            return KG_AUTHZ_ALLOW;
        } else if (!strcmp(g, "storage.k8s.io") && !strcmp(r, "csinodes")) {
            if (!verb_in(at->verb, lease_verbs))
                return no(reason, "can only get, create, update, patch, or delete a CSINode");
            if (!empty(at->subresource))
                return no(reason, "cannot authorize CSINode subresources");
            if (!eq(at->verb, "create") && !eq(at->name, node))
                return no(reason, "can only access CSINode with the same name as the requesting node");
            return KG_AUTHZ_ALLOW;
        }
    }
    for (size_t i = 0; i < z->nrules; i++)
        if (kg_rbac_rule_allows(&z->rules[i], at))
            return KG_AUTHZ_ALLOW;
    return KG_AUTHZ_NO_OPINION;
}

static void node_destroy(void *ctx)
{
    node_authz *z = ctx;
    kg_arena_free(&z->arena);
    free(z);
}

kg_authorizer *kg_node_authorizer_new(kg_node_graph *g, const kg_node_authorizer_options *opts)
{
    node_authz *z = calloc(1, sizeof *z);
    if (!z)
        abort();
    z->base = (kg_authorizer){.ctx = z, .authorize = node_authorize, .destroy = node_destroy};
    z->g = g;
    z->selectors = opts ? opts->authorize_with_selectors : true;
    kg_arena_init(&z->arena, 0);
    kg_arena tmp;
    kg_arena_init(&tmp, 0);
    const kg_json *policy = kg_rbac_bootstrap_policy(&tmp);
    for (size_t i = 0; kg_json_is(policy, KG_JSON_ARRAY) && i < policy->len; i++) {
        const kg_json *o = kg_json_at(policy, i);
        const char *kind = kg_json_get_str(o, "kind"), *name = kg_json_path_str(o, "metadata.name");
        if (kind && !strcmp(kind, "ClusterRole") && name && !strcmp(name, "system:node"))
            z->rules = kg_rbac_rules_compile(&z->arena, kg_json_get(o, "rules"), &z->nrules);
    }
    kg_arena_free(&tmp);
    return &z->base;
}
