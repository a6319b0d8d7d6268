/* Webhook-safety warnings on writing a Mutating/ValidatingWebhookConfiguration (beyond upstream; docs/webhooks.md
 * "Safety warnings"). Two checks, each a `Warning` for the client, never a rejection:
 *
 *  (a) deadline: the webhooks that can match one request run in sequence (mutating) and then in parallel
 *      (validating); when the sum of the mutating timeoutSeconds plus the slowest validating timeoutSeconds exceeds
 *      the request deadline (KG_ADMISSION_DEFAULT_DEADLINE_S), a slow webhook can time the request out. Every
 *      configuration in the store is considered, with the one being written in place of its stored version. "Can
 *      match one request" is judged on the rules alone (operation, apiGroup, resource; selectors and matchConditions
 *      depend on the object): the candidate requests are the cross product of every operation, every group named by
 *      some rule (plus "another group") and every resource named by some rule (plus "another resource"); only
 *      candidates that a webhook of the written configuration matches count, and the worst one is reported.
 *  (b) self-blocking: a webhook of the written configuration with failurePolicy Fail whose clientConfig.service is in
 *      namespace N and whose rules cover CREATE of v1 pods, where its namespaceSelector matches N's labels (the stored
 *      Namespace, or the automatic kubernetes.io/metadata.name label when N does not exist yet) and its objectSelector
 *      matches the Service's spec.selector (the labels its own pods carry; an objectSelector with no Service stored
 *      is taken as excluding them): when its pods are down, their replacements are rejected by the webhook itself.
 *
 * Runs only on configuration writes (never on the request path of other objects); the work is bounded by the number
 * of stored webhooks and the candidate cap. */
#include <stdio.h>
#include <string.h>

#include "admission/webhook/call.h"
#include "meta/labels.h"

#define MAX_AXIS 64 /* distinct groups / resources taken as candidates (beyond: not considered) */

typedef struct shook {
    const kg_json *w; /* the webhook object */
    const char *config;
    bool mutating;
    bool mine; /* in the configuration being written */
    int timeout_s;
} shook;

typedef struct shooks {
    shook *v;
    size_t n, cap;
} shooks;

static void add_config(kg_arena *a, shooks *hs, const kg_json *cfg, bool mutating, bool mine)
{
    const kg_json *ws = kg_json_get(cfg, "webhooks");
    const char *name = kg_json_path_str(cfg, "metadata.name");
    for (uint32_t i = 0; kg_json_is(ws, KG_JSON_ARRAY) && i < ws->len; i++) {
        if (hs->n == hs->cap) {
            size_t cap = hs->cap ? hs->cap * 2 : 16;
            shook *nv = kg_arena_alloc(a, cap * sizeof *nv);
            if (hs->n)
                memcpy(nv, hs->v, hs->n * sizeof *nv);
            hs->v = nv;
            hs->cap = cap;
        }
        const kg_json *w = kg_json_at(ws, i), *to = kg_json_get(w, "timeoutSeconds");
        hs->v[hs->n++] = (shook){w, name ? name : "", mutating, mine,
                                 kg_json_is(to, KG_JSON_INT) && to->u.i > 0 ? (int)to->u.i : 10};
    }
}

static bool has_str(const kg_json *arr, const char *s)
{
    for (uint32_t i = 0; kg_json_is(arr, KG_JSON_ARRAY) && i < arr->len; i++) {
        const kg_json *v = kg_json_at(arr, i);
        if (kg_json_is(v, KG_JSON_STRING) && !strcmp(v->u.s, s))
            return true;
    }
    return false;
}

static bool has_or_star(const kg_json *arr, const char *s)
{
    return has_str(arr, s) || has_str(arr, "*");
}

