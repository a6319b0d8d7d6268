#include "admission/attributes.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "admission/plugin.h"
#include "admission/services.h"
#include "meta/names.h"

static const char *const k_op_names[] = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

const char *kg_admission_op_name(kg_admission_op op)
{
    switch (op) {
    case KG_ADMISSION_CREATE: return k_op_names[0];
    case KG_ADMISSION_UPDATE: return k_op_names[1];
    case KG_ADMISSION_DELETE: return k_op_names[2];
    case KG_ADMISSION_CONNECT: return k_op_names[3];
    }
    return "";
}

bool kg_admission_op_parse(const char *s, kg_admission_op *out)
{
    for (unsigned i = 0; s && i < 4; i++) {
        if (strcmp(s, k_op_names[i]) == 0) {
            *out = (kg_admission_op)(1u << i);
            return true;
        }
    }
    return false;
}

void kg_admission_attrs_init(kg_admission_attributes *a, kg_arena *arena)
{
    memset(a, 0, sizeof *a);
    a->arena = arena;
    a->kind = (kg_gvk){"", "", ""};
    a->resource = (kg_gvr){"", "", ""};
    a->subresource = "";
    a->name = "";
    a->ns = "";
    a->user.name = "";
    a->user.uid = "";
    a->uid = "";
    a->request_kind = a->kind;
    a->request_resource = a->resource;
    a->request_subresource = "";
    a->annotations = kg_json_new_object(arena);
}

void kg_admission_warn(const kg_admission_attributes *a, const char *text)
{
    if (a->warnings)
        kg_warnings_add(a->warnings, text);
}

void kg_admission_trace(const kg_admission_attributes *a, const kg_trace_event *ev)
{
    if (a->tracer)
        a->tracer->event(a->tracer->ud, ev);
}

