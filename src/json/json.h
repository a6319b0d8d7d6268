/* kgate's JSON DOM: arena-allocated, mutable, exact int64, strict UTF-8, key order kept.
 *
 * Every node lives in a kg_arena; freeing the arena frees the document. Parsing copies the input into the
 * arena and decodes strings in place, so string values are zero-copy and NUL-terminated.
 * jansson is the test oracle (tests/json). */
#ifndef KG_JSON_H
#define KG_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

typedef enum kg_json_type {
    KG_JSON_NULL = 0,
    KG_JSON_BOOL,
    KG_JSON_INT,    /* integral number that fits int64 */
    KG_JSON_NUMBER, /* any other number: double value plus the original text */
    KG_JSON_STRING,
    KG_JSON_ARRAY,
    KG_JSON_OBJECT,
} kg_json_type;

typedef struct kg_json kg_json;

typedef struct kg_json_member {
    const char *key; /* NUL-terminated */
    uint32_t key_len;
    kg_json *val;
} kg_json_member;

struct kg_json {
    uint8_t type;
    bool b;       /* KG_JSON_BOOL */
    bool ascii;   /* KG_JSON_STRING: true when known to be all ASCII (the parser's plain strings); false: unknown */
    uint32_t len; /* string bytes, array items, object members, number text length */
    uint32_t cap; /* capacity of items/members */
    union {
        int64_t i;
        struct {
            double d;
            const char *raw; /* original text of a KG_JSON_NUMBER, NULL if constructed */
        } num;
        const char *s; /* NUL-terminated; may contain embedded NULs (use len) */
        kg_json **items;
        kg_json_member *members;
    } u;
};

/* ---- parsing ---- */
enum {
    KG_JSON_PARSE_DUP_ERROR = 1u << 0,  /* a duplicate object key is a parse error */
    KG_JSON_PARSE_DUP_REPORT = 1u << 1, /* record duplicate keys' paths in kg_json_parse_info */
};

typedef struct kg_json_parse_info {
    /* KG_JSON_PARSE_DUP_REPORT: paths like "metadata.name" or "spec.containers[0].name" (arena strings) */
    const char **dups;
    size_t ndups;
} kg_json_parse_info;

#define KG_JSON_MAX_DEPTH 1000

/* Parse one JSON value (surrounding whitespace allowed, nothing else). Error messages follow Go's
 * encoding/json ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input"). */
kg_json *kg_json_parse(kg_arena *a, const char *text, size_t len, kg_error *err);
kg_json *kg_json_parse_ex(kg_arena *a, const char *text, size_t len, unsigned flags, kg_json_parse_info *info,
                          kg_error *err);

/* ---- serialization ---- */
enum {
    KG_JSON_WRITE_PRETTY = 1u << 0,         /* 4-space indentation like kubectl's -o json */
    KG_JSON_WRITE_NO_ESCAPE_HTML = 1u << 1, /* by default <, >, & are written as \u003c etc. like Go */
};
void kg_json_write(kg_buf *out, const kg_json *v, unsigned flags);
/* Serialize into the arena (NUL-terminated); *len may be NULL. */
char *kg_json_to_string(kg_arena *a, const kg_json *v, unsigned flags, size_t *len);
/* Write s as a JSON string literal (quotes included). */
void kg_json_write_string(kg_buf *out, const char *s, size_t n, unsigned flags);

/* ---- construction ---- */
kg_json *kg_json_new_null(kg_arena *a);
kg_json *kg_json_new_bool(kg_arena *a, bool b);
kg_json *kg_json_new_int(kg_arena *a, int64_t i);
kg_json *kg_json_new_double(kg_arena *a, double d);
kg_json *kg_json_new_str(kg_arena *a, const char *s);            /* copies */
kg_json *kg_json_new_strn(kg_arena *a, const char *s, size_t n); /* copies */
kg_json *kg_json_new_str_ref(kg_arena *a, const char *s,
                             size_t n); /* no copy: s must outlive the node and be NUL-terminated at n */
kg_json *kg_json_new_array(kg_arena *a);
kg_json *kg_json_new_object(kg_arena *a);

/* ---- arrays ---- */
void kg_json_array_append(kg_arena *a, kg_json *arr, kg_json *v);
void kg_json_array_insert(kg_arena *a, kg_json *arr, size_t idx, kg_json *v); /* idx <= len */
void kg_json_array_remove(kg_json *arr, size_t idx);
static inline kg_json *kg_json_at(const kg_json *arr, size_t idx)
{
    return (arr && arr->type == KG_JSON_ARRAY && idx < arr->len) ? arr->u.items[idx] : NULL;
}

/* ---- objects ---- */
kg_json *kg_json_getn(const kg_json *obj, const char *key, size_t n);
/* inline so that the length of a literal key is a constant */
static inline kg_json *kg_json_get(const kg_json *obj, const char *key)
{
    return kg_json_getn(obj, key, __builtin_strlen(key));
}
/* Set key (copied) to v, replacing an existing value in place (order kept) or appending. */
void kg_json_setn(kg_arena *a, kg_json *obj, const char *key, size_t n, kg_json *v);
static inline void kg_json_set(kg_arena *a, kg_json *obj, const char *key, kg_json *v)
{
    kg_json_setn(a, obj, key, __builtin_strlen(key), v);
}
/* Remove key; returns whether it was present. */
bool kg_json_del(kg_json *obj, const char *key);
/* Get obj[key] as an object, creating an empty object there if absent or not an object. */
kg_json *kg_json_get_or_add_object(kg_arena *a, kg_json *obj, const char *key);

/* Dotted path lookup through objects only: kg_json_path(pod, "metadata.name"). */
kg_json *kg_json_path(const kg_json *v, const char *dotted);
/* String value at a dotted path, or NULL if absent / not a string. */
const char *kg_json_path_str(const kg_json *v, const char *dotted);
/* String value of obj[key] or NULL. */
static inline const char *kg_json_get_str(const kg_json *obj, const char *key)
{
    kg_json *s = kg_json_get(obj, key);
    return s && s->type == KG_JSON_STRING ? s->u.s : NULL;
}

/* ---- whole values ---- */
kg_json *kg_json_clone(kg_arena *a, const kg_json *v);
/* A copy of the nodes only: strings, keys and number texts stay shared with v. For templates that outlive every copy
 * (e.g. built once per process); cheaper than kg_json_clone. Strings are never edited in place, so the copy is as
 * mutable as any other object. */
kg_json *kg_json_clone_nodes(kg_arena *a, const kg_json *v);
/* Deep equality: object member order ignored; numbers compared by value. */
bool kg_json_equal(const kg_json *x, const kg_json *y);
const char *kg_json_type_name(kg_json_type t);

static inline bool kg_json_is(const kg_json *v, kg_json_type t)
{
    return v && v->type == t;
}
static inline bool kg_json_is_number(const kg_json *v)
{
    return v && (v->type == KG_JSON_INT || v->type == KG_JSON_NUMBER);
}
static inline double kg_json_number(const kg_json *v)
{
    return v->type == KG_JSON_INT ? (double)v->u.i : v->u.num.d;
}

#endif
