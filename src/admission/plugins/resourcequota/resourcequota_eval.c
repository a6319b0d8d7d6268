/* ResourceQuota evaluators (k8s.io/kubernetes pkg/quota/v1/evaluator/core and pkg/quota/v1/generic): which quota
 * resources each evaluator tracks, the usage of one object, scope matching, pod constraints, and the usage
 * statistics the quota controller sums over a namespace. Internal to the ResourceQuota plugin
 * (resourcequota_internal.h). */
#define _DEFAULT_SOURCE /* timegm */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admission/plugins/plugin_util.h"
#define KG_RESOURCEQUOTA_INTERNAL
#include "admission/plugins/resourcequota/resourcequota.h"
#include "base/buf.h"
#include "base/str.h"
#include "meta/labels.h"

/* ---- resource names ---- */

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* prettyPrintResourceNames: sorted, comma-joined. */
char *kg_admission_rq_pretty_names(kg_arena *ar, const char **names, size_t n)
{
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i && kg_streq(names[i], names[i - 1]))
            continue;
        if (b.len)
            kg_buf_putc(&b, ',');
        kg_buf_puts(&b, names[i]);
    }
    char *s = kg_arena_strdup(ar, b.len ? kg_buf_cstr(&b) : "");
    kg_buf_free(&b);
    return s;
}

/* ---- evaluators ---- */

static const char *const POD_RESOURCES[] = {"count/pods",
                                            "pods",
                                            "cpu",
                                            "memory",
                                            "ephemeral-storage",
                                            "requests.cpu",
                                            "requests.memory",
                                            "requests.ephemeral-storage",
                                            "limits.cpu",
                                            "limits.memory",
                                            "limits.ephemeral-storage",
                                            NULL};
static const char *const SERVICE_RESOURCES[] = {"count/services", "services", "services.nodeports",
                                                "services.loadbalancers", NULL};
#define SC_SUFFIX ".storageclass.storage.k8s.io/"

static bool in_list(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (kg_streq(*l, s))
            return true;
    return false;
}

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && memcmp(s + n - m, suf, m) == 0;
}

static bool dns1123_label_char(char c)
{
    return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-';
}

/* validation.IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain (<= 253), name <= 63 chars of
 * [A-Za-z0-9_.-] starting and ending alphanumeric. */