/* Whether rule resource r covers candidate resource c ("pods", "pods/status"; OTHER: a resource no rule names). */
#define OTHER "\x01"
static bool resource_covers(const char *r, const char *c)
{
    const char *cs = strchr(c, '/'), *rs = strchr(r, '/');
    if (!strcmp(r, c) || !strcmp(r, "*/*"))
        return true;
    if (!strcmp(r, "*"))
        return !cs;
    if (!rs || !cs)
        return false;
    if (!strcmp(rs, "/*")) /* a rule for every subresource of one resource */
        return (size_t)(rs - r) == (size_t)(cs - c) && !strncmp(r, c, (size_t)(rs - r));
    if (!strncmp(r, "*/", 2)) /* a rule on one subresource of every resource */
        return !strcmp(rs, cs);
    return false;
}

static bool rule_covers(const kg_json *rule, const char *op, const char *group, const char *version,
                        const char *resource)
{
    if (!has_or_star(kg_json_get(rule, "operations"), op) || !has_or_star(kg_json_get(rule, "apiGroups"), group))
        return false;
    if (version && !has_or_star(kg_json_get(rule, "apiVersions"), version))
        return false;
    const kg_json *rs = kg_json_get(rule, "resources");
    for (uint32_t i = 0; kg_json_is(rs, KG_JSON_ARRAY) && i < rs->len; i++) {
        const kg_json *r = kg_json_at(rs, i);
        if (kg_json_is(r, KG_JSON_STRING) && resource_covers(r->u.s, resource))
            return true;
    }
    return false;
}

static bool hook_covers(const kg_json *w, const char *op, const char *group, const char *version, const char *resource)
{
    const kg_json *rules = kg_json_get(w, "rules");
    for (uint32_t i = 0; kg_json_is(rules, KG_JSON_ARRAY) && i < rules->len; i++)
        if (rule_covers(kg_json_at(rules, i), op, group, version, resource))
            return true;
    return false;
}

/* Add s to the distinct list out (n entries, at most MAX_AXIS). */
static void distinct(kg_arena *a, const char **out, size_t *n, const char *s, size_t len)
{
    for (size_t j = 0; j < *n; j++)
        if (strlen(out[j]) == len && !strncmp(out[j], s, len))
            return;
    if (*n < MAX_AXIS)
        out[(*n)++] = kg_arena_strndup(a, s, len);
}

/* The candidate groups: every group a rule names ("*" left out) and OTHER. */
static size_t group_axis(kg_arena *a, const shooks *hs, const char **out)
{
    size_t n = 0;
    for (size_t h = 0; h < hs->n; h++) {
        const kg_json *rules = kg_json_get(hs->v[h].w, "rules");
        for (uint32_t i = 0; kg_json_is(rules, KG_JSON_ARRAY) && i < rules->len; i++) {
            const kg_json *vs = kg_json_get(kg_json_at(rules, i), "apiGroups");
            for (uint32_t k = 0; kg_json_is(vs, KG_JSON_ARRAY) && k < vs->len; k++) {
                const kg_json *v = kg_json_at(vs, k);
                if (kg_json_is(v, KG_JSON_STRING) && strcmp(v->u.s, "*"))
                    distinct(a, out, &n, v->u.s, strlen(v->u.s));
            }
        }
    }
    out[n++] = OTHER;
    return n;
}

/* The candidate resources: every resource and subresource part a rule names ("*" left out; OTHER for the rest), as
 * "main" and "main/sub" combinations, so that a rule on every subresource of pods and one on the status of every
 * resource meet on "pods/status". */
