/* YAML → kg_json over libyaml's event API, with go-yaml v2's scalar resolution (what sigs.k8s.io/yaml does). */
#include "yaml/yaml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define KG_YAML_MAX_DEPTH 1000
/* Alias expansion budget (billion-laughs defence): nodes created by copying anchored values. */
#define KG_YAML_ALIAS_BUDGET 1000000

typedef struct anchor {
    const char *name;
    kg_json *val;
} anchor;

typedef struct yctx {
    kg_arena *a;
    yaml_parser_t parser;
    kg_error *err;
    anchor *anchors;
    size_t nanchors, cap_anchors;
    long alias_budget;
    int depth;
} yctx;

static bool parser_error(yctx *c)
{
    const yaml_parser_t *p = &c->parser;
    unsigned long line = (unsigned long)(p->problem_mark.line + 1);
    if (p->context)
        return kg_err_set(c->err, KG_EINVAL, "yaml: line %lu: %s %s", line, p->problem ? p->problem : "error",
                          p->context);
    return kg_err_set(c->err, KG_EINVAL, "yaml: line %lu: %s", line, p->problem ? p->problem : "parse error");
}

static bool next_event(yctx *c, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&c->parser, ev))
        return parser_error(c);
    return true;
}

static void add_anchor(yctx *c, const char *name, kg_json *v)
{
    for (size_t i = 0; i < c->nanchors; i++) {
        if (!strcmp(c->anchors[i].name, name)) { /* redefinition: the later one wins from here on */
            c->anchors[i].val = v;
            return;
        }
    }
    if (c->nanchors == c->cap_anchors) {
        size_t nc = c->cap_anchors ? c->cap_anchors * 2 : 8;
        c->anchors = kg_arena_realloc(c->a, c->anchors, c->cap_anchors * sizeof(anchor), nc * sizeof(anchor));
        c->cap_anchors = nc;
    }
    c->anchors[c->nanchors].name = kg_arena_strdup(c->a, name);
    c->anchors[c->nanchors].val = v;
    c->nanchors++;
}

static long count_nodes(const kg_json *v)
{
    long n = 1;
    if (v->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < v->len; i++)
            n += count_nodes(v->u.items[i]);
    else if (v->type == KG_JSON_OBJECT)
        for (uint32_t i = 0; i < v->len; i++)
            n += count_nodes(v->u.members[i].val);
    return n;
}

/* ---- scalar resolution (go-yaml v2 resolve.go) ---- */

static bool all_digits(const char *s, size_t n, int base)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = base == 16  ? ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'))
                  : base == 8 ? (ch >= '0' && ch <= '7')
                  : base == 2 ? (ch == '0' || ch == '1')
                              : (ch >= '0' && ch <= '9');
        if (!ok)
            return false;
    }
    return true;
}

/* Go's strconv.ParseInt(s, 0, 64) after removing '_' : returns 1 int, 2 fits uint64 only, 0 not an int. */
static int parse_go_int(const char *in, size_t n, int64_t *out, uint64_t *uout)
{
    char buf[80];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '_')
            continue;
        if (m + 1 >= sizeof buf)
            return 0;
        buf[m++] = in[i];
    }
    buf[m] = 0;
    const char *s = buf;
    bool neg = false;
    if (*s == '+' || *s == '-')
        neg = *s == '-', s++;
    size_t len = strlen(s);
    int base = 10;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        base = 16, s += 2, len -= 2;
    else if (len >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
        base = 2, s += 2, len -= 2;
    else if (len >= 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
        base = 8, s += 2, len -= 2;
    else if (len >= 2 && s[0] == '0')
        base = 8, s += 1, len -= 1;
    if (!all_digits(s, len, base))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, base);
    if (errno == ERANGE)
        return 0;
    if (neg) {
        if (v > (unsigned long long)INT64_MAX + 1)
            return 0;
        *out = (int64_t)(0 - v);
        return 1;
    }
    if (v <= (unsigned long long)INT64_MAX) {
        *out = (int64_t)v;
        return 1;
    }
    *uout = v;
    return 2;
}

/* yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool is_yaml_float(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i < n && s[i] == '.') {
        i++;
        size_t st = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == st)
            return false;
    } else {
        size_t st = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == st)
            return false;
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9')
                i++;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t st = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == st)
            return false;
    }
    return i == n;
}

static bool word_in(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return true;
    return false;
}

static bool is_date_only(const char *s, size_t n)
{
    /* YYYY-M-D or YYYY-MM-DD: go-yaml v2 resolves it to a timestamp, which JSON-marshals as RFC 3339 */
    if (n < 8 || n > 10)
        return false;
    size_t i = 0;
    for (; i < 4; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    if (s[i++] != '-')
        return false;
    size_t st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i - st < 1 || i - st > 2 || i >= n || s[i] != '-')
        return false;
    i++;
    st = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i == n && i - st >= 1 && i - st <= 2;
}

static kg_json *resolve_plain(yctx *c, const char *s, size_t n)
{
    static const char *const nulls[] = {"~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE", NULL};
    static const char *const falses[] = {"n",   "N",   "no",    "No",    "NO",    "off",
                                         "Off", "OFF", "false", "False", "FALSE", NULL};
    if (n == 0 || word_in(s, nulls))
        return kg_json_new_null(c->a);
    char first = s[0];
    if (strchr("yYnNtTfFoO", first)) {
        if (word_in(s, trues))
            return kg_json_new_bool(c->a, true);
        if (word_in(s, falses))
            return kg_json_new_bool(c->a, false);
    }
    if ((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.') {
        int64_t iv;
        uint64_t uv;
        int r = parse_go_int(s, n, &iv, &uv);
        if (r == 1)
            return kg_json_new_int(c->a, iv);
        if (r == 2) {
            /* beyond int64, within uint64 (go-yaml's uint): kept exactly as its decimal digits, which is what the
             * JSON form carries (the source may be hex, octal, binary or have '_' in it) */
            char dec[24];
            int dn = snprintf(dec, sizeof dec, "%llu", (unsigned long long)uv);
            kg_json *v = kg_json_new_strn(c->a, dec, (size_t)dn);
            v->type = KG_JSON_NUMBER;
            v->u.num.raw = v->u.s;
            v->u.num.d = (double)uv;
            return v;
        }
        if (is_yaml_float(s, n)) {
            char *tmp = kg_arena_strndup(c->a, s, n);
            char *w = tmp;
            for (char *q = tmp; *q; q++)
                if (*q != '_')
                    *w++ = *q;
            *w = 0;
            double d = strtod(tmp, NULL);
            if (!isfinite(d)) {
                kg_err_set(c->err, KG_EINVAL, "json: unsupported value: %s", d > 0 ? "+Inf" : "-Inf");
                return NULL;
            }
            return kg_json_new_double(c->a, d);
        }
        if (first == '.' || first == '-' || first == '+') {
            static const char *const infs[] = {".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf",
                                               "+.INF", "-.inf", "-.Inf", "-.INF", NULL};
            static const char *const nans[] = {".nan", ".NaN", ".NAN", NULL};
            if (word_in(s, infs)) {
                kg_err_set(c->err, KG_EINVAL, "json: unsupported value: %s", s[0] == '-' ? "-Inf" : "+Inf");
                return NULL;
            }
            if (word_in(s, nans)) {
                kg_err_set(c->err, KG_EINVAL, "json: unsupported value: NaN");
                return NULL;
            }
        }
        if (is_date_only(s, n)) {
            int y, mo, d;
            if (sscanf(s, "%d-%d-%d", &y, &mo, &d) == 3 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31) {
                char *ts = kg_arena_sprintf(c->a, "%04d-%02d-%02dT00:00:00Z", y, mo, d);
                return kg_json_new_str_ref(c->a, ts, strlen(ts));
            }
        }
    }
    return kg_json_new_strn(c->a, s, n);
}

static kg_json *scalar_value(yctx *c, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag) {
        if (!strcmp(tag, YAML_STR_TAG) || !strcmp(tag, "!"))
            return kg_json_new_strn(c->a, s, n);
        if (!strcmp(tag, "tag:yaml.org,2002:binary"))
            return kg_json_new_strn(c->a, s, n);
        if (!strcmp(tag, YAML_NULL_TAG))
            return kg_json_new_null(c->a);
        /* !!int, !!bool, !!float and custom tags: resolve the text as a plain scalar would be */
    }
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE && !(tag && strcmp(tag, YAML_STR_TAG)))
        return kg_json_new_strn(c->a, s, n);
    return resolve_plain(c, s, n);
}