static bool qualified_name(const char *s)
{
    const char *slash = strchr(s, '/');
    const char *name = s;
    if (slash) {
        if (strchr(slash + 1, '/'))
            return false;
        size_t pl = (size_t)(slash - s);
        if (pl == 0 || pl > 253)
            return false;
        for (size_t i = 0; i < pl; i++)
            if (!dns1123_label_char(s[i]) && s[i] != '.')
                return false;
        if (!isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[pl - 1]))
            return false;
        name = slash + 1;
    }
    size_t n = strlen(name);
    if (n == 0 || n > 63 || !isalnum((unsigned char)name[0]) || !isalnum((unsigned char)name[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '-' && name[i] != '_' && name[i] != '.')
            return false;
    return true;
}

/* helper.IsExtendedResourceName: not native (has a domain other than kubernetes.io), not "requests."-prefixed, and
 * "requests.<name>" is a qualified name. */
static bool is_extended(const char *name)
{
    if (!strchr(name, '/') || strstr(name, "kubernetes.io/") || has_prefix(name, "requests."))
        return false;
    char buf[512];
    if (snprintf(buf, sizeof buf, "requests.%s", name) >= (int)sizeof buf)
        return false;
    return qualified_name(buf);
}

void kg_admission_rq_evaluator_for(kg_arena *ar, const char *group, const char *resource, rq_evaluator *out)
{
    *out = (rq_evaluator){0};
    out->group = group;
    out->resource = resource;
    bool core = group[0] == 0;
    if (core && kg_streq(resource, "pods"))
        out->kind = RQ_EV_POD;
    else if (core && kg_streq(resource, "services"))
        out->kind = RQ_EV_SERVICE;
    else if (core && kg_streq(resource, "persistentvolumeclaims"))
        out->kind = RQ_EV_PVC;
    else
        out->kind = RQ_EV_COUNT;
    static const char *const known[][2] = {{"pods", "count/pods"},
                                           {"services", "count/services"},
                                           {"persistentvolumeclaims", "count/persistentvolumeclaims"}};
    out->count_name = NULL;
    for (size_t i = 0; core && i < 3 && !out->count_name; i++)
        if (kg_streq(resource, known[i][0]))
            out->count_name = known[i][1];
    if (!out->count_name)
        out->count_name =
            core ? kg_arena_sprintf(ar, "count/%s", resource) : kg_arena_sprintf(ar, "count/%s.%s", resource, group);
    if (core && (kg_streq(resource, "configmaps") || kg_streq(resource, "secrets") ||
                 kg_streq(resource, "resourcequotas") || kg_streq(resource, "replicationcontrollers")))
        out->legacy_name = resource;
}

bool kg_admission_rq_matching_resource(const rq_evaluator *ev, const char *name)
{
    switch (ev->kind) {
    case RQ_EV_POD:
        return in_list(POD_RESOURCES, name) || has_prefix(name, "hugepages-") ||
               has_prefix(name, "requests.hugepages-") ||
               (has_prefix(name, "requests.") && is_extended(name + strlen("requests.")));
    case RQ_EV_SERVICE: return in_list(SERVICE_RESOURCES, name);
    case RQ_EV_PVC:
        return kg_streq(name, "count/persistentvolumeclaims") || kg_streq(name, "persistentvolumeclaims") ||
               kg_streq(name, "requests.storage") || has_suffix(name, SC_SUFFIX "persistentvolumeclaims") ||
               has_suffix(name, SC_SUFFIX "requests.storage");
    case RQ_EV_COUNT:
        return kg_streq(name, ev->count_name) || (ev->legacy_name && kg_streq(name, ev->legacy_name));
    }
    return false;
}

bool kg_admission_rq_evaluator_handles(const rq_evaluator *ev, kg_admission_op op, const char *subresource)
{
    switch (ev->kind) {
    case RQ_EV_POD:
        if (subresource[0] && !kg_streq(subresource, "resize"))
            return false;
        return op == KG_ADMISSION_CREATE || (subresource[0] && op == KG_ADMISSION_UPDATE);
    case RQ_EV_SERVICE:
    case RQ_EV_PVC: return op == KG_ADMISSION_CREATE || op == KG_ADMISSION_UPDATE;
    case RQ_EV_COUNT: return op == KG_ADMISSION_CREATE && !subresource[0];
    }
    return false;
}

/* ---- pods ---- */

static bool is_sidecar(const kg_json *c)
{
    const char *rp = kg_json_get_str(c, "restartPolicy");
    return rp && kg_streq(rp, "Always");
}

/* A container's requests (defaulted from its limits, as the API defaulting does) and limits. */
static void container_res_parse(kg_arena *ar, const kg_json *c, kg_rlist *req, kg_rlist *lim)
{
    const kg_json *res = kg_json_get(c, "resources");
    kg_rlist_from_json(ar, kg_json_get(res, "requests"), req);
    kg_rlist_from_json(ar, kg_json_get(res, "limits"), lim);
    for (size_t i = 0; i < lim->n; i++)
        if (!kg_rlist_find(req, lim->e[i].name))
            kg_rlist_set(ar, req, lim->e[i].name, &lim->e[i].q);
}

static void copy_list(kg_arena *ar, const kg_rlist *from, kg_rlist *out)
{
    out->n = out->cap = from->n;
    out->e = from->n ? kg_arena_alloc(ar, from->n * sizeof *out->e) : NULL;
    if (from->n)
        memcpy(out->e, from->e, from->n * sizeof *out->e);
}

/* The requests or limits of a container through the request's memo (parsed once); read-only (copy_list it to edit). */
static const kg_rlist *container_res(kg_arena *ar, const kg_json *c, bool requests, const rq_env *env)
{
    rq_cres_memo *m = env ? env->cres : NULL;
    for (size_t i = 0; m && i < m->n; i++)
        if (m->e[i].c == c)
            return requests ? &m->e[i].req : &m->e[i].lim;
    if (m && m->n < RQ_CRES_MEMO) {
        m->e[m->n].c = c;
        container_res_parse(ar, c, &m->e[m->n].req, &m->e[m->n].lim);
        m->n++;
        return requests ? &m->e[m->n - 1].req : &m->e[m->n - 1].lim;
    }
    kg_rlist *req = kg_arena_alloc(ar, 2 * sizeof *req), *lim = req + 1;
    container_res_parse(ar, c, req, lim);
    return requests ? req : lim;
}

/* container_res, then (InPlacePodVerticalScaling) merged with the container's status into a private copy */
static const kg_rlist *container_charge(kg_arena *ar, const kg_json *pod, const char *list, const kg_json *c,
                                        bool requests, const rq_env *env, kg_rlist *priv);

static const kg_json *container_status(const kg_json *pod, const char *list, const char *name)
{
    const kg_json *sts = kg_json_get(kg_json_get(pod, "status"), list);
    for (size_t i = 0; kg_json_is(sts, KG_JSON_ARRAY) && i < sts->len; i++)
        if (strcmp(kg_admission_pu_str(kg_json_at(sts, i), "name"), name) == 0)
            return kg_json_at(sts, i);
    return NULL;
}

/* helpers.IsPodResizeInfeasible: condition PodResizePending with reason Infeasible. */
static bool resize_infeasible(const kg_json *pod)
{
    const kg_json *cs = kg_json_get(kg_json_get(pod, "status"), "conditions");
    for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
        const char *t = kg_admission_pu_str(kg_json_at(cs, i), "type");
        if (kg_streq(t, "PodResizePending"))
            return strcmp(kg_admission_pu_str(kg_json_at(cs, i), "reason"), "Infeasible") == 0;
    }
    return false;
}