const char *kg_trace_verdict_name(kg_trace_verdict v)
{
    static const char *const names[] = {"admitted", "mutated", "denied", "warned", "skipped"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "";
}

void **kg_admission_request_ctx(const kg_admission_attributes *a)
{
    if (!a->ctx_slots || a->slot >= a->nslots)
        return NULL;
    return &a->ctx_slots[a->slot];
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

bool kg_admission_is_namespace_kind(const kg_admission_attributes *a)
{
    return nz(a->kind.group)[0] == '\0' && strcmp(nz(a->kind.kind), "Namespace") == 0;
}

const char *kg_admission_forbidden_name(const kg_admission_attributes *a)
{
    if (nz(a->name)[0])
        return a->name;
    if (a->object) {
        const kg_json *md = kg_json_get(a->object, "metadata");
        if (!kg_json_is(md, KG_JSON_OBJECT))
            return "Unknown/errorGettingName"; /* not every object has ObjectMeta (e.g. Scale) */
        const char *n = kg_json_get_str(md, "name");
        if (n && n[0])
            return n;
        n = kg_json_get_str(md, "generateName");
        if (n && n[0])
            return n;
    }
    return "Unknown";
}

kg_status *kg_admission_forbidden(const kg_admission_attributes *attrs, const char *fmt, ...)
{
    char msg[KG_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kg_status_forbidden(attrs->arena, KG_GR(nz(attrs->resource.group), nz(attrs->resource.resource)),
                               kg_admission_forbidden_name(attrs), msg);
}

kg_status *kg_admission_forbidden_status(const kg_admission_attributes *attrs, kg_status *st)
{
    if (!st || kg_status_is(st, KG_REASON_FORBIDDEN))
        return st;
    return kg_admission_forbidden(attrs, "%s", nz(st->message));
}

/* ---- audit annotations ---- */

bool kg_admission_add_annotation(const kg_admission_attributes *a, const char *key, const char *value,
                                 kg_error *err)
{
    const char *slash = strchr(key, '/');
    if (!slash || strchr(slash + 1, '/'))
        return kg_err_set(err, KG_EINVAL,
                          "annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and "
                          "key name. (e.g. 'podsecuritypolicy.admission.k8s.io/admit-policy')");
    /* a DNS-1123 subdomain prefix and a qualified name part (the slash rules out a second prefix) */
    if (!kg_is_dns1123_subdomain_n(key, (size_t)(slash - key), NULL) || !kg_is_qualified_name(slash + 1, NULL))
        return kg_err_set(err, KG_EINVAL,
                          "annotation key has invalid format %s. A qualified name like "
                          "'podsecuritypolicy.admission.k8s.io/admit-policy' is required.",
                          key);
    if (!a->annotations)
        return kg_err_set(err, KG_EINVAL, "audit annotations: attributes not initialised with kg_admission_attrs_init");
    const char *old = kg_json_get_str(a->annotations, key);
    if (old) {
        if (strcmp(old, value) == 0)
            return true;
        return kg_err_set(err, KG_EINVAL,
                          "admission annotations are not allowed to be overridden, key:\"%s\", old value: \"%s\", new "
                          "value:\"%s\"",
                          key, old, value);
    }
    kg_json_set(a->arena, a->annotations, key, kg_json_new_str(a->arena, value));
    return true;
}

/* ---- services helpers ---- */

int64_t kg_admission_now_ns(const kg_admission_services *s)
{
    if (s && s->now_ns)
        return s->now_ns(s->ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void kg_admission_sleep_ns(const kg_admission_services *s, int64_t ns)
{
    if (s && s->sleep_ns) {
        s->sleep_ns(s->ctx, ns);
        return;
    }
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

bool kg_admission_wait_ready(const kg_admission_services *s, const char *resource)
{
    /* upstream: wait.PollImmediate(100ms, 10s, readyFunc) then readyFunc() */
    for (int i = 0; i < 100; i++) {
        if (kg_admission_ready(s, resource))
            return true;
        kg_admission_sleep_ns(s, 100 * 1000000LL);
    }
    return kg_admission_ready(s, resource);
}

kg_json_shared *kg_admission_view(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                                  const char *name, kg_error *err)
{
    if (s && s->view)
        return s->view(s->ctx, a, resource, ns ? ns : "", name, err);
    kg_json *o = kg_admission_get(s, a, resource, ns, name, 0, err);
    return o ? kg_json_shared_new_pinned(a, o) : NULL;
}

size_t kg_admission_view_list(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                              kg_json_shared ***out, kg_error *err)
{
    if (s && s->view_list)
        return s->view_list(s->ctx, a, resource, ns ? ns : "", out, err);
    kg_json *arr = kg_admission_list(s, a, resource, ns, 0, err);
    if (!arr)
        return (size_t)-1;
    kg_json_shared **v = kg_arena_alloc(a, (arr->len + 1) * sizeof *v);
    for (uint32_t i = 0; i < arr->len; i++)
        v[i] = kg_json_shared_new_pinned(a, kg_json_at(arr, i));
    *out = v;
    return arr->len;
}

const kg_json *kg_admission_view_obj(const kg_admission_services *s, kg_arena *a, const char *resource, const char *ns,
                                     const char *name, kg_error *err)
{
    kg_json_shared *v = kg_admission_view(s, a, resource, ns, name, err);
    return v ? kg_json_shared_root(v) : NULL;
}

const kg_json *kg_admission_view_array(const kg_admission_services *s, kg_arena *a, const char *resource,
                                       const char *ns, kg_error *err)
{
    kg_json_shared **v;
    size_t n = kg_admission_view_list(s, a, resource, ns, &v, err);
    if (n == (size_t)-1)
        return NULL;
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++) /* the array is read-only to its users: the items stay shared */
        kg_json_array_append(a, arr, (kg_json *)kg_json_shared_root(v[i]));
    return arr;
}

bool kg_admission_resource_for_kind(const kg_admission_services *s, kg_arena *a, const char *group, const char *version,
                                    const char *kind, const char **plural, bool *namespaced)
{
    if (s && s->resource_for_kind)
        return s->resource_for_kind(s->ctx, group, version, kind, plural, namespaced);
    size_t n = strlen(kind);
    if (!n)
        return false;
    char *p = kg_arena_alloc(a, n + 4);
    for (size_t i = 0; i < n; i++)
        p[i] = (char)tolower((unsigned char)kind[i]);
    if (p[n - 1] == 's')
        strcpy(p + n, "es");
    else if (p[n - 1] == 'y')
        strcpy(p + n - 1, "ies");
    else
        strcpy(p + n, "s");
    *plural = p;
    *namespaced = true;
    return true;
}