static size_t resource_axis(kg_arena *a, const shooks *hs, const char ***out)
{
    const char *mains[MAX_AXIS + 1], *subs[MAX_AXIS + 1];
    size_t nm = 0, ns = 0;
    for (size_t h = 0; h < hs->n; h++) {
        const kg_json *rules = kg_json_get(hs->v[h].w, "rules");
        for (uint32_t i = 0; kg_json_is(rules, KG_JSON_ARRAY) && i < rules->len; i++) {
            const kg_json *vs = kg_json_get(kg_json_at(rules, i), "resources");
            for (uint32_t k = 0; kg_json_is(vs, KG_JSON_ARRAY) && k < vs->len; k++) {
                const kg_json *v = kg_json_at(vs, k);
                if (!kg_json_is(v, KG_JSON_STRING))
                    continue;
                const char *sl = strchr(v->u.s, '/');
                size_t ml = sl ? (size_t)(sl - v->u.s) : strlen(v->u.s);
                if (!(ml == 1 && v->u.s[0] == '*'))
                    distinct(a, mains, &nm, v->u.s, ml);
                if (sl && strcmp(sl + 1, "*"))
                    distinct(a, subs, &ns, sl + 1, strlen(sl + 1));
            }
        }
    }
    mains[nm++] = OTHER;
    subs[ns++] = OTHER;
    const char **r = kg_arena_alloc(a, nm * (ns + 1) * sizeof *r);
    size_t n = 0;
    for (size_t m = 0; m < nm; m++) {
        r[n++] = mains[m];
        for (size_t s = 0; s < ns; s++)
            r[n++] = kg_arena_sprintf(a, "%s/%s", mains[m], subs[s]);
    }
    *out = r;
    return n;
}

static const char *describe(kg_arena *a, const char *op, const char *group, const char *resource)
{
    char *r = kg_arena_strdup(a, resource);
    for (char *p = r; *p; p++)
        if (*p == OTHER[0])
            *p = '*';
    if (!strcmp(group, OTHER))
        return kg_arena_sprintf(a, "%s %s.*", op, r);
    return group[0] ? kg_arena_sprintf(a, "%s %s.%s", op, r, group) : kg_arena_sprintf(a, "%s %s", op, r);
}

static void deadline_warning(const kg_admission_attributes *at, const shooks *hs)
{
    kg_arena *a = at->arena;
    static const char *const ops[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};
    const char **groups = kg_arena_alloc(a, (MAX_AXIS + 1) * sizeof *groups), **resources = NULL;
    size_t ng = group_axis(a, hs, groups), nr = resource_axis(a, hs, &resources);
    int worst = 0, worst_m = 0, worst_v = 0;
    size_t worst_nm = 0;
    const char *worst_req = NULL;
    for (size_t o = 0; o < 4; o++)
        for (size_t g = 0; g < ng; g++)
            for (size_t r = 0; r < nr; r++) {
                bool mine = false;
                int msum = 0, vmax = 0;
                size_t nm = 0;
                for (size_t h = 0; h < hs->n; h++) {
                    if (!hook_covers(hs->v[h].w, ops[o], groups[g], NULL, resources[r]))
                        continue;
                    mine |= hs->v[h].mine;
                    if (hs->v[h].mutating) {
                        msum += hs->v[h].timeout_s;
                        nm++;
                    } else if (hs->v[h].timeout_s > vmax) {
                        vmax = hs->v[h].timeout_s;
                    }
                }
                if (mine && msum + vmax > worst) {
                    worst = msum + vmax;
                    worst_m = msum;
                    worst_v = vmax;
                    worst_nm = nm;
                    worst_req = describe(a, ops[o], groups[g], resources[r]);
                }
            }
    if (worst <= KG_ADMISSION_DEFAULT_DEADLINE_S)
        return;
    kg_admission_warn(at,
                      kg_arena_sprintf(a,
                                       "webhook timeouts exceed the request deadline: the webhooks that can match "
                                       "one request (%s) may take %ds (%zu mutating webhooks in sequence: %ds, "
                                       "slowest validating webhook: %ds), more than the %ds request deadline",
                                       worst_req, worst, worst_nm, worst_m, worst_v, KG_ADMISSION_DEFAULT_DEADLINE_S));
}

static bool selector_matches(kg_arena *a, const kg_json *sel, const kg_json *labels)
{
    if (!sel || kg_json_is(sel, KG_JSON_NULL))
        return true; /* defaulted to {} */
    kg_label_selector ls;
    KG_ERROR_DECL(e);
    if (!kg_label_selector_from_json(a, sel, &ls, &e))
        return false;
    return kg_labels_matches(&ls, labels);
}