/* With InPlacePodVerticalScaling, a container whose status reports resources is charged
 * (determineContainerReqs / determineContainerLimits): requests max(spec, status resources, allocated) — only
 * max(status resources, allocated) while the resize is infeasible; limits max(spec, status) — only the status
 * limits while infeasible. */
static void with_status(kg_arena *ar, const kg_json *pod, const char *list, const kg_json *c, bool requests,
                        const rq_env *env, kg_rlist *r)
{
    if (!env->ippvs)
        return;
    const kg_json *cst = container_status(pod, list, kg_admission_pu_str(c, "name"));
    const kg_json *res = kg_json_get(cst, "resources");
    if (!kg_json_is(res, KG_JSON_OBJECT))
        return;
    bool infeasible = resize_infeasible(pod);
    kg_rlist st;
    kg_rlist_from_json(ar, kg_json_get(res, requests ? "requests" : "limits"), &st);
    if (infeasible)
        *r = (kg_rlist){0};
    kg_rlist_max(ar, r, &st);
    if (requests) {
        kg_rlist alloc;
        kg_rlist_from_json(ar, kg_json_get(cst, "allocatedResources"), &alloc);
        kg_rlist_max(ar, r, &alloc);
    }
}

static const kg_rlist *container_charge(kg_arena *ar, const kg_json *pod, const char *list, const kg_json *c,
                                        bool requests, const rq_env *env, kg_rlist *priv)
{
    const kg_rlist *r = container_res(ar, c, requests, env);
    if (!env->ippvs)
        return r;
    copy_list(ar, r, priv);
    with_status(ar, pod, list, c, requests, env, priv);
    return priv;
}

static bool pod_level_set(const kg_json *pod)
{
    const kg_json *r = kg_json_get(kg_json_get(pod, "spec"), "resources");
    const kg_json *req = kg_json_get(r, "requests"), *lim = kg_json_get(r, "limits");
    return (kg_json_is(req, KG_JSON_OBJECT) && req->len) || (kg_json_is(lim, KG_JSON_OBJECT) && lim->len);
}

/* resourcehelper.PodRequests / PodLimits: containers summed (with_status when InPlacePodVerticalScaling), max with the
 * init-container peak (restartable sidecars accumulate), pod-level cpu/memory when PodLevelResources is on, then the
 * overhead (requests: every entry; limits: only resources with a limit). */
