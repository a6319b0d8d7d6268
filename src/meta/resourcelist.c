/* ResourceList arithmetic (resourcelist.h). */
#include "meta/resourcelist.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/str.h"

kg_rlist_entry *kg_rlist_find(const kg_rlist *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++) /* names are often the same string (a literal, a key of one object) */
        if (l->e[i].name == name || (l->e[i].name[0] == name[0] && kg_streq(l->e[i].name, name)))
            return &l->e[i];
    return NULL;
}

/* Append without looking for an existing entry (callers know there is none). */
static kg_rlist_entry *append(kg_arena *a, kg_rlist *l, const char *name, const kg_quantity *q)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        kg_rlist_entry *e = kg_arena_alloc(a, cap * sizeof *e);
        if (l->n)
            memcpy(e, l->e, l->n * sizeof *e);
        l->e = e;
        l->cap = cap;
    }
    kg_rlist_entry *e = &l->e[l->n++];
    e->name = name;
    kg_quantity_copy(&e->q, q);
    return e;
}

void kg_rlist_set(kg_arena *a, kg_rlist *l, const char *name, const kg_quantity *q)
{
    kg_rlist_entry *r = kg_rlist_find(l, name);
    if (r)
        kg_quantity_copy(&r->q, q);
    else
        append(a, l, name, q);
}

void kg_rlist_set_int(kg_arena *a, kg_rlist *l, const char *name, int64_t v)
{
    kg_quantity q = kg_quantity_new(v, KG_QFMT_DECIMAL_SI);
    kg_rlist_set(a, l, name, &q);
}

void kg_rlist_from_json(kg_arena *a, const kg_json *obj, kg_rlist *out)
{
    *out = (kg_rlist){0};
    if (!kg_json_is(obj, KG_JSON_OBJECT))
        return;
    for (size_t i = 0; i < obj->len; i++) {
        kg_quantity q;
        if (kg_quantity_from_json(obj->u.members[i].val, &q, NULL))
            kg_rlist_set(a, out, obj->u.members[i].key, &q);
    }
}

static int cmp_entry(const void *x, const void *y)
{
    return strcmp(((const kg_rlist_entry *)x)->name, ((const kg_rlist_entry *)y)->name);
}

void kg_rlist_sort(kg_rlist *l)
{
    if (l->n > 1)
        qsort(l->e, l->n, sizeof *l->e, cmp_entry);
}

kg_json *kg_rlist_to_json(kg_arena *a, kg_rlist *l)
{
    kg_rlist_sort(l);
    kg_json *o = kg_json_new_object(a);
    for (size_t i = 0; i < l->n; i++)
        kg_json_set(a, o, l->e[i].name, kg_quantity_to_json(a, &l->e[i].q));
    return o;
}

char *kg_rlist_pretty(kg_arena *a, kg_rlist *l)
{
    kg_rlist_sort(l);
    kg_buf b = KG_BUF_INIT;
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            kg_buf_putc(&b, ',');
        kg_buf_puts(&b, l->e[i].name);
        kg_buf_putc(&b, '=');
        kg_quantity_write(&b, &l->e[i].q);
    }
    char *s = kg_arena_strdup(a, b.len ? kg_buf_cstr(&b) : "");
    kg_buf_free(&b);
    return s;
}

void kg_rlist_add(kg_arena *a, kg_rlist *dst, const kg_rlist *src)
{
    for (size_t i = 0; i < src->n; i++) {
        kg_rlist_entry *r = kg_rlist_find(dst, src->e[i].name);
        if (r)
            kg_quantity_add(&r->q, &src->e[i].q);
        else
            append(a, dst, src->e[i].name, &src->e[i].q);
    }
}

void kg_rlist_sub(kg_arena *a, kg_rlist *dst, const kg_rlist *src)
{
    for (size_t i = 0; i < src->n; i++) {
        kg_rlist_entry *r = kg_rlist_find(dst, src->e[i].name);
        if (!r) {
            kg_quantity z = kg_quantity_zero();
            r = append(a, dst, src->e[i].name, &z);
        }
        kg_quantity_sub(&r->q, &src->e[i].q);
    }
}

