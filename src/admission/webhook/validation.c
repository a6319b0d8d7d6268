/* Write-time validation of webhook configurations (validation.h): one function per upstream validator, in upstream's
 * order, so a configuration with several problems lists them as kube-apiserver does. */
#include "admission/webhook/validation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "admission/match/conditions.h"
#include "admission/match/rules_validate.h"
#include "meta/labels.h"
#include "meta/names.h"

typedef struct vctx {
    kg_arena *a;
    kg_field_errors *errs;
    bool allow_invalid_side_effects; /* update whose old object already had Some/Unknown */
    bool require_known_versions;     /* false when the old object already had no known review version */
    bool require_unique_names;       /* false when the old object already had duplicate names */
} vctx;

static const char *path(vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *path(vctx *v, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return kg_arena_strdup(v->a, buf);
}

static bool in(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        if (!strcmp(s, set[i]))
            return true;
    return false;
}

static const char *nz(const char *s)
{
    return s ? s : "";
}

static size_t arr_len(const kg_json *arr)
{
    return kg_json_is(arr, KG_JSON_ARRAY) ? arr->len : 0;
}

static const char *str_at(const kg_json *arr, size_t i)
{
    const kg_json *s = kg_json_at(arr, i);
    return kg_json_is(s, KG_JSON_STRING) ? s->u.s : "";
}

/* Go's %#v of a []string, as field.Invalid prints list values: []string{"a", "b"}. */
static const char *go_strings(kg_arena *a, const kg_json *arr)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "[]string{");
    for (size_t i = 0; i < arr_len(arr); i++) {
        if (i)
            kg_buf_puts(&b, ", ");
        kg_meta_quote(&b, str_at(arr, i), strlen(str_at(arr, i)));
    }
    kg_buf_putc(&b, '}');
    const char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* ---- names ---- */

/* utilvalidation.IsFullyQualifiedName */
static void fully_qualified_name(vctx *v, const char *field, const char *name)
{
    if (!name || !name[0]) {
        kg_field_required(v->a, v->errs, field, "");
        return;
    }
    size_t n = strlen(name);
    if (name[n - 1] == '.')
        n--;
    kg_name_errs ne = {0};
    if (!kg_is_dns1123_subdomain_n(name, n, &ne)) {
        kg_field_invalid(v->a, v->errs, field, kg_arena_strndup(v->a, name, n), kg_name_errs_join(v->a, &ne, ","));
        return;
    }
    size_t dots = 0;
    for (size_t i = 0; i < n; i++)
        dots += name[i] == '.';
    if (dots < 2)
        kg_field_invalid(v->a, v->errs, field, kg_arena_strndup(v->a, name, n),
                         "should be a domain with at least three segments separated by dots");
}

/* ---- clientConfig ---- */