static void pod_totals(kg_arena *ar, const kg_json *pod, bool requests, const rq_env *env, kg_rlist *out)
{
    *out = (kg_rlist){0};
    const kg_json *spec = kg_json_get(pod, "spec");
    const kg_json *cs = kg_json_get(spec, "containers");
    for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
        const kg_json *c = kg_json_at(cs, i);
        kg_rlist priv;
        kg_rlist_add(ar, out, container_charge(ar, pod, "containerStatuses", c, requests, env, &priv));
    }
    kg_rlist sidecars = {0}, init_max = {0};
    const kg_json *ics = kg_json_get(spec, "initContainers");
    for (size_t i = 0; kg_json_is(ics, KG_JSON_ARRAY) && i < ics->len; i++) {
        const kg_json *c = kg_json_at(ics, i);
        if (is_sidecar(c)) {
            kg_rlist priv;
            const kg_rlist *r = container_charge(ar, pod, "initContainerStatuses", c, requests, env, &priv);
            kg_rlist_add(ar, out, r);
            kg_rlist_add(ar, &sidecars, r);
            kg_rlist_max(ar, &init_max, &sidecars);
        } else {
            const kg_rlist *r = container_res(ar, c, requests, env);
            kg_rlist tmp = {0};
            kg_rlist_add(ar, &tmp, r);
            kg_rlist_add(ar, &tmp, &sidecars);
            kg_rlist_max(ar, &init_max, &tmp);
        }
    }
    kg_rlist_max(ar, out, &init_max);
    if (env->pod_level) {
        kg_rlist pl;
        kg_rlist_from_json(ar, kg_json_path(spec, requests ? "resources.requests" : "resources.limits"), &pl);
        if (requests) {
            kg_rlist pll;
            kg_rlist_from_json(ar, kg_json_get(kg_json_get(spec, "resources"), "limits"), &pll);
            for (size_t i = 0; i < pll.n; i++)
                if (!kg_rlist_find(&pl, pll.e[i].name))
                    kg_rlist_set(ar, &pl, pll.e[i].name, &pll.e[i].q);
        }
        for (size_t i = 0; i < pl.n; i++)
            if (kg_streq(pl.e[i].name, "cpu") || kg_streq(pl.e[i].name, "memory"))
                kg_rlist_set(ar, out, pl.e[i].name, &pl.e[i].q);
    }
    kg_rlist ovh;
    kg_rlist_from_json(ar, kg_json_path(spec, "overhead"), &ovh);
    for (size_t i = 0; i < ovh.n; i++) {
        kg_rlist_entry *e = kg_rlist_find(out, ovh.e[i].name);
        if (e)
            kg_quantity_add(&e->q, &ovh.e[i].q);
        else if (requests)
            kg_rlist_set(ar, out, ovh.e[i].name, &ovh.e[i].q);
    }
}

/* podComputeUsageHelper */
static void compute_usage(kg_arena *ar, const kg_rlist *req, const kg_rlist *lim, kg_rlist *out)
{
    kg_rlist_set_int(ar, out, "pods", 1);
    static const char *const base[] = {"cpu", "memory", "ephemeral-storage"};
    static const char *const base_req[] = {"requests.cpu", "requests.memory", "requests.ephemeral-storage"};
    static const char *const base_lim[] = {"limits.cpu", "limits.memory", "limits.ephemeral-storage"};
    for (size_t i = 0; i < 3; i++) {
        kg_rlist_entry *r = kg_rlist_find(req, base[i]);
        if (r) {
            kg_rlist_set(ar, out, base[i], &r->q);
            kg_rlist_set(ar, out, base_req[i], &r->q);
        }
        kg_rlist_entry *l = kg_rlist_find(lim, base[i]);
        if (l)
            kg_rlist_set(ar, out, base_lim[i], &l->q);
    }
    for (size_t i = 0; i < req->n; i++) {
        const char *n = req->e[i].name;
        if (has_prefix(n, "hugepages-")) {
            kg_rlist_set(ar, out, n, &req->e[i].q);
            kg_rlist_set(ar, out, kg_arena_sprintf(ar, "requests.%s", n), &req->e[i].q);
        }
        if (is_extended(n))
            kg_rlist_set(ar, out, kg_arena_sprintf(ar, "requests.%s", n), &req->e[i].q);
    }
}