/* Turn a resolved key into the JSON object key sigs.k8s.io/yaml produces. */
static const char *key_string(yctx *c, kg_json *k, size_t *len)
{
    switch (k->type) {
    case KG_JSON_STRING: *len = k->len; return k->u.s;
    case KG_JSON_NULL: *len = 4; return "null";
    case KG_JSON_BOOL: *len = k->b ? 4 : 5; return k->b ? "true" : "false";
    case KG_JSON_INT:
    case KG_JSON_NUMBER: {
        char *s = kg_json_to_string(c->a, k, 0, len);
        return s;
    }
    default: return NULL;
    }
}

static kg_json *parse_node(yctx *c, yaml_event_t *ev);

static bool merge_into(yctx *c, kg_json *obj, const kg_json *src)
{
    if (!src || src->type != KG_JSON_OBJECT)
        return kg_err_set(c->err, KG_EINVAL, "yaml: map merge requires map or sequence of maps as the value");
    for (uint32_t i = 0; i < src->len; i++)
        if (!kg_json_getn(obj, src->u.members[i].key, src->u.members[i].key_len))
            kg_json_setn(c->a, obj, src->u.members[i].key, src->u.members[i].key_len,
                         kg_json_clone(c->a, src->u.members[i].val));
    return true;
}

static kg_json *parse_mapping(yctx *c, yaml_event_t *start)
{
    kg_json *obj = kg_json_new_object(c->a);
    if (start->data.mapping_start.anchor)
        add_anchor(c, (const char *)start->data.mapping_start.anchor, obj);
    /* explicit keys (set by the document) win over merged ones regardless of order: collect merges for the end */
    const kg_json *merges[16];
    int nmerges = 0;
    for (;;) {
        yaml_event_t kev;
        if (!next_event(c, &kev))
            return NULL;
        if (kev.type == YAML_MAPPING_END_EVENT) {
            yaml_event_delete(&kev);
            break;
        }
        bool is_merge = kev.type == YAML_SCALAR_EVENT && kev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                        !strcmp((const char *)kev.data.scalar.value, "<<") && !kev.data.scalar.tag;
        kg_json *key = parse_node(c, &kev);
        if (!key)
            return NULL;
        yaml_event_t vev;
        if (!next_event(c, &vev))
            return NULL;
        kg_json *val = parse_node(c, &vev);
        if (!val)
            return NULL;
        if (is_merge) {
            if (val->type == KG_JSON_ARRAY) {
                for (uint32_t i = 0; i < val->len && nmerges < 16; i++)
                    merges[nmerges++] = val->u.items[i];
            } else if (nmerges < 16) {
                merges[nmerges++] = val;
            }
            continue;
        }
        size_t klen;
        const char *ks = key_string(c, key, &klen);
        if (!ks) {
            kg_err_set(c->err, KG_EINVAL, "yaml: unsupported map key of type %s", kg_json_type_name(key->type));
            return NULL;
        }
        kg_json_setn(c->a, obj, ks, klen, val);
    }
    for (int i = 0; i < nmerges; i++)
        if (!merge_into(c, obj, merges[i]))
            return NULL;
    return obj;
}

static kg_json *parse_sequence(yctx *c, yaml_event_t *start)
{
    kg_json *arr = kg_json_new_array(c->a);
    if (start->data.sequence_start.anchor)
        add_anchor(c, (const char *)start->data.sequence_start.anchor, arr);
    for (;;) {
        yaml_event_t ev;
        if (!next_event(c, &ev))
            return NULL;
        if (ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            return arr;
        }
        kg_json *v = parse_node(c, &ev);
        if (!v)
            return NULL;
        kg_json_array_append(c->a, arr, v);
    }
}