/* ValidateWebhookURL with forceHttps, over a Go-url.Parse-like split: scheme "://" [user "@"] host path ?query #frag */
static void webhook_url(vctx *v, const char *fp, const char *url)
{
    static const char form[] = "; desired format: https://host[/path]";
    const char *frag = strchr(url, '#');
    size_t end = frag ? (size_t)(frag - url) : strlen(url);
    const char *q = memchr(url, '?', end);
    size_t rest_end = q ? (size_t)(q - url) : end;
    const char *scheme = "", *after = url;
    const char *colon = memchr(url, ':', rest_end);
    if (colon && colon > url) {
        bool ok = true;
        for (const char *p = url; p < colon; p++)
            ok &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (p > url && ((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.'));
        if (ok) {
            scheme = kg_arena_strndup(v->a, url, (size_t)(colon - url));
            after = colon + 1;
        }
    }
    const char *host = "", *user = NULL;
    if (!strncmp(after, "//", 2) && after + 2 <= url + rest_end) {
        const char *auth = after + 2;
        const char *slash = memchr(auth, '/', (size_t)(url + rest_end - auth));
        size_t alen = slash ? (size_t)(slash - auth) : (size_t)(url + rest_end - auth);
        const char *at = NULL;
        for (size_t i = 0; i < alen; i++)
            if (auth[i] == '@')
                at = auth + i;
        if (at) {
            user = kg_arena_strndup(v->a, auth, (size_t)(at - auth));
            host = kg_arena_strndup(v->a, at + 1, alen - (size_t)(at + 1 - auth));
        } else {
            host = kg_arena_strndup(v->a, auth, alen);
        }
    }
    char *lower = kg_arena_strdup(v->a, scheme);
    for (char *p = lower; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (strcmp(lower, "https") != 0)
        kg_field_invalid(v->a, v->errs, fp, lower, path(v, "'https' is the only allowed URL scheme%s", form));
    if (!host[0])
        kg_field_invalid(v->a, v->errs, fp, host, path(v, "host must be specified%s", form));
    if (user)
        kg_field_invalid(v->a, v->errs, fp, user, "user information is not permitted in the URL");
    if (frag && frag[1])
        kg_field_invalid(v->a, v->errs, fp, frag + 1, "fragments are not permitted in the URL");
    if (q && (size_t)(q - url) + 1 < end)
        kg_field_invalid(v->a, v->errs, fp, kg_arena_strndup(v->a, q + 1, end - (size_t)(q - url) - 1),
                         "query parameters are not permitted in the URL");
}

/* ValidateWebhookService */
static void webhook_service(vctx *v, const char *fp, const kg_json *svc)
{
    const char *name = kg_json_get_str(svc, "name"), *ns = kg_json_get_str(svc, "namespace");
    if (!name || !name[0])
        kg_field_required(v->a, v->errs, path(v, "%s.name", fp), "service name is required");
    if (!ns || !ns[0])
        kg_field_required(v->a, v->errs, path(v, "%s.namespace", fp), "service namespace is required");
    const kg_json *port = kg_json_get(svc, "port");
    int64_t p = kg_json_is(port, KG_JSON_INT) ? port->u.i : 443;
    kg_name_errs ne = {0};
    if (!kg_is_valid_port_num(p, &ne))
        kg_field_invalid_int(v->a, v->errs, path(v, "%s.port", fp), p,
                             path(v, "port is not valid: %s", kg_name_errs_join(v->a, &ne, ", ")));
    const char *up = kg_json_get_str(svc, "path");
    if (!up || !up[0] || !strcmp(up, "/"))
        return;
    const char *pf = path(v, "%s.path", fp);
    if (!strcmp(up, "//")) {
        kg_field_invalid(v->a, v->errs, pf, up, "segment[0] may not be empty");
        return;
    }
    if (up[0] != '/')
        kg_field_invalid(v->a, v->errs, pf, up, "must start with a '/'");
    const char *s = up + 1; /* upstream drops the first byte whether or not it is a '/' */
    size_t n = strlen(s);
    if (n && s[n - 1] == '/')
        n--;
    size_t seg = 0;
    for (size_t start = 0;; seg++) {
        const char *sl = memchr(s + start, '/', n - start);
        size_t len = sl ? (size_t)(sl - (s + start)) : n - start;
        if (!len) {
            kg_field_invalid(v->a, v->errs, pf, up, path(v, "segment[%zu] may not be empty", seg));
        } else {
            kg_name_errs se = {0};
            if (!kg_is_dns1123_subdomain_n(s + start, len, &se))
                for (size_t i = 0; i < se.n; i++)
                    kg_field_invalid(v->a, v->errs, pf, up, path(v, "segment[%zu]: %s", seg, se.msg[i]));
        }
        if (!sl)
            break;
        start += len + 1;
    }
}

static void client_config(vctx *v, const char *fp, const kg_json *cc)
{
    const kg_json *url = kg_json_get(cc, "url"), *svc = kg_json_get(cc, "service");
    bool has_url = url && url->type != KG_JSON_NULL, has_svc = svc && svc->type != KG_JSON_NULL;
    if (has_url == has_svc)
        kg_field_required(v->a, v->errs, path(v, "%s.clientConfig", fp), "exactly one of url or service is required");
    else if (has_url)
        webhook_url(v, path(v, "%s.clientConfig.url", fp), kg_json_is(url, KG_JSON_STRING) ? url->u.s : "");
    else
        webhook_service(v, path(v, "%s.clientConfig.service", fp), svc);
}

/* ---- the rest of one webhook ---- */

static void selector(vctx *v, const char *fp, const kg_json *sel)
{
    if (!sel || sel->type == KG_JSON_NULL)
        return;
    kg_label_selector ls;
    KG_ERROR_DECL(e);
    if (!kg_label_selector_from_json(v->a, sel, &ls, &e))
        kg_field_invalid_raw(v->a, v->errs, fp, "{...}", e.msg);
}

/* Names, expressions and the CEL compile with the compiler's message, through the shared condition compiler. Upstream
 * does not recompile unchanged conditions on update; kgate compiles them again (a condition that compiled once
 * compiles again: same environment). */
static void match_conditions(vctx *v, const char *fp, const kg_json *mcs)
{
    kg_match_conditions mc;
    kg_match_conditions_compile(&mc, v->a, mcs, false, fp, v->errs);
    kg_match_conditions_free(&mc);
}

static void webhook(vctx *v, const char *fp, const kg_json *h, bool mutating)
{
    static const char *const failure[] = {"Fail", "Ignore"};
    static const char *const match[] = {"Equivalent", "Exact"};
    static const char *const none[] = {"None", "NoneOnDryRun"};
    static const char *const reinv[] = {"IfNeeded", "Never"};
    fully_qualified_name(v, path(v, "%s.name", fp), kg_json_get_str(h, "name"));
    const kg_json *rules = kg_json_get(h, "rules");
    for (size_t i = 0; i < arr_len(rules); i++)
        kg_match_rule_validate(v->a, kg_json_at(rules, i), path(v, "%s.rules[%zu]", fp, i), false, v->errs);
    const char *fpol = kg_json_get_str(h, "failurePolicy"), *mpol = kg_json_get_str(h, "matchPolicy");
    if (fpol && !in(fpol, failure, 2))
        kg_field_not_supported(v->a, v->errs, path(v, "%s.failurePolicy", fp), fpol, failure, 2);
    if (mpol && !in(mpol, match, 2))
        kg_field_not_supported(v->a, v->errs, path(v, "%s.matchPolicy", fp), mpol, match, 2);
    const char *se = kg_json_get_str(h, "sideEffects");
    if (!se)
        kg_field_required(v->a, v->errs, path(v, "%s.sideEffects", fp), "must specify one of None, NoneOnDryRun");
    else if (!in(se, none, 2) && !v->allow_invalid_side_effects)
        kg_field_not_supported(v->a, v->errs, path(v, "%s.sideEffects", fp), se, none, 2);
    const kg_json *to = kg_json_get(h, "timeoutSeconds");
    if (kg_json_is(to, KG_JSON_INT) && (to->u.i > 30 || to->u.i < 1))
        kg_field_invalid_int(v->a, v->errs, path(v, "%s.timeoutSeconds", fp), to->u.i,
                             "the timeout value must be between 1 and 30 seconds");
    selector(v, path(v, "%s.namespaceSelector", fp), kg_json_get(h, "namespaceSelector"));
    selector(v, path(v, "%s.objectSelector", fp), kg_json_get(h, "objectSelector"));
    if (mutating) {
        const char *rp = kg_json_get_str(h, "reinvocationPolicy");
        if (rp && !in(rp, reinv, 2))
            kg_field_not_supported(v->a, v->errs, path(v, "%s.reinvocationPolicy", fp), rp, reinv, 2);
    }
    client_config(v, fp, kg_json_get(h, "clientConfig"));
    match_conditions(v, path(v, "%s.matchConditions", fp), kg_json_get(h, "matchConditions"));
}

static void review_versions(vctx *v, const char *fp, const kg_json *vs)
{
    static const char *const known[] = {"v1", "v1beta1"};
    size_t n = arr_len(vs);
    if (!n) {
        kg_field_required(v->a, v->errs, fp, "must specify one of v1, v1beta1");
        return;
    }
    bool accepted = false;
    for (size_t i = 0; i < n; i++) {
        const char *s = str_at(vs, i);
        bool dup = false;
        for (size_t k = 0; k < i && !dup; k++)
            dup = !strcmp(str_at(vs, k), s);
        if (dup) {
            kg_field_invalid(v->a, v->errs, path(v, "%s[%zu]", fp, i), s, "duplicate version");
            continue;
        }
        kg_name_errs ne = {0};
        if (!kg_is_dns1035_label_n(s, strlen(s), &ne))
            for (size_t k = 0; k < ne.n; k++)
                kg_field_invalid(v->a, v->errs, path(v, "%s[%zu]", fp, i), s, ne.msg[k]);
        accepted |= in(s, known, 2);
    }
    if (v->require_known_versions && !accepted)
        kg_field_invalid_raw(v->a, v->errs, fp, go_strings(v->a, vs), "must include at least one of v1, v1beta1");
}

/* ---- update leniency: what the old object already violated stays allowed ---- */

static void leniency(vctx *v, const kg_json *old)
{
    v->require_known_versions = true;
    v->require_unique_names = true;
    v->allow_invalid_side_effects = false;
    const kg_json *hooks = old ? kg_json_get(old, "webhooks") : NULL;
    for (size_t i = 0; i < arr_len(hooks); i++) {
        const kg_json *h = kg_json_at(hooks, i);
        const char *se = kg_json_get_str(h, "sideEffects");
        if (se && strcmp(se, "None") && strcmp(se, "NoneOnDryRun"))
            v->allow_invalid_side_effects = true;
        const kg_json *vs = kg_json_get(h, "admissionReviewVersions");
        bool known = false;
        for (size_t k = 0; k < arr_len(vs); k++)
            known |= !strcmp(str_at(vs, k), "v1") || !strcmp(str_at(vs, k), "v1beta1");
        if (!known)
            v->require_known_versions = false;
        for (size_t k = 0; k < i; k++)
            if (!strcmp(nz(kg_json_get_str(kg_json_at(hooks, k), "name")), nz(kg_json_get_str(h, "name"))))
                v->require_unique_names = false;
    }
}

void kg_webhook_validate_configuration(kg_arena *a, const kg_json *obj, const kg_json *old, bool mutating,
                                       kg_field_errors *errs)
{
    vctx v = {.a = a, .errs = errs};
    leniency(&v, old);
    const kg_json *hooks = kg_json_get(obj, "webhooks");
    size_t n = arr_len(hooks);
    const char **names = kg_arena_alloc(a, (n + 1) * sizeof(char *));
    size_t nnames = 0;
    for (size_t i = 0; i < n; i++) {
        const kg_json *h = kg_json_at(hooks, i);
        webhook(&v, path(&v, "webhooks[%zu]", i), h, mutating);
        review_versions(&v, path(&v, "webhooks[%zu].admissionReviewVersions", i),
                        kg_json_get(h, "admissionReviewVersions"));
        const char *name = kg_json_get_str(h, "name");
        if (v.require_unique_names && name && name[0]) {
            if (in(name, names, nnames))
                kg_field_duplicate(a, errs, path(&v, "webhooks[%zu].name", i), name);
            else
                names[nnames++] = name;
        }
    }
}

void kg_webhook_validate_mutating(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_webhook_validate_configuration(a, obj, old, true, errs);
}

void kg_webhook_validate_validating(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_webhook_validate_configuration(a, obj, old, false, errs);
}