/* RFC 3339 timestamp → ns since the epoch; false when unparsable. */
static bool parse_time(const char *s, int64_t *out)
{
    struct tm tm = {0};
    int y, mo, d, h, mi, sec;
    int n = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        return false;
    const char *p = s + n;
    int64_t frac = 0;
    if (*p == '.') {
        int digits = 0;
        for (p++; isdigit((unsigned char)*p); p++)
            if (digits < 9) {
                frac = frac * 10 + (*p - '0');
                digits++;
            }
        for (; digits < 9; digits++)
            frac *= 10;
    }
    int64_t off = 0;
    if (*p == '+' || *p == '-') {
        int oh, om;
        if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2)
            return false;
        off = (*p == '+' ? 1 : -1) * ((int64_t)oh * 3600 + om * 60);
    } else if (*p != 'Z' && *p != 'z') {
        return false;
    }
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    int64_t t = (int64_t)timegm(&tm) - off;
    *out = t * 1000000000LL + frac;
    return true;
}

/* QuotaV1Pod: not terminal, and not past deletionTimestamp + deletionGracePeriodSeconds. */
static bool quota_pod(const kg_json *pod, const rq_env *env)
{
    const char *phase = kg_json_get_str(kg_json_get(pod, "status"), "phase");
    if (phase && (kg_streq(phase, "Failed") || kg_streq(phase, "Succeeded")))
        return false;
    const char *dt = kg_json_get_str(kg_json_get(pod, "metadata"), "deletionTimestamp");
    const kg_json *grace = kg_json_get(kg_json_get(pod, "metadata"), "deletionGracePeriodSeconds");
    int64_t t;
    if (dt && kg_json_is(grace, KG_JSON_INT) && parse_time(dt, &t)) {
        int64_t deadline = t + grace->u.i * 1000000000LL;
        if (env->now_ns > deadline)
            return false;
    }
    return true;
}

static void pod_usage(kg_arena *ar, const kg_json *pod, const rq_env *env, kg_rlist *out)
{
    kg_rlist_set_int(ar, out, "count/pods", 1);
    if (!quota_pod(pod, env))
        return;
    kg_rlist req, lim;
    pod_totals(ar, pod, true, env, &req);
    pod_totals(ar, pod, false, env, &lim);
    compute_usage(ar, &req, &lim, out);
}

/* qos.GetPodQOS == BestEffort: no container (init included) and no pod-level resources request or limit a
 * non-zero cpu or memory. */
static bool res_has_compute(const kg_json *res)
{
    static const char *const keys[] = {"requests", "limits"};
    for (size_t k = 0; k < 2; k++) {
        const kg_json *l = kg_json_get(res, keys[k]);
        for (size_t i = 0; kg_json_is(l, KG_JSON_OBJECT) && i < l->len; i++) {
            const char *n = l->u.members[i].key;
            if (!kg_streq(n, "cpu") && !kg_streq(n, "memory"))
                continue;
            kg_quantity q;
            if (kg_quantity_from_json(l->u.members[i].val, &q, NULL) && kg_quantity_sign(&q) > 0)
                return true;
        }
    }
    return false;
}

static bool pod_best_effort(const kg_json *pod, const rq_env *env)
{
    static const char *const lists[] = {"containers", "initContainers"};
    const kg_json *spec = kg_json_get(pod, "spec");
    if (env->pod_level && res_has_compute(kg_json_get(spec, "resources")))
        return false;
    for (size_t k = 0; k < 2; k++) {
        const kg_json *cs = kg_json_get(spec, lists[k]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++)
            if (res_has_compute(kg_json_get(kg_json_at(cs, i), "resources")))
                return false;
    }
    return true;
}

