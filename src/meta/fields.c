/* Field selectors following k8s.io/apimachinery/pkg/fields/selector.go. */
#include "meta/fields.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool kg_fields_unescape_value(kg_arena *a, const char *s, char **out, kg_error *err)
{
    if (!strpbrk(s, "\\,=")) {
        *out = kg_arena_strdup(a, s);
        return true;
    }
    size_t n = strlen(s);
    char *v = kg_arena_alloc(a, n + 1), *p = v;
    bool in_slash = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (in_slash) {
            if (c == '\\' || c == ',' || c == '=') {
                *p++ = c;
            } else {
                /* the sequence is a backslash plus one (possibly multi-byte) rune */
                size_t len = 1;
                unsigned char u = (unsigned char)c;
                if (u >= 0xf0)
                    len = 4;
                else if (u >= 0xe0)
                    len = 3;
                else if (u >= 0xc0)
                    len = 2;
                if (i + len > n)
                    len = n - i;
                return kg_err_set(err, KG_EINVAL, "invalid field selector: invalid escape sequence: \\%.*s", (int)len,
                                  s + i);
            }
            in_slash = false;
            continue;
        }
        if (c == '\\')
            in_slash = true;
        else if (c == ',' || c == '=')
            return kg_err_set(err, KG_EINVAL, "invalid field selector: unescaped character in value: %d", c);
        else
            *p++ = c;
    }
    if (in_slash)
        return kg_err_set(err, KG_EINVAL, "invalid field selector: invalid escape sequence: \\");
    *p = 0;
    *out = v;
    return true;
}

char *kg_fields_escape_value(kg_arena *a, const char *s)
{
    size_t n = strlen(s), extra = 0;
    for (size_t i = 0; i < n; i++)
        extra += (s[i] == '\\' || s[i] == ',' || s[i] == '=');
    char *out = kg_arena_alloc(a, n + extra + 1), *p = out;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == ',' || s[i] == '=')
            *p++ = '\\';
        *p++ = s[i];
    }
    *p = 0;
    return out;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

bool kg_fields_parse(kg_arena *a, const char *s, kg_field_selector *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(s);
    if (n == 0)
        return true;
    /* splitTerms: commas not preceded by an escaping backslash */
    size_t nterms = 1;
    for (size_t i = 0, in_slash = 0; i < n; i++) {
        if (in_slash)
            in_slash = 0;
        else if (s[i] == '\\')
            in_slash = 1;
        else if (s[i] == ',')
            nterms++;
    }
    char **terms = kg_arena_alloc(a, nterms * sizeof(char *));
    size_t k = 0, start = 0;
    bool in_slash = false;
    for (size_t i = 0; i < n; i++) {
        if (in_slash) {
            in_slash = false;
        } else if (s[i] == '\\') {
            in_slash = true;
        } else if (s[i] == ',') {
            terms[k++] = kg_arena_strndup(a, s + start, i - start);
            start = i + 1;
        }
    }
    terms[k++] = kg_arena_strndup(a, s + start, n - start);
    qsort(terms, k, sizeof(char *), cmp_str);
    out->reqs = kg_arena_alloc(a, k * sizeof(kg_field_req));
    for (size_t t = 0; t < k; t++) {
        const char *term = terms[t];
        if (!term[0])
            continue;
        /* splitTerm: first position where "!=", "==" or "=" starts */
        const char *lhs_end = NULL;
        size_t oplen = 0;
        bool neq = false;
        for (const char *p = term; *p && !lhs_end; p++) {
            if (p[0] == '!' && p[1] == '=') {
                lhs_end = p, oplen = 2, neq = true;
            } else if (p[0] == '=' && p[1] == '=') {
                lhs_end = p, oplen = 2;
            } else if (p[0] == '=') {
                lhs_end = p, oplen = 1;
            }
        }
        if (!lhs_end)
            return kg_err_set(err, KG_EINVAL, "invalid selector: '%s'; can't understand '%s'", s, term);
        char *value;
        if (!kg_fields_unescape_value(a, lhs_end + oplen, &value, err))
            return false;
        kg_field_req *r = &out->reqs[out->n++];
        r->field = kg_arena_strndup(a, term, (size_t)(lhs_end - term));
        r->value = value;
        r->not_equal = neq;
    }
    return true;
}

char *kg_fields_string(kg_arena *a, const kg_field_selector *sel)
{
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < sel->n; i++) {
        if (i)
            kg_buf_putc(&b, ',');
        kg_buf_puts(&b, sel->reqs[i].field);
        kg_buf_puts(&b, sel->reqs[i].not_equal ? "!=" : "=");
        kg_buf_puts(&b, kg_fields_escape_value(a, sel->reqs[i].value));
    }
    char *out = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return out;
}

const char *kg_fields_requires_exact_match(const kg_field_selector *sel, const char *field)
{
    for (size_t i = 0; i < sel->n; i++)
        if (!sel->reqs[i].not_equal && strcmp(sel->reqs[i].field, field) == 0)
            return sel->reqs[i].value;
    return NULL;
}

bool kg_fields_matches_fn(const kg_field_selector *sel, kg_field_getter get, void *ctx)
{
    for (size_t i = 0; i < sel->n; i++) {
        const char *v = get(ctx, sel->reqs[i].field);
        bool eq = strcmp(v ? v : "", sel->reqs[i].value) == 0;
        if (eq == sel->reqs[i].not_equal)
            return false;
    }
    return true;
}

typedef struct obj_ctx {
    kg_arena *a;
    const kg_json *obj;
} obj_ctx;

static const char *obj_get(void *p, const char *field)
{
    obj_ctx *c = p;
    const kg_json *v = kg_json_path(c->obj, field);
    if (!v)
        return "";
    switch (v->type) {
    case KG_JSON_STRING: return v->u.s;
    case KG_JSON_BOOL: return v->b ? "true" : "false";
    case KG_JSON_INT: return kg_arena_sprintf(c->a, "%" PRId64, v->u.i);
    default: return "";
    }
}

bool kg_fields_matches_object(kg_arena *a, const kg_field_selector *sel, const kg_json *obj)
{
    obj_ctx c = {a, obj};
    return kg_fields_matches_fn(sel, obj_get, &c);
}
