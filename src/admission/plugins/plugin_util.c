#include "admission/plugins/plugin_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/str.h"
#include "meta/names.h"
#include "base/hash.h"

bool kg_admission_pu_is(const kg_admission_attributes *a, const char *group, const char *resource)
{
    return kg_streq(a->resource.resource, resource) && kg_streq(a->resource.group, group) && !a->subresource[0];
}

bool kg_admission_pu_obj_kind(const kg_json *obj, const char *kind)
{
    if (!kg_json_is(obj, KG_JSON_OBJECT))
        return false;
    const kg_json *k = kg_json_get(obj, "kind");
    return !k || (kg_json_is(k, KG_JSON_STRING) && kg_streq(k->u.s, kind));
}

kg_status *kg_admission_pu_plain(kg_arena *ar, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = kg_arena_alloc(ar, (size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return kg_status_new(ar, 500, KG_REASON_UNKNOWN, s);
}

kg_json *kg_admission_pu_array(kg_arena *ar, kg_json *obj, const char *key)
{
    kg_json *v = kg_json_get(obj, key);
    if (!kg_json_is(v, KG_JSON_ARRAY)) {
        v = kg_json_new_array(ar);
        kg_json_set(ar, obj, key, v);
    }
    return v;
}

const char *kg_admission_pu_str(const kg_json *obj, const char *key)
{
    const char *s = kg_json_is(obj, KG_JSON_OBJECT) ? kg_json_get_str(obj, key) : NULL;
    return s ? s : "";
}

/* A toleration's fields (Go struct semantics: absent == ""). */
typedef struct tolv {
    const char *key, *op, *value, *eff;
    bool has_secs;
    int64_t secs;
} tolv;

static tolv tol_fields(const kg_json *t)
{
    tolv v = {kg_admission_pu_str(t, "key"),
              kg_admission_pu_str(t, "operator"),
              kg_admission_pu_str(t, "value"),
              kg_admission_pu_str(t, "effect"),
              false,
              0};
    const kg_json *s = kg_json_is(t, KG_JSON_OBJECT) ? kg_json_get(t, "tolerationSeconds") : NULL;
    if (kg_json_is(s, KG_JSON_INT)) {
        v.has_secs = true;
        v.secs = s->u.i;
    }
    return v;
}

static bool tolv_equal(const tolv *x, const tolv *y)
{
    return strcmp(x->key, y->key) == 0 && strcmp(x->op, y->op) == 0 && strcmp(x->value, y->value) == 0 &&
           strcmp(x->eff, y->eff) == 0 && x->has_secs == y->has_secs && x->secs == y->secs;
}

/* pkg/util/tolerations isSuperset(ss, t) */
static bool tolv_superset(const tolv *ss, const tolv *t)
{
    if (tolv_equal(ss, t))
        return true;
    if (strcmp(t->key, ss->key) != 0 && (ss->key[0] || strcmp(ss->op, "Exists") != 0))
        return false;
    if (strcmp(t->eff, ss->eff) != 0 && ss->eff[0])
        return false;
    if (strcmp(ss->eff, "NoExecute") == 0 && ss->has_secs && (!t->has_secs || t->secs > ss->secs))
        return false;
    if (!ss->op[0] || strcmp(ss->op, "Equal") == 0)
        return strcmp(t->op, "Equal") == 0 && strcmp(t->value, ss->value) == 0;
    return strcmp(ss->op, "Exists") == 0;
}

bool kg_admission_pu_tol_equal(const kg_json *x, const kg_json *y)
{
    tolv a = tol_fields(x), b = tol_fields(y);
    return tolv_equal(&a, &b);
}

bool kg_admission_pu_tol_superset(const kg_json *ss, const kg_json *t)
{
    tolv a = tol_fields(ss), b = tol_fields(t);
    return tolv_superset(&a, &b);
}

static uint64_t str_hash(const char *s)
{
    return kg_fnv1a64_str(s);
}

/* MergeTolerations(first, second): over all = first ++ second, keep t unless an already kept toleration or a later
 * one that differs from t is a superset of t. A superset of t has t's key or is the wildcard {key: "", Exists}, so
 * only those candidates are compared (tolerations bucketed by key), not every pair. */
kg_json *kg_admission_pu_merge_tolerations(kg_arena *ar, const kg_json *first, const kg_json *second)
{
    size_t n1 = kg_json_is(first, KG_JSON_ARRAY) ? first->len : 0;
    size_t n2 = kg_json_is(second, KG_JSON_ARRAY) ? second->len : 0, n = n1 + n2;
    kg_json *merged = kg_json_new_array(ar);
    if (!n)
        return merged;
    size_t nb = 8;
    while (nb < 2 * n)
        nb *= 2;
    tolv *v = kg_arena_alloc(ar, n * sizeof *v);
    const kg_json **items = kg_arena_alloc(ar, n * sizeof *items);
    size_t *head = kg_arena_alloc(ar, nb * sizeof *head), *next = kg_arena_alloc(ar, n * sizeof *next);
    bool *kept = kg_arena_alloc(ar, n * sizeof *kept);
    size_t wild = SIZE_MAX, *wnext = kg_arena_alloc(ar, n * sizeof *wnext);
    for (size_t b = 0; b < nb; b++)
        head[b] = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        items[i] = i < n1 ? kg_json_at(first, i) : kg_json_at(second, i - n1);
        v[i] = tol_fields(items[i]);
        kept[i] = false;
    }
    for (size_t i = n; i-- > 0;) { /* prepend from the back: every list is in index order */
        size_t b = str_hash(v[i].key) & (nb - 1);
        next[i] = head[b];
        head[b] = i;
        if (!v[i].key[0] && strcmp(v[i].op, "Exists") == 0) {
            wnext[i] = wild;
            wild = i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        bool skip = false;
        for (int pass = 0; pass < 2 && !skip; pass++) {
            /* pass 0: same key; pass 1: wildcards (already seen in pass 0 when t's key is "") */
            if (pass == 1 && !v[i].key[0])
                break;
            size_t j = pass == 0 ? head[str_hash(v[i].key) & (nb - 1)] : wild;
            for (; j != SIZE_MAX && !skip; j = pass == 0 ? next[j] : wnext[j]) {
                if (j == i || (pass == 0 && strcmp(v[j].key, v[i].key) != 0))
                    continue;
                if (j < i)
                    skip = kept[j] && tolv_superset(&v[j], &v[i]);
                else
                    skip = !tolv_equal(&v[i], &v[j]) && tolv_superset(&v[j], &v[i]);
            }
        }
        if (!skip) {
            kept[i] = true;
            kg_json_array_append(ar, merged, (kg_json *)items[i]);
        }
    }
    return merged;
}

kg_json *kg_admission_pu_toleration(kg_arena *ar, const char *key, const char *op, const char *effect, int64_t s)
{
    kg_json *t = kg_json_new_object(ar);
    kg_json_set(ar, t, "key", kg_json_new_str(ar, key));
    kg_json_set(ar, t, "operator", kg_json_new_str(ar, op));
    kg_json_set(ar, t, "effect", kg_json_new_str(ar, effect));
    if (s >= 0)
        kg_json_set(ar, t, "tolerationSeconds", kg_json_new_int(ar, s));
    return t;
}

static bool ann_true(const kg_json *item, const char *ann)
{
    if (!ann)
        return false;
    const kg_json *anns = kg_json_get(kg_json_get(item, "metadata"), "annotations");
    const char *v = kg_json_is(anns, KG_JSON_OBJECT) ? kg_json_get_str(anns, ann) : NULL;
    return v && strcmp(v, "true") == 0;
}

const kg_json *kg_admission_pu_default_class(const kg_json *list, const char *ann1, const char *ann2)
{
    const kg_json *best = NULL;
    const char *bts = "", *bname = "";
    for (size_t i = 0; kg_json_is(list, KG_JSON_ARRAY) && i < list->len; i++) {
        const kg_json *c = kg_json_at(list, i);
        if (!ann_true(c, ann1) && !ann_true(c, ann2))
            continue;
        const char *ts = kg_json_get_str(kg_json_get(c, "metadata"), "creationTimestamp");
        const char *name = kg_json_get_str(kg_json_get(c, "metadata"), "name");
        ts = ts ? ts : "";
        name = name ? name : "";
        /* RFC 3339 UTC timestamps ("2024-01-02T03:04:05Z") order lexicographically */
        int cmp = best ? strcmp(ts, bts) : 1;
        if (cmp > 0 || (cmp == 0 && strcmp(name, bname) < 0)) {
            best = c;
            bts = ts;
            bname = name;
        }
    }
    return best;
}

const kg_json *kg_admission_pu_get_namespace(const kg_admission_services *svc, kg_arena *ar, const char *ns, kg_status **st)
{
    KG_ERROR_DECL(e);
    const kg_json *n = kg_admission_view_obj(svc, ar, "namespaces", "", ns, &e);
    if (n)
        return n;
    if (e.code != KG_ENOTFOUND) {
        *st = kg_status_internal(ar, e.msg);
        return NULL;
    }
    kg_err_clear(&e);
    n = kg_admission_get(svc, ar, "namespaces", "", ns, KG_ADMISSION_GET_LIVE, &e);
    if (n)
        return n;
    *st = e.code == KG_ENOTFOUND ? kg_status_not_found(ar, KG_GR("", "namespaces"), ns) : kg_status_internal(ar, e.msg);
    return NULL;
}

char *kg_admission_pu_quote(kg_arena *ar, const char *s)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            kg_buf_putc(&b, '\\');
            kg_buf_putc(&b, (char)*p);
        } else if (*p == '\n') {
            kg_buf_puts(&b, "\\n");
        } else if (*p == '\t') {
            kg_buf_puts(&b, "\\t");
        } else if (*p < 0x20 || *p == 0x7f) {
            char tmp[8];
            snprintf(tmp, sizeof tmp, "\\x%02x", *p);
            kg_buf_puts(&b, tmp);
        } else {
            kg_buf_putc(&b, (char)*p);
        }
    }
    kg_buf_putc(&b, '"');
    char *r = kg_arena_strdup(ar, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

kg_json *kg_admission_pu_selector_map(kg_arena *ar, const char *s, const char **errmsg)
{
    kg_json *m = kg_json_new_object(ar);
    if (!s || !*s)
        return m;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *item = kg_arena_alloc(ar, n + 1);
        memcpy(item, p, n);
        item[n] = 0;
        char *eq = strchr(item, '=');
        if (!eq || strchr(eq + 1, '=')) {
            /* Go prints the []string from strings.Split(label, "="): "[a b c]" */
            kg_buf b = KG_BUF_INIT;
            kg_buf_puts(&b, "invalid selector: [");
            for (const char *q = item; *q; q++)
                kg_buf_putc(&b, *q == '=' ? ' ' : *q);
            kg_buf_putc(&b, ']');
            *errmsg = kg_arena_strdup(ar, kg_buf_cstr(&b));
            kg_buf_free(&b);
            return NULL;
        }
        *eq = 0;
        kg_str k = kg_str_trim(kg_str_c(item)), v = kg_str_trim(kg_str_c(eq + 1));
        char *key = kg_arena_alloc(ar, k.n + 1), *val = kg_arena_alloc(ar, v.n + 1);
        memcpy(key, k.p, k.n);
        key[k.n] = 0;
        memcpy(val, v.p, v.n);
        val[v.n] = 0;
        kg_name_errs ne = {0};
        kg_field_errors fe = KG_FIELD_ERRORS_INIT;
        if (!kg_is_qualified_name(key, &ne)) {
            *errmsg = kg_field_error_string(ar, kg_field_invalid(ar, &fe, "", key, kg_name_errs_join(ar, &ne, "; ")));
            return NULL;
        }
        if (!kg_is_valid_label_value(val, &ne)) {
            *errmsg = kg_field_error_string(ar, kg_field_invalid(ar, &fe, "", val, kg_name_errs_join(ar, &ne, "; ")));
            return NULL;
        }
        kg_json_set(ar, m, key, kg_json_new_str(ar, val));
        if (!end)
            break;
        p = end + 1;
    }
    return m;
}

bool kg_admission_pu_labels_conflict(const kg_json *x, const kg_json *y)
{
    for (size_t i = 0; kg_json_is(x, KG_JSON_OBJECT) && i < x->len; i++) {
        const char *yv = kg_json_is(y, KG_JSON_OBJECT) ? kg_json_get_str(y, x->u.members[i].key) : NULL;
        const kg_json *xv = x->u.members[i].val;
        if (yv && (!kg_json_is(xv, KG_JSON_STRING) || strcmp(xv->u.s, yv) != 0))
            return true;
    }
    return false;
}

void kg_admission_pu_strset_add(kg_arena *ar, kg_admission_pu_strset *s, const char *str)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 8;
        const char **v = kg_arena_alloc(ar, nc * sizeof *v);
        if (s->n)
            memcpy(v, s->v, s->n * sizeof *v);
        s->v = v;
        s->cap = nc;
    }
    s->v[s->n++] = str;
}

static int cmp_strp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void kg_admission_pu_strset_seal(kg_admission_pu_strset *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp_strp);
}

bool kg_admission_pu_strset_has(const kg_admission_pu_strset *s, const char *str)
{
    return s->n && bsearch(&str, s->v, s->n, sizeof *s->v, cmp_strp) != NULL;
}