static bool pod_terminating(const kg_json *pod)
{
    const kg_json *ads = kg_json_get(kg_json_get(pod, "spec"), "activeDeadlineSeconds");
    return kg_json_is(ads, KG_JSON_INT) && ads->u.i >= 0;
}

static bool cross_ns_terms(const kg_json *terms, bool weighted)
{
    for (size_t i = 0; kg_json_is(terms, KG_JSON_ARRAY) && i < terms->len; i++) {
        const kg_json *t = kg_json_at(terms, i);
        if (weighted)
            t = kg_json_get(t, "podAffinityTerm");
        const kg_json *nss = kg_json_get(t, "namespaces");
        const kg_json *nsel = kg_json_get(t, "namespaceSelector");
        if ((kg_json_is(nss, KG_JSON_ARRAY) && nss->len) || (nsel && !kg_json_is(nsel, KG_JSON_NULL)))
            return true;
    }
    return false;
}

static bool pod_cross_ns_affinity(const kg_json *pod)
{
    static const char *const kinds[] = {"podAffinity", "podAntiAffinity"};
    const kg_json *aff = kg_json_get(kg_json_get(pod, "spec"), "affinity");
    for (size_t k = 0; k < 2; k++) {
        const kg_json *a = kg_json_get(aff, kinds[k]);
        if (cross_ns_terms(kg_json_get(a, "requiredDuringSchedulingIgnoredDuringExecution"), false) ||
            cross_ns_terms(kg_json_get(a, "preferredDuringSchedulingIgnoredDuringExecution"), true))
            return true;
    }
    return false;
}

