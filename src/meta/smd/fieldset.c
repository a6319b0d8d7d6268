/* Field sets (smd.h): a tree of path elements keyed by their FieldsV1 text, the set algebra server-side apply
 * needs, the FieldsV1 encoding and upstream's path printing (structured-merge-diff fieldpath). */
#include <stdlib.h>
#include <string.h>

#include "meta/smd/smd.h"

/* Upstream orders path elements: field names, then keys, then values, then indexes; within a kind by value. */
static int rank(const char *k)
{
    switch (k[0]) {
    case 'f': return 0;
    case 'k': return 1;
    case 'v': return 2;
    default: return 3;
    }
}

static int key_cmp(const char *x, const char *y)
{
    int rx = rank(x), ry = rank(y);
    if (rx != ry)
        return rx - ry;
    if (rx == 3) {
        long a = strtol(x + 2, NULL, 10), b = strtol(y + 2, NULL, 10);
        if (a != b)
            return a < b ? -1 : 1;
    }
    return strcmp(x, y);
}

kg_fs *kg_fs_new(kg_arena *a)
{
    return kg_arena_calloc(a, sizeof(kg_fs));
}

/* Index of key in s's children, or where it goes (*found false). */
static unsigned find(const kg_fs *s, const char *key, bool *found)
{
    unsigned lo = 0, hi = s->n;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        int c = key_cmp(s->kids[mid]->key, key);
        if (!c) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

static void insert_at(kg_arena *a, kg_fs *s, unsigned i, kg_fs *k)
{
    if (s->n == s->cap) {
        unsigned nc = s->cap ? s->cap * 2 : 4;
        s->kids = kg_arena_realloc(a, s->kids, s->cap * sizeof(kg_fs *), nc * sizeof(kg_fs *));
        s->cap = nc;
    }
    memmove(s->kids + i + 1, s->kids + i, (s->n - i) * sizeof(kg_fs *));
    s->kids[i] = k;
    s->n++;
}

kg_fs *kg_fs_child(kg_arena *a, kg_fs *s, const char *key, bool add)
{
    bool found;
    unsigned i = find(s, key, &found);
    if (found)
        return s->kids[i];
    if (!add)
        return NULL;
    kg_fs *k = kg_fs_new(a);
    k->key = key;
    insert_at(a, s, i, k);
    return k;
}

bool kg_fs_empty(const kg_fs *s)
{
    if (!s)
        return true;
    if (s->member && s->key)
        return false;
    for (unsigned i = 0; i < s->n; i++)
        if (!kg_fs_empty(s->kids[i]))
            return false;
    return true;
}

kg_fs *kg_fs_clone(kg_arena *a, const kg_fs *s)
{
    kg_fs *c = kg_fs_new(a);
    if (!s)
        return c;
    c->key = s->key;
    c->member = s->member;
    if (s->n) {
        c->kids = kg_arena_alloc(a, s->n * sizeof(kg_fs *));
        c->cap = s->n;
        for (unsigned i = 0; i < s->n; i++)
            c->kids[i] = kg_fs_clone(a, s->kids[i]);
        c->n = s->n;
    }
    return c;
}

static void push(kg_arena *a, kg_fs *s, kg_fs *k)
{
    insert_at(a, s, s->n, k);
}

kg_fs *kg_fs_union(kg_arena *a, const kg_fs *x, const kg_fs *y)
{
    /* subtrees are shared, not copied: sets are never changed once built */
    if (!x || (!x->n && !x->member))
        return y ? (kg_fs *)y : kg_fs_new(a);
    if (!y || (!y->n && !y->member))
        return (kg_fs *)x;
    kg_fs *r = kg_fs_new(a);
    r->key = x->key;
    r->member = x->member || y->member;
    unsigned i = 0, j = 0;
    while (i < x->n || j < y->n) {
        int c = i == x->n ? 1 : j == y->n ? -1 : key_cmp(x->kids[i]->key, y->kids[j]->key);
        if (c < 0)
            push(a, r, x->kids[i++]);
        else if (c > 0)
            push(a, r, y->kids[j++]);
        else
            push(a, r, kg_fs_union(a, x->kids[i++], y->kids[j++]));
    }
    return r;
}

kg_fs *kg_fs_difference(kg_arena *a, const kg_fs *x, const kg_fs *y)
{
    kg_fs *r = kg_fs_new(a);
    if (!x)
        return r;
    r->key = x->key;
    r->member = x->member && !(y && y->member);
    for (unsigned i = 0; i < x->n; i++) {
        kg_fs *yc = y ? kg_fs_child(a, (kg_fs *)y, x->kids[i]->key, false) : NULL;
        kg_fs *d = yc ? kg_fs_difference(a, x->kids[i], yc) : x->kids[i];
        if (d->member || d->n)
            push(a, r, d);
    }
    return r;
}

kg_fs *kg_fs_intersection(kg_arena *a, const kg_fs *x, const kg_fs *y)
{
    kg_fs *r = kg_fs_new(a);
    if (!x || !y)
        return r;
    r->key = x->key;
    r->member = x->member && y->member;
    for (unsigned i = 0; i < x->n; i++) {
        kg_fs *yc = kg_fs_child(a, (kg_fs *)y, x->kids[i]->key, false);
        if (!yc)
            continue;
        kg_fs *d = kg_fs_intersection(a, x->kids[i], yc);
        if (d->member || d->n)
            push(a, r, d);
    }
    return r;
}

bool kg_fs_equal(const kg_fs *x, const kg_fs *y)
{
    bool ex = kg_fs_empty(x), ey = kg_fs_empty(y);
    if (ex || ey)
        return ex == ey;
    if ((x->key && x->member) != (y->key && y->member))
        return false;
    unsigned i = 0, j = 0;
    for (;;) {
        while (i < x->n && kg_fs_empty(x->kids[i]))
            i++;
        while (j < y->n && kg_fs_empty(y->kids[j]))
            j++;
        if (i == x->n || j == y->n)
            return i == x->n && j == y->n;
        if (strcmp(x->kids[i]->key, y->kids[j]->key) || !kg_fs_equal(x->kids[i], y->kids[j]))
            return false;
        i++, j++;
    }
}

/* ---- FieldsV1 ---- */

static void write_node(kg_buf *b, const kg_fs *s)
{
    kg_buf_putc(b, '{');
    bool first = true;
    if (s->member && s->key && s->n) {
        kg_buf_puts(b, "\".\":{}");
        first = false;
    }
    for (unsigned i = 0; i < s->n; i++) {
        if (kg_fs_empty(s->kids[i]))
            continue;
        if (!first)
            kg_buf_putc(b, ',');
        first = false;
        kg_json_write_string(b, s->kids[i]->key, strlen(s->kids[i]->key), 0);
        kg_buf_putc(b, ':');
        write_node(b, s->kids[i]);
    }
    kg_buf_putc(b, '}');
}

void kg_fs_write(kg_buf *b, const kg_fs *s)
{
    write_node(b, s);
}

static void push_member(kg_json *o, const char *key, kg_json *v)
{
    kg_json_member *m = &o->u.members[o->len++];
    m->key = key;
    m->key_len = (uint32_t)strlen(key);
    m->val = v;
}

/* Members are written directly: a set's keys are unique (no duplicate check, linear in the set's size). */
static kg_json *to_json(kg_arena *a, const kg_fs *s)
{
    kg_json *o = kg_json_new_object(a);
    o->u.members = kg_arena_alloc(a, ((size_t)s->n + 1) * sizeof(kg_json_member));
    o->cap = s->n + 1;
    if (s->member && s->key && s->n)
        push_member(o, ".", kg_json_new_object(a));
    for (unsigned i = 0; i < s->n; i++)
        if (!kg_fs_empty(s->kids[i]))
            push_member(o, s->kids[i]->key, to_json(a, s->kids[i]));
    return o;
}

kg_json *kg_fs_to_json(kg_arena *a, const kg_fs *s)
{
    return to_json(a, s);
}

static bool from_json(kg_arena *a, const kg_json *v, kg_fs *s, int depth, const char **err)
{
    if (v->type != KG_JSON_OBJECT || depth > 200) {
        *err = "FieldsV1: expected an object";
        return false;
    }
    if (!v->len) {
        s->member = true;
        return true;
    }
    for (size_t i = 0; i < v->len; i++) {
        const char *k = v->u.members[i].key;
        if (!strcmp(k, ".")) {
            s->member = true;
            continue;
        }
        if (!((k[0] == 'f' || k[0] == 'k' || k[0] == 'v' || k[0] == 'i') && k[1] == ':')) {
            *err = kg_arena_sprintf(a, "FieldsV1: unexpected key %s", k);
            return false;
        }
        kg_fs *c = kg_fs_child(a, s, kg_arena_strdup(a, k), true);
        if (!from_json(a, v->u.members[i].val, c, depth + 1, err))
            return false;
    }
    return true;
}

bool kg_fs_from_json(kg_arena *a, const kg_json *v, kg_fs **out, const char **err)
{
    kg_fs *s = kg_fs_new(a);
    if (!v || v->type != KG_JSON_OBJECT) {
        *err = "FieldsV1: expected an object";
        return false;
    }
    for (size_t i = 0; i < v->len; i++)
        if (!strcmp(v->u.members[i].key, ".")) {
            *err = "FieldsV1: the root cannot be a member";
            return false;
        }
    if (!from_json(a, v, s, 0, err))
        return false;
    s->member = false;
    *out = s;
    return true;
}

/* ---- paths ---- */

static void write_value(kg_buf *b, const kg_json *v)
{
    kg_json_write(b, v, KG_JSON_WRITE_NO_ESCAPE_HTML);
}

void kg_fs_write_element(kg_buf *b, const char *key)
{
    const char *rest = key + 2;
    switch (key[0]) {
    case 'f':
        kg_buf_putc(b, '.');
        kg_buf_puts(b, rest);
        return;
    case 'i': kg_buf_printf(b, "[%s]", rest); return;
    case 'v': kg_buf_printf(b, "[=%s]", rest); return;
    default: {
        kg_arena tmp;
        kg_arena_init(&tmp, 1024);
        kg_error e;
        kg_json *o = kg_json_parse(&tmp, rest, strlen(rest), &e);
        kg_buf_putc(b, '[');
        for (size_t i = 0; o && o->type == KG_JSON_OBJECT && i < o->len; i++) {
            if (i)
                kg_buf_putc(b, ',');
            kg_buf_printf(b, "%s=", o->u.members[i].key);
            write_value(b, o->u.members[i].val);
        }
        if (!o)
            kg_buf_puts(b, rest);
        kg_buf_putc(b, ']');
        kg_arena_free(&tmp);
        return;
    }
    }
}

typedef struct plist {
    kg_arena *a;
    const char **v;
    size_t n, cap;
} plist;

static void add_path(plist *p, const kg_buf *b)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 8;
        p->v = kg_arena_realloc(p->a, p->v, p->cap * sizeof(char *), nc * sizeof(char *));
        p->cap = nc;
    }
    p->v[p->n++] = kg_arena_strndup(p->a, b->data, b->len);
}

static void iterate(plist *p, const kg_fs *s, kg_buf *b)
{
    size_t mark = b->len;
    for (unsigned i = 0; i < s->n; i++)
        if (s->kids[i]->member) {
            kg_fs_write_element(b, s->kids[i]->key);
            add_path(p, b);
            b->len = mark;
        }
    for (unsigned i = 0; i < s->n; i++)
        if (s->kids[i]->n) {
            kg_fs_write_element(b, s->kids[i]->key);
            iterate(p, s->kids[i], b);
            b->len = mark;
        }
}

size_t kg_fs_paths(kg_arena *a, const kg_fs *s, const char ***paths)
{
    plist p = {.a = a};
    kg_buf b = KG_BUF_INIT;
    if (s)
        iterate(&p, s, &b);
    kg_buf_free(&b);
    *paths = p.v;
    return p.n;
}