void kg_rlist_sub_positive(kg_arena *a, const kg_rlist *x, const kg_rlist *y, kg_rlist *out)
{
    *out = (kg_rlist){0};
    for (size_t i = 0; i < x->n; i++) {
        kg_quantity d;
        kg_quantity_copy(&d, &x->e[i].q);
        const kg_quantity *o = kg_rlist_get(y, x->e[i].name);
        if (o)
            kg_quantity_sub(&d, o);
        if (kg_quantity_sign(&d) > 0)
            append(a, out, x->e[i].name, &d);
    }
}

void kg_rlist_max(kg_arena *a, kg_rlist *dst, const kg_rlist *src)
{
    for (size_t i = 0; i < src->n; i++) {
        kg_rlist_entry *r = kg_rlist_find(dst, src->e[i].name);
        if (!r)
            append(a, dst, src->e[i].name, &src->e[i].q);
        else if (kg_quantity_cmp(&src->e[i].q, &r->q) > 0)
            kg_quantity_copy(&r->q, &src->e[i].q);
    }
}

void kg_rlist_mask(kg_arena *a, const kg_rlist *l, const char *const *names, size_t n, kg_rlist *out)
{
    *out = (kg_rlist){0};
    for (size_t i = 0; i < l->n; i++)
        for (size_t k = 0; k < n; k++)
            if (names[k] == l->e[i].name || kg_streq(names[k], l->e[i].name)) {
                append(a, out, l->e[i].name, &l->e[i].q);
                break;
            }
}

void kg_rlist_mask_keys(kg_arena *a, const kg_rlist *l, const kg_rlist *keys, kg_rlist *out)
{
    *out = (kg_rlist){0};
    for (size_t i = 0; i < l->n; i++)
        if (kg_rlist_find(keys, l->e[i].name))
            append(a, out, l->e[i].name, &l->e[i].q);
}

void kg_rlist_remove_zeros(kg_arena *a, const kg_rlist *l, kg_rlist *out)
{
    size_t zeros = 0;
    for (size_t i = 0; i < l->n; i++)
        zeros += kg_quantity_is_zero(&l->e[i].q);
    if (!zeros) {
        *out = *l;
        return;
    }
    kg_rlist r = {0};
    for (size_t i = 0; i < l->n; i++)
        if (!kg_quantity_is_zero(&l->e[i].q))
            append(a, &r, l->e[i].name, &l->e[i].q);
    *out = r;
}

bool kg_rlist_less_or_equal(kg_arena *a, const kg_rlist *x, const kg_rlist *y, const char ***exceeded,
                            size_t *nexceeded)
{
    bool ok = true;
    const char **names = NULL;
    size_t n = 0;
    for (size_t i = 0; i < y->n; i++) {
        const kg_quantity *o = kg_rlist_get(x, y->e[i].name);
        if (!o || kg_quantity_cmp(o, &y->e[i].q) <= 0)
            continue;
        ok = false;
        if (!exceeded)
            break;
        if (!names)
            names = kg_arena_alloc(a, y->n * sizeof *names);
        names[n++] = y->e[i].name;
    }
    if (exceeded)
        *exceeded = names;
    if (nexceeded)
        *nexceeded = n;
    return ok;
}

bool kg_rlist_equal(const kg_rlist *x, const kg_rlist *y)
{
    if (x->n != y->n)
        return false;
    for (size_t i = 0; i < x->n; i++) {
        const kg_quantity *o = kg_rlist_get(y, x->e[i].name);
        if (!o || kg_quantity_cmp(o, &x->e[i].q) != 0)
            return false;
    }
    return true;
}

size_t kg_rlist_names_with_sign(kg_arena *a, const kg_rlist *l, int sign_cmp, const char ***out)
{
    const char **names = kg_arena_alloc(a, (l->n + 1) * sizeof *names);
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (kg_quantity_sign(&l->e[i].q) == sign_cmp)
            names[n++] = l->e[i].name;
    *out = names;
    return n;
}

bool kg_rlist_is_zero(const kg_rlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!kg_quantity_is_zero(&l->e[i].q))
            return false;
    return true;
}