/* Go's %v of a ScopedResourceSelectorRequirement: {PriorityClass In [a b]}. */
char *kg_admission_rq_scope_string(kg_arena *ar, const rq_scope *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_printf(&b, "{%s %s [", s->name, s->op);
    for (size_t i = 0; i < s->nvalues; i++)
        kg_buf_printf(&b, "%s%s", i ? " " : "", s->values[i]);
    kg_buf_puts(&b, "]}");
    char *r = kg_arena_strdup(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

/* podMatchesSelector through ScopedResourceSelectorRequirementsAsSelector; -1 with *errmsg on a bad selector. */
static int pod_priority_selector(kg_arena *ar, const kg_json *pod, const rq_scope *s, const char **errmsg)
{
    kg_label_op op;
    if (kg_streq(s->op, "In"))
        op = KG_LOP_IN;
    else if (kg_streq(s->op, "NotIn"))
        op = KG_LOP_NOT_IN;
    else if (kg_streq(s->op, "Exists"))
        op = KG_LOP_EXISTS;
    else if (kg_streq(s->op, "DoesNotExist"))
        op = KG_LOP_DOES_NOT_EXIST;
    else {
        *errmsg = kg_arena_sprintf(ar,
                                   "failed to parse and convert selector: \"%s\" is not a valid scope selector "
                                   "operator",
                                   s->op);
        return -1;
    }
    kg_label_req req;
    KG_ERROR_DECL(e);
    if (!kg_label_req_new(ar, s->name, op, s->values, s->nvalues, &req, &e)) {
        *errmsg = kg_arena_sprintf(ar, "failed to parse and convert selector: %s", e.msg);
        return -1;
    }
    const char *pc = kg_json_get_str(kg_json_get(pod, "spec"), "priorityClassName");
    kg_json *labels = NULL;
    if (pc && pc[0]) {
        labels = kg_json_new_object(ar);
        kg_json_set(ar, labels, "PriorityClass", kg_json_new_str(ar, pc));
    }
    return kg_label_req_matches(&req, labels) ? 1 : 0;
}

int kg_admission_rq_match_scope(kg_arena *ar, const rq_evaluator *ev, const rq_scope *s, const kg_json *obj,
                                const rq_env *env, const char **errmsg)
{
    if (ev->kind != RQ_EV_POD)
        return 0; /* generic.MatchesNoScopeFunc */
    const char *n = s->name;
    if (kg_streq(n, "Terminating"))
        return pod_terminating(obj);
    if (kg_streq(n, "NotTerminating"))
        return !pod_terminating(obj);
    if (kg_streq(n, "BestEffort"))
        return pod_best_effort(obj, env);
    if (kg_streq(n, "NotBestEffort"))
        return !pod_best_effort(obj, env);
    if (kg_streq(n, "PriorityClass")) {
        if (kg_streq(s->op, "Exists")) {
            const char *pc = kg_json_get_str(kg_json_get(obj, "spec"), "priorityClassName");
            return pc && pc[0];
        }
        return pod_priority_selector(ar, obj, s, errmsg);
    }
    if (kg_streq(n, "CrossNamespacePodAffinity"))
        return pod_cross_ns_affinity(obj);
    return 0;
}

/* ---- services, PVCs, counts ---- */

static void service_usage(kg_arena *ar, const kg_json *svc, kg_rlist *out)
{
    kg_rlist_set_int(ar, out, "count/services", 1);
    kg_rlist_set_int(ar, out, "services", 1);
    const char *type = kg_json_get_str(kg_json_get(svc, "spec"), "type");
    const kg_json *ports = kg_json_get(kg_json_get(svc, "spec"), "ports");
    int64_t nports = kg_json_is(ports, KG_JSON_ARRAY) ? ports->len : 0;
    if (type && kg_streq(type, "NodePort")) {
        kg_rlist_set_int(ar, out, "services.nodeports", nports);
    } else if (type && kg_streq(type, "LoadBalancer")) {
        const kg_json *alloc = kg_json_get(kg_json_get(svc, "spec"), "allocateLoadBalancerNodePorts");
        if (kg_json_is(alloc, KG_JSON_BOOL) && !alloc->b) {
            int64_t with = 0;
            for (size_t i = 0; i < (size_t)nports; i++) {
                const kg_json *np = kg_json_get(kg_json_at(ports, i), "nodePort");
                if (kg_json_is(np, KG_JSON_INT) && np->u.i > 0)
                    with++;
            }
            kg_rlist_set_int(ar, out, "services.nodeports", with);
        } else {
            kg_rlist_set_int(ar, out, "services.nodeports", nports);
        }
        kg_rlist_set_int(ar, out, "services.loadbalancers", 1);
    }
}

static void pvc_usage(kg_arena *ar, const kg_json *pvc, const rq_env *env, kg_rlist *out)
{
    kg_rlist_set_int(ar, out, "persistentvolumeclaims", 1);
    kg_rlist_set_int(ar, out, "count/persistentvolumeclaims", 1);
    /* storagehelpers.GetPersistentVolumeClaimClass: the beta annotation wins over spec.storageClassName */
    const char *sc =
        kg_json_get_str(kg_json_get(kg_json_get(pvc, "metadata"), "annotations"), "volume.beta.kubernetes.io/storage-class");
    if (!sc)
        sc = kg_json_get_str(kg_json_get(pvc, "spec"), "storageClassName");
    if (sc && sc[0])
        kg_rlist_set_int(ar, out, kg_arena_sprintf(ar, "%s" SC_SUFFIX "persistentvolumeclaims", sc), 1);
    kg_quantity q, st;
    KG_ERROR_DECL(e);
    bool have = false;
    const kg_json *req = kg_json_get(kg_json_get(kg_json_get(pvc, "spec"), "resources"), "requests");
    if (kg_json_get(req, "storage") && kg_quantity_from_json(kg_json_get(req, "storage"), &q, &e)) {
        kg_quantity_round_up(&q, 0);
        have = true;
    }
    const kg_json *alloc = kg_json_get(kg_json_get(pvc, "status"), "allocatedResources");
    if (env->recover && kg_json_get(alloc, "storage") &&
        kg_quantity_from_json(kg_json_get(alloc, "storage"), &st, &e) && (!have || kg_quantity_cmp(&st, &q) > 0)) {
        q = st;
        kg_quantity_round_up(&q, 0);
        have = true;
    }
    if (have) {
        kg_rlist_set(ar, out, "requests.storage", &q);
        if (sc && sc[0])
            kg_rlist_set(ar, out, kg_arena_sprintf(ar, "%s" SC_SUFFIX "requests.storage", sc), &q);
    }
}

void kg_admission_rq_usage(kg_arena *ar, const rq_evaluator *ev, const kg_json *obj, const rq_env *env, kg_rlist *out)
{
    *out = (kg_rlist){0};
    switch (ev->kind) {
    case RQ_EV_POD: pod_usage(ar, obj, env, out); break;
    case RQ_EV_SERVICE: service_usage(ar, obj, out); break;
    case RQ_EV_PVC: pvc_usage(ar, obj, env, out); break;
    case RQ_EV_COUNT:
        kg_rlist_set_int(ar, out, ev->count_name, 1);
        if (ev->legacy_name)
            kg_rlist_set_int(ar, out, ev->legacy_name, 1);
        break;
    }
}

/* ---- pod constraints ---- */

typedef struct missing {
    const char *res;
    const char **names;
    size_t n, cap;
} missing;

const char *kg_admission_rq_constraints(kg_arena *ar, const rq_evaluator *ev, const char **required, size_t nrequired,
                                        const kg_json *obj, const rq_env *env)
{
    static const char *const validation[] = {"cpu",           "memory", "requests.cpu", "requests.memory", "limits.cpu",
                                             "limits.memory", NULL};
    if (ev->kind != RQ_EV_POD)
        return NULL;
    if (env->pod_level && pod_level_set(obj))
        return NULL;
    const char *req_set[8];
    size_t nreq = 0;
    for (size_t i = 0; i < nrequired && nreq < 8; i++) {
        if (!in_list(validation, required[i]))
            continue;
        bool dup = false;
        for (size_t j = 0; j < nreq; j++)
            dup |= kg_streq(req_set[j], required[i]);
        if (!dup)
            req_set[nreq++] = required[i];
    }
    if (!nreq)
        return NULL;
    missing miss[8] = {{0}};
    size_t nmiss = 0;
    for (size_t k = 0; k < 2; k++) {
        const kg_json *cs = kg_json_get(kg_json_get(obj, "spec"), k ? "initContainers" : "containers");
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
            const kg_json *c = kg_json_at(cs, i);
            const kg_rlist *req = container_res(ar, c, true, env), *lim = container_res(ar, c, false, env);
            for (size_t r = 0; r < nreq; r++) {
                /* podComputeUsageHelper of the container has cpu / requests.cpu (memory alike) for a request and
                 * limits.cpu for a limit: the only names in req_set */
                const char *want = req_set[r];
                bool is_limit = strncmp(want, "limits.", 7) == 0;
                const char *base = is_limit ? want + 7 : strncmp(want, "requests.", 9) == 0 ? want + 9 : want;
                if (kg_rlist_find(is_limit ? lim : req, base))
                    continue;
                missing *m = NULL;
                for (size_t j = 0; j < nmiss; j++)
                    if (kg_streq(miss[j].res, req_set[r]))
                        m = &miss[j];
                if (!m) {
                    m = &miss[nmiss++];
                    m->res = req_set[r];
                }
                if (m->n == m->cap) {
                    size_t cap = m->cap ? m->cap * 2 : 4;
                    const char **nn = kg_arena_alloc(ar, cap * sizeof *nn);
                    if (m->n)
                        memcpy(nn, m->names, m->n * sizeof *nn);
                    m->names = nn;
                    m->cap = cap;
                }
                m->names[m->n++] = kg_admission_pu_str(c, "name");
            }
        }
    }
    if (!nmiss)
        return NULL;
    const char *resn[8];
    for (size_t j = 0; j < nmiss; j++)
        resn[j] = miss[j].res;
    qsort(resn, nmiss, sizeof *resn, cmp_str);
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "must specify ");
    for (size_t j = 0; j < nmiss; j++) {
        missing *m = NULL;
        for (size_t x = 0; x < nmiss; x++)
            if (kg_streq(miss[x].res, resn[j]))
                m = &miss[x];
        if (j)
            kg_buf_puts(&b, "; ");
        kg_buf_printf(&b, "%s for: %s", m->res, kg_admission_rq_pretty_names(ar, m->names, m->n));
    }
    char *s = kg_arena_strdup(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}