static void self_blocking_warning(const kg_admission_attributes *at, const kg_admission_services *svc, const shook *h)
{
    kg_arena *a = at->arena;
    const char *fp = kg_json_get_str(h->w, "failurePolicy");
    if (fp && strcmp(fp, "Fail"))
        return;
    const kg_json *s = kg_json_path(h->w, "clientConfig.service");
    const char *ns = kg_json_get_str(s, "namespace"), *name = kg_json_get_str(s, "name");
    if (!ns || !name || !hook_covers(h->w, "CREATE", "", "v1", "pods"))
        return;
    KG_ERROR_DECL(e);
    const kg_json *nso = svc ? kg_admission_view_obj(svc, a, "namespaces", "", ns, &e) : NULL;
    const kg_json *nsl = nso ? kg_json_path(nso, "metadata.labels") : NULL;
    if (!nsl) {
        kg_json *l = kg_json_new_object(a);
        kg_json_set(a, l, "kubernetes.io/metadata.name", kg_json_new_str(a, ns));
        nsl = l;
    }
    if (!selector_matches(a, kg_json_get(h->w, "namespaceSelector"), nsl))
        return;
    const kg_json *os = kg_json_get(h->w, "objectSelector");
    kg_label_selector ols;
    if (os && !kg_json_is(os, KG_JSON_NULL) &&
        (!kg_label_selector_from_json(a, os, &ols, &e) || !kg_labels_empty(&ols))) {
        kg_err_clear(&e);
        const kg_json *so = svc ? kg_admission_view_obj(svc, a, "services", ns, name, &e) : NULL;
        const kg_json *podl = so ? kg_json_path(so, "spec.selector") : NULL;
        if (!podl || !selector_matches(a, os, podl))
            return;
    }
    kg_admission_warn(
        at, kg_arena_sprintf(a,
                             "webhook \"%s\" has failurePolicy Fail and matches the creation of pods in namespace "
                             "\"%s\", where its own service \"%s\" runs: while the webhook is down its pods cannot be "
                             "recreated; exclude them with namespaceSelector or objectSelector, or use failurePolicy "
                             "Ignore",
                             kg_json_get_str(h->w, "name") ? kg_json_get_str(h->w, "name") : "", ns, name));
}

void kg_webhook_safety_warn(const kg_admission_attributes *at, const kg_admission_services *svc)
{
    if ((at->operation != KG_ADMISSION_CREATE && at->operation != KG_ADMISSION_UPDATE) || at->subresource[0] ||
        !at->warnings || !kg_json_is(at->object, KG_JSON_OBJECT))
        return;
    bool mutating = !strcmp(at->kind.kind, "MutatingWebhookConfiguration");
    if (!mutating && strcmp(at->kind.kind, "ValidatingWebhookConfiguration"))
        return;
    kg_arena *a = at->arena;
    const char *self = kg_json_path_str(at->object, "metadata.name");
    shooks hs = {0};
    for (int k = 0; k < 2; k++) {
        bool m = k == 0;
        KG_ERROR_DECL(e);
        kg_json *list =
            svc ? kg_admission_list(svc, a, m ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations", "",
                                    0, &e)
                : NULL;
        for (uint32_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
            const kg_json *c = kg_json_at(list, i);
            const char *cn = kg_json_path_str(c, "metadata.name");
            if (m == mutating && self && cn && !strcmp(cn, self))
                continue; /* replaced by the object being written */
            add_config(a, &hs, c, m, false);
        }
    }
    add_config(a, &hs, at->object, mutating, true);
    deadline_warning(at, &hs);
    for (size_t i = 0; i < hs.n; i++)
        if (hs.v[i].mine)
            self_blocking_warning(at, svc, &hs.v[i]);
}