/* Consumes and deletes *ev (and the events of its children). */
static kg_json *parse_node(yctx *c, yaml_event_t *ev)
{
    kg_json *v = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        v = scalar_value(c, ev);
        if (v && ev->data.scalar.anchor)
            add_anchor(c, (const char *)ev->data.scalar.anchor, v);
        break;
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        kg_json *target = NULL;
        for (size_t i = 0; i < c->nanchors; i++)
            if (!strcmp(c->anchors[i].name, name))
                target = c->anchors[i].val;
        if (!target) {
            kg_err_set(c->err, KG_EINVAL, "yaml: unknown anchor '%s' referenced", name);
            break;
        }
        c->alias_budget -= count_nodes(target);
        if (c->alias_budget < 0) {
            kg_err_set(c->err, KG_EINVAL, "yaml: document contains excessive aliasing");
            break;
        }
        v = kg_json_clone(c->a, target);
        break;
    }
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
        if (++c->depth > KG_YAML_MAX_DEPTH) {
            kg_err_set(c->err, KG_EINVAL, "yaml: exceeded max depth of %d", KG_YAML_MAX_DEPTH);
            break;
        }
        v = ev->type == YAML_MAPPING_START_EVENT ? parse_mapping(c, ev) : parse_sequence(c, ev);
        c->depth--;
        break;
    default: kg_err_set(c->err, KG_EINVAL, "yaml: unexpected event %d", (int)ev->type); break;
    }
    yaml_event_delete(ev);
    return v;
}

/* Parse documents; calls out(doc) for each. Returns false on error. max_docs 0 = all. */
static bool parse_stream(kg_arena *a, const char *text, size_t len, kg_error *err, kg_json *out_array, kg_json **first,
                         bool skip_empty)
{
    yctx c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.err = err;
    c.alias_budget = KG_YAML_ALIAS_BUDGET;
    if (!yaml_parser_initialize(&c.parser))
        return kg_err_set(err, KG_EINTERNAL, "yaml: cannot initialise parser");
    yaml_parser_set_input_string(&c.parser, (const unsigned char *)text, len);
    bool ok = true, got_first = false;
    for (;;) {
        yaml_event_t ev;
        if (!next_event(&c, &ev)) {
            ok = false;
            break;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        if (t != YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        yaml_event_delete(&ev);
        c.nanchors = 0; /* anchors are per document */
        yaml_event_t root;
        if (!next_event(&c, &root)) {
            ok = false;
            break;
        }
        kg_json *doc = parse_node(&c, &root);
        if (!doc) {
            ok = false;
            break;
        }
        yaml_event_t end;
        if (!next_event(&c, &end)) {
            ok = false;
            break;
        }
        yaml_event_delete(&end);
        if (!got_first) {
            if (first)
                *first = doc;
            got_first = true;
        }
        if (out_array && !(skip_empty && doc->type == KG_JSON_NULL))
            kg_json_array_append(a, out_array, doc);
        if (!out_array)
            break; /* single-document mode reads only the first document */
    }
    yaml_parser_delete(&c.parser);
    if (ok && first && !got_first)
        *first = kg_json_new_null(a);
    return ok;
}

kg_json *kg_yaml_parse(kg_arena *a, const char *text, size_t len, kg_error *err)
{
    kg_json *doc = NULL;
    if (!parse_stream(a, text, len, err, NULL, &doc, false))
        return NULL;
    return doc;
}

kg_json *kg_yaml_parse_all(kg_arena *a, const char *text, size_t len, kg_error *err)
{
    kg_json *arr = kg_json_new_array(a);
    if (!parse_stream(a, text, len, err, arr, NULL, true))
        return NULL;
    return arr;
}

kg_json *kg_yaml_or_json_parse(kg_arena *a, const char *text, size_t len, kg_error *err)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i < len && (text[i] == '{' || text[i] == '[')) {
        kg_json *v = kg_json_parse(a, text, len, err);
        if (v)
            return v;
        /* JSON failed: YAML flow syntax is a superset, try it before giving up (keeps the JSON error if both fail) */
        kg_error yerr;
        kg_json *y = kg_yaml_parse(a, text, len, &yerr);
        if (y)
            return y;
        return NULL;
    }
    return kg_yaml_parse(a, text, len, err);
}
