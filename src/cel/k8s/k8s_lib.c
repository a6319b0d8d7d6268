/* k8s_lib.c - binds the Kubernetes CEL libraries to kgate's CEL engine through the extension API in cel.h. */
#include <math.h>
#include <string.h>

#include "cel/k8s/cel_k8s.h"
#include "cel/k8s/formats.h"
#include "cel/k8s/ipnet.h"
#include "cel/k8s/k8s_util.h"
#include "cel/k8s/quantity.h"
#include "cel/k8s/semver.h"
#include "cel/k8s/url.h"
#include "cel/regex/cel_regex.h"

/* ------------------------------------------------------------------------------------------------------------ */
/* helpers                                                                                                       */
/* ------------------------------------------------------------------------------------------------------------ */

#define NARGS(...) (sizeof((const cel_type *[]){__VA_ARGS__}) / sizeof(const cel_type *))
#define OV(idv, fl, res, fn, costfn, ...)                                                                              \
    {                                                                                                                  \
        .id = (idv), .flags = (fl), .result = (res), .nargs = NARGS(__VA_ARGS__), .args = {__VA_ARGS__}, .impl = (fn), \
        .cost = (costfn)                                                                                               \
    }
#define MEMBER CEL_FN_MEMBER
#define GLOBAL 0u

static uint64_t code_points(const char *s, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static uint64_t value_size(cel_call_ctx *ctx, const cel_value *v)
{
    (void)ctx;
    switch (v->kind) {
    case CEL_STRING: return code_points(v->u.s, v->n);
    case CEL_BYTES: return v->n;
    case CEL_LIST: return cel_list_size(v);
    case CEL_MAP: return cel_map_size(v);
    default: return 1;
    }
}

static uint64_t ceil_factor(uint64_t size, double f)
{
    return (uint64_t)ceil((double)size * f);
}

/* ⌈0.1·len(arg0)⌉ */
static uint64_t cost_str_traversal(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    return ceil_factor(value_size(ctx, &args[0]), 0.1);
}
/* ⌈0.2·len(arg0)⌉ */
static uint64_t cost_str_traversal2(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    return ceil_factor(value_size(ctx, &args[0]), 0.2);
}
/* like matches: ⌈0.1·(1+len(s))⌉ · ⌈0.25·len(re)⌉ */
static uint64_t regex_cost(uint64_t slen, uint64_t relen)
{
    return (uint64_t)ceil((1.0 + (double)slen) * 0.1) * (uint64_t)ceil((double)relen * 0.25);
}
static uint64_t cost_regex(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    return regex_cost(value_size(ctx, &args[0]), value_size(ctx, &args[1]));
}
/* cost.go traversalCost: strings/bytes ⌊0.1·bytes⌋, lists and maps the sum over their elements (keys and values),
 * anything else 1. */
static uint64_t traversal_cost(cel_call_ctx *ctx, const cel_value *v, int depth)
{
    switch (v->kind) {
    case CEL_STRING:
    case CEL_BYTES: return (uint64_t)((double)v->n * 0.1);
    case CEL_LIST: {
        if (depth > 64)
            return 1;
        uint64_t c = 0;
        size_t n = cel_list_size(v);
        for (size_t i = 0; i < n; i++) {
            cel_value e = cel_list_get(ctx, v, i);
            c += traversal_cost(ctx, &e, depth + 1);
        }
        return c;
    }
    case CEL_MAP: {
        if (depth > 64)
            return 1;
        uint64_t c = 0;
        size_t n = cel_map_size(v);
        for (size_t i = 0; i < n; i++) {
            cel_value k, e;
            cel_map_entry(ctx, v, i, &k, &e);
            c += traversal_cost(ctx, &k, depth + 1) + traversal_cost(ctx, &e, depth + 1);
        }
        return c;
    }
    default: return 1;
    }
}
/* isSorted, sum, min, max, indexOf, lastIndexOf: one traversal of the receiver */
static uint64_t cost_list(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    return traversal_cost(ctx, &args[0], 0);
}
/* actualSize of IP/CIDR values: ⌈bits/8⌉ (the prefix length for a CIDR) */
static uint64_t cidr_size(const cel_value *v);
/* containsIP: ⌈0.1·2·size(cidr)⌉ (+ ⌈0.1·len⌉ to parse a string argument) */
static uint64_t cost_contains_ip(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    uint64_t cs = cidr_size(&args[0]);
    uint64_t c = ceil_factor(cs + cs, 0.1);
    if (args[1].kind == CEL_STRING)
        c += ceil_factor(value_size(ctx, &args[1]), 0.1);
    return c;
}
/* containsCIDR: as containsIP plus ⌈0.1·size(cidr)⌉ + 1 for masking */
static uint64_t cost_contains_cidr(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    uint64_t cs = cidr_size(&args[0]);
    uint64_t c = ceil_factor(cs + cs, 0.1) + ceil_factor(cs, 0.1) + 1;
    if (args[1].kind == CEL_STRING)
        c += ceil_factor(value_size(ctx, &args[1]), 0.1);
    return c;
}
static uint64_t cost_check(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)ctx, (void)args, (void)n, (void)r;
    return 350000;
}

static cel_value err_msg(cel_call_ctx *ctx, const char *msg)
{
    return cel_error_new(cel_call_arena(ctx), "%s", msg);
}
static cel_value no_overload(cel_call_ctx *ctx)
{
    return err_msg(ctx, "no such overload");
}
static cel_value str_val(const char *s)
{
    return cel_string(s, strlen(s));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* opaque types                                                                                                  */
/* ------------------------------------------------------------------------------------------------------------ */

static bool quantity_equal(const cel_value *a, const cel_value *b)
{
    return cel_k8s_quantity_cmp(a->u.ptr, b->u.ptr) == 0;
}
static bool ip_equal(const cel_value *a, const cel_value *b)
{
    return cel_k8s_ip_equal(a->u.ptr, b->u.ptr);
}
static bool cidr_equal(const cel_value *a, const cel_value *b)
{
    return cel_k8s_cidr_equal(a->u.ptr, b->u.ptr);
}
static bool semver_equal(const cel_value *a, const cel_value *b)
{
    return cel_k8s_semver_compare(a->u.ptr, b->u.ptr) == 0;
}
static bool url_equal(const cel_value *a, const cel_value *b)
{
    const cel_k8s_url *x = a->u.ptr, *y = b->u.ptr;
    return strcmp(x->scheme, y->scheme) == 0 && strcmp(x->opaque, y->opaque) == 0 && strcmp(x->host, y->host) == 0 &&
           strcmp(x->path, y->path) == 0 && strcmp(x->raw_path, y->raw_path) == 0 &&
           strcmp(x->raw_query, y->raw_query) == 0 && x->has_user == y->has_user;
}
static cel_value ip_to_string_vt(cel_call_ctx *ctx, const cel_value *v)
{
    char buf[64];
    size_t n = cel_k8s_ip_format(v->u.ptr, buf);
    return cel_string_copy(cel_call_arena(ctx), buf, n);
}
static cel_value cidr_to_string_vt(cel_call_ctx *ctx, const cel_value *v)
{
    char buf[64];
    size_t n = cel_k8s_cidr_format(v->u.ptr, buf);
    return cel_string_copy(cel_call_arena(ctx), buf, n);
}

static const cel_opaque_vt VT_QUANTITY = {"kubernetes.Quantity", quantity_equal, NULL, NULL};
static const cel_opaque_vt VT_URL = {"kubernetes.URL", url_equal, NULL, NULL};
static const cel_opaque_vt VT_IP = {"net.IP", ip_equal, ip_to_string_vt, NULL};
static const cel_opaque_vt VT_CIDR = {"net.CIDR", cidr_equal, cidr_to_string_vt, NULL};
static const cel_opaque_vt VT_SEMVER = {"kubernetes.Semver", semver_equal, NULL, NULL};
static const cel_opaque_vt VT_FORMAT = {"kubernetes.NamedFormat", NULL, NULL, NULL};
static const cel_opaque_vt VT_AUTHORIZER = {"kubernetes.authorization.Authorizer", NULL, NULL, NULL};
static const cel_opaque_vt VT_PATHCHECK = {"kubernetes.authorization.PathCheck", NULL, NULL, NULL};
static const cel_opaque_vt VT_GROUPCHECK = {"kubernetes.authorization.GroupCheck", NULL, NULL, NULL};
static const cel_opaque_vt VT_RESOURCECHECK = {"kubernetes.authorization.ResourceCheck", NULL, NULL, NULL};
static const cel_opaque_vt VT_DECISION = {"kubernetes.authorization.Decision", NULL, NULL, NULL};

#define ARG_STR(i) (args[i].u.s), ((size_t)args[i].n)

/* ------------------------------------------------------------------------------------------------------------ */
/* regex: find / findAll                                                                                         */
/* ------------------------------------------------------------------------------------------------------------ */

static void free_regex(void *p)
{
    cel_regex_free(p);
}

static void *prepare_regex(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                           const char **error)
{
    if (n < 2 || !is_const[1] || consts[1].kind != CEL_STRING)
        return NULL;
    char ebuf[512];
    cel_regex *re = cel_regex_compile(consts[1].u.s, consts[1].n, 0, CEL_REGEX_GO_ERRORS, ebuf, sizeof ebuf);
    if (!re) {
        *error = kg_arena_strdup(cel_prepare_arena(pc), ebuf);
        return NULL;
    }
    cel_prepare_on_free(pc, free_regex, re);
    return re;
}

static cel_regex *get_regex(cel_call_ctx *ctx, const cel_value *pat, bool *owned, cel_value *err)
{
    cel_regex *re = cel_call_state(ctx);
    *owned = false;
    if (re)
        return re;
    char ebuf[512];
    re = cel_regex_compile(pat->u.s, pat->n, 0, CEL_REGEX_GO_ERRORS, ebuf, sizeof ebuf);
    if (!re) {
        *err = cel_error_new(cel_call_arena(ctx), "Illegal regex: %s", ebuf);
        return NULL;
    }
    *owned = true;
    return re;
}

static cel_value fn_find(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    bool owned;
    cel_value err;
    cel_regex *re = get_regex(ctx, &args[1], &owned, &err);
    if (!re)
        return err;
    size_t s, e;
    cel_value r = cel_string("", 0);
    if (cel_regex_find(re, ARG_STR(0), 0, &s, &e))
        r = cel_string(args[0].u.s + s, e - s);
    if (owned)
        cel_regex_free(re);
    return r;
}

typedef struct match_acc {
    kg_arena *a;
    const char *base;
    cel_value *items;
    size_t n, cap;
} match_acc;

static bool collect_match(void *ud, size_t s, size_t e)
{
    match_acc *m = ud;
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 8;
        m->items = kg_arena_realloc(m->a, m->items, m->cap * sizeof(cel_value), nc * sizeof(cel_value));
        m->cap = nc;
    }
    m->items[m->n++] = cel_string(m->base + s, e - s);
    return true;
}

static cel_value find_all(cel_call_ctx *ctx, const cel_value *args, int64_t limit)
{
    bool owned;
    cel_value err;
    cel_regex *re = get_regex(ctx, &args[1], &owned, &err);
    if (!re)
        return err;
    match_acc m = {cel_call_arena(ctx), args[0].u.s, NULL, 0, 0};
    cel_regex_find_all(re, ARG_STR(0), limit, collect_match, &m);
    if (owned)
        cel_regex_free(re);
    return cel_list_new(m.a, m.items, m.n);
}

static cel_value fn_find_all(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return find_all(ctx, args, -1);
}
static cel_value fn_find_all_n(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return find_all(ctx, args, args[2].u.i);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* lists                                                                                                         */
/* ------------------------------------------------------------------------------------------------------------ */

static bool is_num(const cel_value *v)
{
    return v->kind == CEL_INT || v->kind == CEL_UINT || v->kind == CEL_DOUBLE;
}

static int cmp3(long double a, long double b)
{
    return (a > b) - (a < b);
}

/* CEL ordering with cross-type numeric comparison; false when the pair is not comparable. */
static bool compare_vals(const cel_value *a, const cel_value *b, int *out)
{
    if (is_num(a) && is_num(b)) {
        if (a->kind == CEL_INT && b->kind == CEL_INT)
            *out = (a->u.i > b->u.i) - (a->u.i < b->u.i);
        else if (a->kind == CEL_UINT && b->kind == CEL_UINT)
            *out = (a->u.u > b->u.u) - (a->u.u < b->u.u);
        else if (a->kind == CEL_INT && b->kind == CEL_UINT)
            *out = a->u.i < 0 ? -1 : (((uint64_t)a->u.i > b->u.u) - ((uint64_t)a->u.i < b->u.u));
        else if (a->kind == CEL_UINT && b->kind == CEL_INT)
            *out = b->u.i < 0 ? 1 : ((a->u.u > (uint64_t)b->u.i) - (a->u.u < (uint64_t)b->u.i));
        else {
            long double x = a->kind == CEL_INT    ? (long double)a->u.i
                            : a->kind == CEL_UINT ? (long double)a->u.u
                                                  : a->u.d;
            long double y = b->kind == CEL_INT    ? (long double)b->u.i
                            : b->kind == CEL_UINT ? (long double)b->u.u
                                                  : b->u.d;
            *out = cmp3(x, y);
        }
        return true;
    }
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CEL_BOOL: *out = (int)a->u.b - (int)b->u.b; return true;
    case CEL_STRING:
    case CEL_BYTES: {
        size_t m = a->n < b->n ? a->n : b->n;
        int c = m ? memcmp(a->u.s, b->u.s, m) : 0;
        *out = c ? (c > 0 ? 1 : -1) : (a->n > b->n) - (a->n < b->n);
        return true;
    }
    case CEL_DURATION: *out = (a->u.i > b->u.i) - (a->u.i < b->u.i); return true;
    case CEL_TIMESTAMP:
        *out = a->u.i != b->u.i ? ((a->u.i > b->u.i) ? 1 : -1) : ((a->n > b->n) - (a->n < b->n));
        return true;
    default: return false;
    }
}

static cel_value fn_is_sorted(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t sz = cel_list_size(&args[0]);
    cel_value prev = {0};
    for (size_t i = 0; i < sz; i++) {
        cel_value v = cel_list_get(ctx, &args[0], i);
        if (v.kind == CEL_ERROR)
            return v;
        if (i > 0) {
            int c;
            if (!compare_vals(&prev, &v, &c))
                return no_overload(ctx);
            if (c == 1)
                return cel_bool(false);
        }
        prev = v;
    }
    return cel_bool(true);
}

static cel_value list_minmax(cel_call_ctx *ctx, const cel_value *list, int prefer, const char *op)
{
    size_t sz = cel_list_size(list);
    cel_value best = {0};
    for (size_t i = 0; i < sz; i++) {
        cel_value v = cel_list_get(ctx, list, i);
        if (v.kind == CEL_ERROR)
            return v;
        if (i == 0) {
            best = v;
            continue;
        }
        int c;
        if (!compare_vals(&best, &v, &c))
            return no_overload(ctx);
        if (c == prefer)
            best = v;
    }
    if (sz == 0)
        return cel_error_new(cel_call_arena(ctx), "%s called on empty list", op);
    return best;
}
static cel_value fn_min(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return list_minmax(ctx, &args[0], 1, "min");
}
static cel_value fn_max(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return list_minmax(ctx, &args[0], -1, "max");
}

static cel_value list_sum(cel_call_ctx *ctx, const cel_value *list, cel_value acc)
{
    size_t sz = cel_list_size(list);
    for (size_t i = 0; i < sz; i++) {
        cel_value v = cel_list_get(ctx, list, i);
        if (v.kind == CEL_ERROR)
            return v;
        if (v.kind != acc.kind)
            return no_overload(ctx);
        switch (v.kind) {
        case CEL_INT:
            if (__builtin_add_overflow(acc.u.i, v.u.i, &acc.u.i))
                return err_msg(ctx, "integer overflow");
            break;
        case CEL_UINT:
            if (__builtin_add_overflow(acc.u.u, v.u.u, &acc.u.u))
                return err_msg(ctx, "unsigned integer overflow");
            break;
        case CEL_DOUBLE: acc.u.d += v.u.d; break;
        case CEL_DURATION:
            if (__builtin_add_overflow(acc.u.i, v.u.i, &acc.u.i))
                return err_msg(ctx, "integer overflow");
            break;
        default: return no_overload(ctx);
        }
    }
    return acc;
}
/* One implementation for the four overloads: the accumulator starts at the zero of the elements' kind (runtime
 * dispatch cannot tell list(int) from list(uint)); an empty list gives the zero of the overload's type (ud). */
static const uint8_t ZERO_INT = CEL_INT, ZERO_UINT = CEL_UINT, ZERO_DOUBLE = CEL_DOUBLE, ZERO_DURATION = CEL_DURATION;

static cel_value zero_of(int kind)
{
    switch (kind) {
    case CEL_UINT: return cel_uint(0);
    case CEL_DOUBLE: return cel_double(0);
    case CEL_DURATION: return cel_duration(0);
    default: return cel_int(0);
    }
}

static cel_value fn_sum(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const uint8_t *zk = cel_call_userdata(ctx);
    if (cel_list_size(&args[0]) == 0)
        return zero_of(zk ? *zk : CEL_INT);
    cel_value first = cel_list_get(ctx, &args[0], 0);
    if (first.kind == CEL_ERROR)
        return first;
    if (first.kind != CEL_INT && first.kind != CEL_UINT && first.kind != CEL_DOUBLE && first.kind != CEL_DURATION)
        return no_overload(ctx);
    return list_sum(ctx, &args[0], zero_of(first.kind));
}

static cel_value fn_index_of(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t sz = cel_list_size(&args[0]);
    for (size_t i = 0; i < sz; i++) {
        cel_value v = cel_list_get(ctx, &args[0], i);
        if (cel_value_equal(ctx, &v, &args[1]))
            return cel_int((int64_t)i);
    }
    return cel_int(-1);
}
static cel_value fn_last_index_of(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t sz = cel_list_size(&args[0]);
    for (size_t i = sz; i-- > 0;) {
        cel_value v = cel_list_get(ctx, &args[0], i);
        if (cel_value_equal(ctx, &v, &args[1]))
            return cel_int((int64_t)i);
    }
    return cel_int(-1);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* constant arguments parsed once, when the program is built (url('...'), quantity('1Gi'), cidr('10.0.0.0/8'), ...)   */
/* A constant that does not parse is left to the call, which reports the error at runtime as upstream does. The     */
/* cost hooks still charge the parse on every call, so costs are unchanged.                                          */
/* ------------------------------------------------------------------------------------------------------------ */

static void *prepare_url(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                         const char **error)
{
    (void)error;
    if (n < 1 || !is_const[0] || consts[0].kind != CEL_STRING)
        return NULL;
    kg_arena *a = cel_prepare_arena(pc);
    cel_k8s_url *u = kg_arena_alloc(a, sizeof *u);
    return cel_k8s_url_from_string(a, consts[0].u.s, consts[0].n, u, NULL) ? u : NULL;
}
static void *prepare_quantity(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                              const char **error)
{
    (void)error;
    if (n < 1 || !is_const[0] || consts[0].kind != CEL_STRING)
        return NULL;
    kg_arena *a = cel_prepare_arena(pc);
    cel_k8s_quantity *q = kg_arena_alloc(a, sizeof *q);
    return cel_k8s_quantity_parse(a, consts[0].u.s, consts[0].n, q, NULL) ? q : NULL;
}
static void *prepare_ip(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                        const char **error)
{
    (void)error;
    if (n < 1 || !is_const[0] || consts[0].kind != CEL_STRING)
        return NULL;
    kg_arena *a = cel_prepare_arena(pc);
    cel_k8s_ip *ip = kg_arena_alloc(a, sizeof *ip);
    return cel_k8s_ip_parse(a, consts[0].u.s, consts[0].n, ip, NULL) ? ip : NULL;
}
static void *prepare_cidr(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                          const char **error)
{
    (void)error;
    if (n < 1 || !is_const[0] || consts[0].kind != CEL_STRING)
        return NULL;
    kg_arena *a = cel_prepare_arena(pc);
    cel_k8s_cidr *c = kg_arena_alloc(a, sizeof *c);
    return cel_k8s_cidr_parse(a, consts[0].u.s, consts[0].n, c, NULL) ? c : NULL;
}
static void *prepare_semver(cel_prepare_ctx *pc, const cel_value *consts, const bool *is_const, size_t n,
                            const char **error)
{
    (void)error;
    if (n < 1 || !is_const[0] || consts[0].kind != CEL_STRING)
        return NULL;
    bool norm = false;
    if (n > 1) {
        if (!is_const[1] || consts[1].kind != CEL_BOOL)
            return NULL;
        norm = consts[1].u.b;
    }
    kg_arena *a = cel_prepare_arena(pc);
    cel_k8s_semver *v = kg_arena_alloc(a, sizeof *v);
    bool ok = norm ? cel_k8s_semver_parse_normalize(a, consts[0].u.s, consts[0].n, v, NULL)
                   : cel_k8s_semver_parse(a, consts[0].u.s, consts[0].n, v, NULL);
    return ok ? v : NULL;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* urls                                                                                                          */
/* ------------------------------------------------------------------------------------------------------------ */

static cel_value fn_url(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_URL, pre);
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_url *u = kg_arena_alloc(a, sizeof *u);
    const char *err = NULL;
    if (!cel_k8s_url_from_string(a, ARG_STR(0), u, &err))
        return err_msg(ctx, err);
    return cel_opaque(&VT_URL, u);
}
static cel_value fn_is_url(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_url u;
    return cel_bool(cel_k8s_url_parse_request_uri(cel_call_arena(ctx), ARG_STR(0), &u, NULL));
}
static cel_value fn_url_scheme(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return str_val(((const cel_k8s_url *)args[0].u.ptr)->scheme);
}
static cel_value fn_url_host(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return str_val(((const cel_k8s_url *)args[0].u.ptr)->host);
}
static cel_value fn_url_hostname(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return str_val(cel_k8s_url_hostname(cel_call_arena(ctx), args[0].u.ptr));
}
static cel_value fn_url_port(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return str_val(cel_k8s_url_port(cel_call_arena(ctx), args[0].u.ptr));
}
static cel_value fn_url_escaped_path(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return str_val(cel_k8s_url_escaped_path(cel_call_arena(ctx), args[0].u.ptr));
}
static cel_value fn_url_query(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_query_entry *ents;
    size_t ne = cel_k8s_url_query(a, args[0].u.ptr, &ents);
    cel_value *keys = kg_arena_alloc(a, (ne ? ne : 1) * sizeof(cel_value));
    cel_value *vals = kg_arena_alloc(a, (ne ? ne : 1) * sizeof(cel_value));
    for (size_t i = 0; i < ne; i++) {
        keys[i] = str_val(ents[i].key);
        cel_value *items = kg_arena_alloc(a, ents[i].nvals * sizeof(cel_value));
        for (size_t j = 0; j < ents[i].nvals; j++)
            items[j] = str_val(ents[i].vals[j]);
        vals[i] = cel_list_new(a, items, ents[i].nvals);
    }
    return cel_map_new(a, keys, vals, ne);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* quantity                                                                                                      */
/* ------------------------------------------------------------------------------------------------------------ */

static cel_value quantity_val(kg_arena *a, const cel_k8s_quantity *q)
{
    cel_k8s_quantity *p = kg_arena_alloc(a, sizeof *p);
    *p = *q;
    return cel_opaque(&VT_QUANTITY, p);
}
#define Q(i) ((const cel_k8s_quantity *)args[i].u.ptr)

static cel_value fn_quantity(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_QUANTITY, pre);
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_quantity q;
    const char *err;
    if (!cel_k8s_quantity_parse(a, ARG_STR(0), &q, &err))
        return err_msg(ctx, err);
    return quantity_val(a, &q);
}
static cel_value fn_is_quantity(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_quantity q;
    return cel_bool(cel_k8s_quantity_parse(cel_call_arena(ctx), ARG_STR(0), &q, NULL));
}
static cel_value fn_q_sign(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int(cel_k8s_quantity_sign(Q(0)));
}
static cel_value fn_q_gt(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_quantity_cmp(Q(0), Q(1)) == 1);
}
static cel_value fn_q_lt(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_quantity_cmp(Q(0), Q(1)) == -1);
}
static cel_value fn_q_cmp(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int(cel_k8s_quantity_cmp(Q(0), Q(1)));
}
static cel_value fn_q_float(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_double(cel_k8s_quantity_as_approximate_float(Q(0)));
}
static cel_value fn_q_as_int(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    int64_t v;
    if (!cel_k8s_quantity_as_int64(Q(0), &v))
        return err_msg(ctx, "cannot convert value to integer");
    return cel_int(v);
}
static cel_value fn_q_is_int(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    int64_t v;
    return cel_bool(cel_k8s_quantity_as_int64(Q(0), &v));
}
static cel_value q_addsub(cel_call_ctx *ctx, const cel_k8s_quantity *x, const cel_k8s_quantity *y, bool sub)
{
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_quantity r;
    bool ok = sub ? cel_k8s_quantity_sub(a, x, y, &r) : cel_k8s_quantity_add(a, x, y, &r);
    if (!ok)
        return err_msg(ctx, "quantity arithmetic result too large");
    return quantity_val(a, &r);
}
static cel_value fn_q_add(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return q_addsub(ctx, Q(0), Q(1), false);
}
static cel_value fn_q_add_int(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_quantity y = cel_k8s_quantity_from_int(args[1].u.i);
    return q_addsub(ctx, Q(0), &y, false);
}
static cel_value fn_q_sub(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return q_addsub(ctx, Q(0), Q(1), true);
}
static cel_value fn_q_sub_int(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_quantity y = cel_k8s_quantity_from_int(args[1].u.i);
    return q_addsub(ctx, Q(0), &y, true);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* ip / cidr                                                                                                     */
/* ------------------------------------------------------------------------------------------------------------ */

#define IPP(i) ((const cel_k8s_ip *)args[i].u.ptr)
#define CIDRP(i) ((const cel_k8s_cidr *)args[i].u.ptr)

static uint64_t cidr_size(const cel_value *v)
{
    return (uint64_t)(((const cel_k8s_cidr *)v->u.ptr)->bits + 7) / 8;
}

static cel_value ip_val(kg_arena *a, const cel_k8s_ip *ip)
{
    cel_k8s_ip *p = kg_arena_alloc(a, sizeof *p);
    *p = *ip;
    return cel_opaque(&VT_IP, p);
}
static cel_value cidr_val(kg_arena *a, const cel_k8s_cidr *c)
{
    cel_k8s_cidr *p = kg_arena_alloc(a, sizeof *p);
    *p = *c;
    return cel_opaque(&VT_CIDR, p);
}
static cel_value fn_ip(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_IP, pre);
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_ip ip;
    const char *err;
    if (!cel_k8s_ip_parse(a, ARG_STR(0), &ip, &err))
        return err_msg(ctx, err);
    return ip_val(a, &ip);
}
static cel_value fn_is_ip(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_ip ip;
    return cel_bool(cel_k8s_ip_parse(cel_call_arena(ctx), ARG_STR(0), &ip, NULL));
}
static cel_value fn_ip_is_canonical(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    bool r;
    const char *err;
    if (!cel_k8s_ip_is_canonical(cel_call_arena(ctx), ARG_STR(0), &r, &err))
        return err_msg(ctx, err);
    return cel_bool(r);
}
static cel_value fn_ip_family(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int(IPP(0)->family);
}
static cel_value fn_ip_unspec(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_ip_is_unspecified(IPP(0)));
}
static cel_value fn_ip_loopback(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_ip_is_loopback(IPP(0)));
}
static cel_value fn_ip_llmc(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_ip_is_link_local_multicast(IPP(0)));
}
static cel_value fn_ip_lluc(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_ip_is_link_local_unicast(IPP(0)));
}
static cel_value fn_ip_global(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_ip_is_global_unicast(IPP(0)));
}
static cel_value fn_ip_string(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return ip_to_string_vt(ctx, &args[0]);
}
static cel_value fn_cidr(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_CIDR, pre);
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_cidr c;
    const char *err;
    if (!cel_k8s_cidr_parse(a, ARG_STR(0), &c, &err))
        return err_msg(ctx, err);
    return cidr_val(a, &c);
}
static cel_value fn_is_cidr(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_cidr c;
    return cel_bool(cel_k8s_cidr_parse(cel_call_arena(ctx), ARG_STR(0), &c, NULL));
}
static cel_value fn_cidr_contains_ip(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_cidr_contains_ip(CIDRP(0), IPP(1)));
}
static cel_value fn_cidr_contains_ip_str(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_ip ip;
    const char *err;
    if (!cel_k8s_ip_parse(cel_call_arena(ctx), ARG_STR(1), &ip, &err))
        return err_msg(ctx, err);
    return cel_bool(cel_k8s_cidr_contains_ip(CIDRP(0), &ip));
}
static cel_value fn_cidr_contains_cidr(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_cidr_contains_cidr(CIDRP(0), CIDRP(1)));
}
static cel_value fn_cidr_contains_cidr_str(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_cidr c;
    const char *err;
    if (!cel_k8s_cidr_parse(cel_call_arena(ctx), ARG_STR(1), &c, &err))
        return err_msg(ctx, err);
    return cel_bool(cel_k8s_cidr_contains_cidr(CIDRP(0), &c));
}
static cel_value fn_cidr_ip(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return ip_val(cel_call_arena(ctx), &CIDRP(0)->ip);
}
static cel_value fn_cidr_masked(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_cidr m = cel_k8s_cidr_masked(CIDRP(0));
    return cidr_val(cel_call_arena(ctx), &m);
}
static cel_value fn_cidr_prefix_length(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int(CIDRP(0)->bits);
}
static cel_value fn_cidr_string(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return cidr_to_string_vt(ctx, &args[0]);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* semver                                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */

#define SV(i) ((const cel_k8s_semver *)args[i].u.ptr)

static cel_value semver_make(cel_call_ctx *ctx, const cel_value *s, bool normalize)
{
    kg_arena *a = cel_call_arena(ctx);
    cel_k8s_semver *v = kg_arena_alloc(a, sizeof *v);
    const char *err = NULL;
    bool ok = normalize ? cel_k8s_semver_parse_normalize(a, s->u.s, s->n, v, &err)
                        : cel_k8s_semver_parse(a, s->u.s, s->n, v, &err);
    if (!ok)
        return err_msg(ctx, err);
    return cel_opaque(&VT_SEMVER, v);
}
static cel_value fn_semver(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_SEMVER, pre);
    return semver_make(ctx, &args[0], false);
}
static cel_value fn_semver_norm(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const void *pre = cel_call_state(ctx);
    if (pre)
        return cel_opaque(&VT_SEMVER, pre);
    return semver_make(ctx, &args[0], args[1].u.b);
}
static cel_value fn_is_semver(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_semver v;
    return cel_bool(cel_k8s_semver_parse(cel_call_arena(ctx), ARG_STR(0), &v, NULL));
}
static cel_value fn_is_semver_norm(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    cel_k8s_semver v;
    kg_arena *a = cel_call_arena(ctx);
    return cel_bool(args[1].u.b ? cel_k8s_semver_parse_normalize(a, ARG_STR(0), &v, NULL)
                                : cel_k8s_semver_parse(a, ARG_STR(0), &v, NULL));
}
static cel_value fn_sv_major(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int((int64_t)SV(0)->major);
}
static cel_value fn_sv_minor(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int((int64_t)SV(0)->minor);
}
static cel_value fn_sv_patch(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int((int64_t)SV(0)->patch);
}
static cel_value fn_sv_gt(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_semver_compare(SV(0), SV(1)) == 1);
}
static cel_value fn_sv_lt(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(cel_k8s_semver_compare(SV(0), SV(1)) == -1);
}
static cel_value fn_sv_cmp(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_int(cel_k8s_semver_compare(SV(0), SV(1)));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* format                                                                                                        */
/* ------------------------------------------------------------------------------------------------------------ */

static cel_value fn_format_const(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)args, (void)n;
    return cel_opaque(&VT_FORMAT, cel_call_userdata(ctx));
}
static cel_value fn_format_named(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const cel_k8s_format *f = cel_k8s_format_lookup(ARG_STR(0));
    if (!f)
        return cel_optional_none();
    return cel_optional_of(cel_call_arena(ctx), cel_opaque(&VT_FORMAT, f));
}
static cel_value fn_format_validate(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const cel_k8s_format *f = args[0].u.ptr;
    kg_arena *a = cel_call_arena(ctx);
    const char *errs[4];
    size_t k = f->validate(a, ARG_STR(1), errs);
    if (k == 0)
        return cel_optional_none();
    cel_value items[4];
    for (size_t i = 0; i < k; i++)
        items[i] = str_val(errs[i]);
    return cel_optional_of(a, cel_list_new(a, items, k));
}
static uint64_t cost_format_validate(cel_call_ctx *ctx, const cel_value *args, size_t n, const cel_value *r)
{
    (void)n, (void)r;
    const cel_k8s_format *f = args[0].u.ptr;
    return regex_cost(value_size(ctx, &args[1]), (uint64_t)f->max_regex_size);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* authz                                                                                                         */
/* ------------------------------------------------------------------------------------------------------------ */

typedef struct authz_obj {
    const cel_k8s_authorizer *az;
    const char *sa_ns, *sa_name;
} authz_obj;

typedef struct path_check {
    const authz_obj *au;
    const char *path;
} path_check;

typedef struct resource_check {
    const authz_obj *au;
    const char *group, *resource, *subresource, *ns, *name, *field_selector, *label_selector;
} resource_check;

typedef struct decision {
    kg_authz_decision d;
    const char *reason, *error;
} decision;

cel_value cel_k8s_authorizer_value(kg_arena *a, const cel_k8s_authorizer *az)
{
    authz_obj *o = kg_arena_calloc(a, sizeof *o);
    o->az = az;
    return cel_opaque(&VT_AUTHORIZER, o);
}

cel_value cel_k8s_request_resource_value(kg_arena *a, const cel_k8s_authorizer *az, const char *group,
                                         const char *resource, const char *subresource, const char *namespace_,
                                         const char *name)
{
    authz_obj *o = kg_arena_calloc(a, sizeof *o);
    o->az = az;
    resource_check *rc = kg_arena_calloc(a, sizeof *rc);
    rc->au = o;
    rc->group = group ? group : "";
    rc->resource = resource ? resource : "";
    rc->subresource = subresource ? subresource : "";
    rc->ns = namespace_ ? namespace_ : "";
    rc->name = name ? name : "";
    return cel_opaque(&VT_RESOURCECHECK, rc);
}

static const char *dup_arg(cel_call_ctx *ctx, const cel_value *v)
{
    return kg_arena_strndup(cel_call_arena(ctx), v->u.s, v->n);
}

/* strings.TrimSpace(s) == "" (ASCII and the Latin-1 Unicode spaces Go also trims) */
static bool blank(const cel_value *v)
{
    const unsigned char *s = (const unsigned char *)v->u.s;
    for (uint32_t i = 0; i < v->n; i++) {
        unsigned char c = s[i];
        if (c == ' ' || (c >= '\t' && c <= '\r'))
            continue;
        if (c == 0xC2 && i + 1 < v->n && (s[i + 1] == 0x85 || s[i + 1] == 0xA0)) {
            i++;
            continue;
        }
        return false;
    }
    return true;
}

static cel_value fn_az_path(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    if (blank(&args[1]))
        return err_msg(ctx, "path must not be empty");
    path_check *p = kg_arena_calloc(cel_call_arena(ctx), sizeof *p);
    p->au = args[0].u.ptr;
    p->path = dup_arg(ctx, &args[1]);
    return cel_opaque(&VT_PATHCHECK, p);
}
static cel_value fn_az_group(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    resource_check *g = kg_arena_calloc(cel_call_arena(ctx), sizeof *g);
    g->au = args[0].u.ptr;
    g->group = dup_arg(ctx, &args[1]);
    g->resource = g->subresource = g->ns = g->name = "";
    return cel_opaque(&VT_GROUPCHECK, g);
}
static cel_value fn_az_service_account(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const authz_obj *base = args[0].u.ptr;
    const char *errs[4];
    kg_arena *a = cel_call_arena(ctx);
    if (cel_k8s_is_dns1123_subdomain(a, args[2].u.s, args[2].n, errs))
        return err_msg(ctx, "Invalid service account name");
    if (cel_k8s_is_dns1123_label(a, args[1].u.s, args[1].n, errs))
        return err_msg(ctx, "Invalid service account namespace");
    authz_obj *o = kg_arena_calloc(cel_call_arena(ctx), sizeof *o);
    o->az = base->az;
    o->sa_ns = dup_arg(ctx, &args[1]);
    o->sa_name = dup_arg(ctx, &args[2]);
    return cel_opaque(&VT_AUTHORIZER, o);
}
static cel_value rc_with(cel_call_ctx *ctx, const cel_value *args, int field)
{
    resource_check *r = kg_arena_alloc(cel_call_arena(ctx), sizeof *r);
    *r = *(const resource_check *)args[0].u.ptr;
    const char *v = dup_arg(ctx, &args[1]);
    switch (field) {
    case 0: r->resource = v; break;
    case 1: r->subresource = v; break;
    case 2: r->ns = v; break;
    case 3: r->name = v; break;
    case 4: r->field_selector = v; break;
    default: r->label_selector = v; break;
    }
    return cel_opaque(&VT_RESOURCECHECK, r);
}
static cel_value fn_gc_resource(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    if (blank(&args[1]))
        return err_msg(ctx, "resource must not be empty");
    return rc_with(ctx, args, 0);
}
static cel_value fn_rc_subresource(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return rc_with(ctx, args, 1);
}
static cel_value fn_rc_namespace(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return rc_with(ctx, args, 2);
}
static cel_value fn_rc_name(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return rc_with(ctx, args, 3);
}
static cel_value fn_rc_field_selector(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return rc_with(ctx, args, 4);
}
static cel_value fn_rc_label_selector(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    return rc_with(ctx, args, 5);
}

/* serviceaccount.ServiceAccountInfo{Name, Namespace}.UserInfo() */
static const kg_user_info *sa_user(kg_arena *a, const char *ns, const char *name)
{
    kg_user_info *u = kg_arena_calloc(a, sizeof *u);
    const char **groups = kg_arena_calloc(a, 2 * sizeof *groups);
    u->name = kg_arena_sprintf(a, "system:serviceaccount:%s:%s", ns, name);
    u->uid = "";
    groups[0] = KG_GROUP_SERVICEACCOUNTS;
    groups[1] = kg_arena_sprintf(a, "system:serviceaccounts:%s", ns);
    u->groups = groups;
    u->ngroups = 2;
    return u;
}

static cel_value run_check(cel_call_ctx *ctx, const authz_obj *au, kg_authz_attributes *attrs)
{
    kg_arena *a = cel_call_arena(ctx);
    decision *d = kg_arena_calloc(a, sizeof *d);
    if (!au->az || !au->az->authz) {
        d->d = KG_AUTHZ_NO_OPINION;
        d->error = "no authorizer available";
    } else {
        attrs->user = au->sa_name ? sa_user(a, au->sa_ns, au->sa_name) : au->az->user;
        KG_ERROR_DECL(err);
        d->d = kg_authz_authorize(au->az->authz, attrs, a, &d->reason, &err);
        if (err.code)
            d->error = kg_arena_strdup(a, err.msg[0] ? err.msg : kg_errcode_name(err.code));
    }
    return cel_opaque(&VT_DECISION, d);
}
static cel_value fn_path_check(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const path_check *p = args[0].u.ptr;
    kg_authz_attributes at = {0};
    at.path = p->path;
    at.verb = dup_arg(ctx, &args[1]);
    return run_check(ctx, p->au, &at);
}
static cel_value fn_resource_check(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    const resource_check *r = args[0].u.ptr;
    kg_authz_attributes at = {0};
    at.resource_request = true;
    at.verb = dup_arg(ctx, &args[1]);
    at.api_group = r->group;
    at.api_version = "*";
    at.resource = r->resource;
    at.subresource = r->subresource;
    at.namespace_ = r->ns;
    at.name = r->name;
    at.field_selector = r->field_selector && r->field_selector[0] ? r->field_selector : NULL;
    at.label_selector = r->label_selector && r->label_selector[0] ? r->label_selector : NULL;
    return run_check(ctx, r->au, &at);
}
#define DEC(i) ((const decision *)args[i].u.ptr)
static cel_value fn_dec_allowed(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(DEC(0)->d == KG_AUTHZ_ALLOW);
}
static cel_value fn_dec_reason(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return str_val(DEC(0)->reason ? DEC(0)->reason : "");
}
static cel_value fn_dec_errored(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return cel_bool(DEC(0)->error != NULL);
}
static cel_value fn_dec_error(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)ctx, (void)n;
    return str_val(DEC(0)->error ? DEC(0)->error : "");
}

/* ------------------------------------------------------------------------------------------------------------ */
/* jsonpatch (MAP)                                                                                               */
/* ------------------------------------------------------------------------------------------------------------ */

static cel_value fn_jsonpatch_escape_key(cel_call_ctx *ctx, const cel_value *args, size_t n)
{
    (void)n;
    size_t extra = 0;
    for (uint32_t i = 0; i < args[0].n; i++)
        extra += args[0].u.s[i] == '~' || args[0].u.s[i] == '/';
    if (extra == 0)
        return args[0];
    char *out = kg_arena_alloc(cel_call_arena(ctx), args[0].n + extra + 1);
    size_t k = 0;
    for (uint32_t i = 0; i < args[0].n; i++) {
        char c = args[0].u.s[i];
        if (c == '~' || c == '/') {
            out[k++] = '~';
            out[k++] = c == '~' ? '0' : '1';
        } else {
            out[k++] = c;
        }
    }
    out[k] = '\0';
    return cel_string(out, k);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* registration                                                                                                  */
/* ------------------------------------------------------------------------------------------------------------ */

unsigned cel_k8s_libraries_for_version(int v)
{
    if (v <= 0)
        return CEL_K8S_LIB_ALL;
    unsigned m = CEL_K8S_LIB_URLS | CEL_K8S_LIB_REGEX | CEL_K8S_LIB_LISTS;
    if (v >= 27)
        m |= CEL_K8S_LIB_AUTHZ;
    if (v >= 28)
        m |= CEL_K8S_LIB_QUANTITY;
    if (v >= 30)
        m |= CEL_K8S_LIB_IP | CEL_K8S_LIB_CIDR;
    if (v >= 31)
        m |= CEL_K8S_LIB_FORMAT | CEL_K8S_LIB_AUTHZ_SELECTORS;
    if (v >= 33)
        m |= CEL_K8S_LIB_SEMVER;
    return m;
}

const cel_type *cel_k8s_type_authorizer(cel_env *env)
{
    return cel_type_opaque(env, "kubernetes.authorization.Authorizer", NULL, 0);
}
const cel_type *cel_k8s_type_resource_check(cel_env *env)
{
    return cel_type_opaque(env, "kubernetes.authorization.ResourceCheck", NULL, 0);
}

/* ---- static cost estimates (cost.go EstimateCallCost), from the argument size ranges ---- */

static uint64_t est_mul(uint64_t v, double f)
{
    if (v == UINT64_MAX)
        return UINT64_MAX;
    double r = ceil((double)v * f);
    return r >= 1.8e19 ? UINT64_MAX : (uint64_t)r;
}
static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return (b && a > UINT64_MAX / b) ? UINT64_MAX : a * b;
}
static cel_size_range est_traversal01(const cel_size_range *sz, size_t n)
{
    (void)n;
    return (cel_size_range){est_mul(sz[0].min, 0.1), est_mul(sz[0].max, 0.1)};
}
static cel_size_range est_traversal02(const cel_size_range *sz, size_t n)
{
    (void)n;
    return (cel_size_range){est_mul(sz[0].min, 0.2), est_mul(sz[0].max, 0.2)};
}
static cel_size_range est_regex(const cel_size_range *sz, size_t n)
{
    (void)n;
    return (cel_size_range){sat_mul(est_mul(sat_add(sz[0].min, 1), 0.1), est_mul(sz[1].min, 0.25)),
                            sat_mul(est_mul(sat_add(sz[0].max, 1), 0.1), est_mul(sz[1].max, 0.25))};
}
/* one unit per element (upstream adds the traversal of string elements; element sizes are not known here) */
static cel_size_range est_list(const cel_size_range *sz, size_t n)
{
    (void)n;
    return sz[0];
}
static cel_size_range est_check(const cel_size_range *sz, size_t n)
{
    (void)sz, (void)n;
    return (cel_size_range){350000, 350000};
}
/* an IP is 4 or 16 bytes: (sz+sz)·0.1 = {1, 4}; a string argument adds its parse */
static cel_size_range est_contains_ip_ip(const cel_size_range *sz, size_t n)
{
    (void)sz, (void)n;
    return (cel_size_range){1, 4};
}
static cel_size_range est_contains_ip_str(const cel_size_range *sz, size_t n)
{
    (void)n;
    return (cel_size_range){sat_add(1, est_mul(sz[1].min, 0.1)), sat_add(4, est_mul(sz[1].max, 0.1))};
}
/* containsCIDR adds the masking: sz·0.1 = {1, 2}, and 1 */
static cel_size_range est_contains_cidr_cidr(const cel_size_range *sz, size_t n)
{
    (void)sz, (void)n;
    return (cel_size_range){1 + 1 + 1, 4 + 2 + 1};
}
static cel_size_range est_contains_cidr_str(const cel_size_range *sz, size_t n)
{
    (void)n;
    return (cel_size_range){sat_add(3, est_mul(sz[1].min, 0.1)), sat_add(7, est_mul(sz[1].max, 0.1))};
}

/* registers overloads, deriving each one's static estimate from its runtime cost rule */
static bool add(cel_env *env, const char *name, cel_overload *ovls, size_t n, cel_error *err)
{
    for (size_t i = 0; i < n; i++) {
        cel_overload *o = &ovls[i];
        if (!o->prepare) {
            if (o->impl == fn_url)
                o->prepare = prepare_url;
            else if (o->impl == fn_quantity)
                o->prepare = prepare_quantity;
            else if (o->impl == fn_ip)
                o->prepare = prepare_ip;
            else if (o->impl == fn_cidr)
                o->prepare = prepare_cidr;
            else if (o->impl == fn_semver || o->impl == fn_semver_norm)
                o->prepare = prepare_semver;
        }
        if (o->estimate)
            continue;
        bool str1 = o->nargs > 1 && o->args[1] == cel_type_string();
        if (o->cost == cost_str_traversal)
            o->estimate = est_traversal01;
        else if (o->cost == cost_str_traversal2)
            o->estimate = est_traversal02;
        else if (o->cost == cost_regex)
            o->estimate = est_regex;
        else if (o->cost == cost_list)
            o->estimate = est_list;
        else if (o->cost == cost_check)
            o->estimate = est_check;
        else if (o->cost == cost_contains_ip)
            o->estimate = str1 ? est_contains_ip_str : est_contains_ip_ip;
        else if (o->cost == cost_contains_cidr)
            o->estimate = str1 ? est_contains_cidr_str : est_contains_cidr_cidr;
    }
    return cel_env_add_function(env, name, ovls, n, err);
}
#define ADD(name, ...)                                                                                                 \
    do {                                                                                                               \
        cel_overload o_[] = {__VA_ARGS__};                                                                             \
        if (!add(env, name, o_, sizeof o_ / sizeof o_[0], err))                                                        \
            return false;                                                                                              \
    } while (0)

static bool reg_regex(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string(), *I = cel_type_int();
    const cel_type *LS = cel_type_list(env, S);
    cel_overload f = OV("string_find_string", MEMBER, S, fn_find, cost_regex, S, S);
    f.prepare = prepare_regex;
    cel_overload fa = OV("string_find_all_string", MEMBER, LS, fn_find_all, cost_regex, S, S);
    fa.prepare = prepare_regex;
    cel_overload fan = OV("string_find_all_string_int", MEMBER, LS, fn_find_all_n, cost_regex, S, S, I);
    fan.prepare = prepare_regex;
    if (!add(env, "find", &f, 1, err))
        return false;
    cel_overload all[2] = {fa, fan};
    return add(env, "findAll", all, 2, err);
}

static bool reg_lists(cel_env *env, cel_error *err)
{
    static const char *names[8] = {"int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"};
    const cel_type *ts[8] = {cel_type_int(),      cel_type_uint(),      cel_type_double(), cel_type_bool(),
                             cel_type_duration(), cel_type_timestamp(), cel_type_string(), cel_type_bytes()};
    kg_arena *a = cel_env_arena(env);
    cel_overload sorted[8], mins[8], maxs[8], sums[4];
    for (int i = 0; i < 8; i++) {
        const cel_type *L = cel_type_list(env, ts[i]);
        sorted[i] = (cel_overload)OV(kg_arena_sprintf(a, "list_%s_is_sorted_bool", names[i]), MEMBER, cel_type_bool(),
                                     fn_is_sorted, cost_list, L);
        mins[i] = (cel_overload)OV(kg_arena_sprintf(a, "list_%s_min_%s", names[i], names[i]), MEMBER, ts[i], fn_min,
                                   cost_list, L);
        maxs[i] = (cel_overload)OV(kg_arena_sprintf(a, "list_%s_max_%s", names[i], names[i]), MEMBER, ts[i], fn_max,
                                   cost_list, L);
    }
    const uint8_t *zeros[4] = {&ZERO_INT, &ZERO_UINT, &ZERO_DOUBLE, &ZERO_DURATION};
    const int sumidx[4] = {0, 1, 2, 4};
    for (int i = 0; i < 4; i++) {
        int k = sumidx[i];
        sums[i] = (cel_overload)OV(kg_arena_sprintf(a, "list_%s_sum_%s", names[k], names[k]), MEMBER, ts[k], fn_sum,
                                   cost_list, cel_type_list(env, ts[k]));
        sums[i].ud = (void *)zeros[i];
    }
    if (!add(env, "isSorted", sorted, 8, err) || !add(env, "min", mins, 8, err) || !add(env, "max", maxs, 8, err) ||
        !add(env, "sum", sums, 4, err))
        return false;
    const cel_type *A = cel_type_param(env, "A"), *LA = cel_type_list(env, A);
    ADD("indexOf", OV("list_a_index_of_int", MEMBER, cel_type_int(), fn_index_of, cost_list, LA, A));
    ADD("lastIndexOf", OV("list_a_last_index_of_int", MEMBER, cel_type_int(), fn_last_index_of, cost_list, LA, A));
    return true;
}

static bool reg_urls(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string(), *U = cel_type_opaque(env, "kubernetes.URL", NULL, 0);
    ADD("url", OV("string_to_url", GLOBAL, U, fn_url, cost_str_traversal, S));
    ADD("getScheme", OV("url_get_scheme", MEMBER, S, fn_url_scheme, NULL, U));
    ADD("getHost", OV("url_get_host", MEMBER, S, fn_url_host, NULL, U));
    ADD("getHostname", OV("url_get_hostname", MEMBER, S, fn_url_hostname, NULL, U));
    ADD("getPort", OV("url_get_port", MEMBER, S, fn_url_port, NULL, U));
    ADD("getEscapedPath", OV("url_get_escaped_path", MEMBER, S, fn_url_escaped_path, NULL, U));
    ADD("getQuery", OV("url_get_query", MEMBER, cel_type_map(env, S, cel_type_list(env, S)), fn_url_query, NULL, U));
    ADD("isURL", OV("is_url_string", GLOBAL, cel_type_bool(), fn_is_url, NULL, S)); /* no cost.go rule: 1 */
    return true;
}

static bool reg_quantity(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string(), *B = cel_type_bool(), *I = cel_type_int();
    const cel_type *Qt = cel_type_opaque(env, "kubernetes.Quantity", NULL, 0);
    ADD("quantity", OV("string_to_quantity", GLOBAL, Qt, fn_quantity, cost_str_traversal, S));
    ADD("isQuantity", OV("is_quantity_string", GLOBAL, B, fn_is_quantity, cost_str_traversal, S));
    ADD("sign", OV("quantity_sign", MEMBER, I, fn_q_sign, NULL, Qt));
    ADD("isGreaterThan", OV("quantity_is_greater_than", MEMBER, B, fn_q_gt, NULL, Qt, Qt));
    ADD("isLessThan", OV("quantity_is_less_than", MEMBER, B, fn_q_lt, NULL, Qt, Qt));
    ADD("compareTo", OV("quantity_compare_to", MEMBER, I, fn_q_cmp, NULL, Qt, Qt));
    ADD("asApproximateFloat", OV("quantity_get_float", MEMBER, cel_type_double(), fn_q_float, NULL, Qt));
    ADD("asInteger", OV("quantity_get_int", MEMBER, I, fn_q_as_int, NULL, Qt));
    ADD("isInteger", OV("quantity_is_integer", MEMBER, B, fn_q_is_int, NULL, Qt));
    ADD("add", OV("quantity_add", MEMBER, Qt, fn_q_add, NULL, Qt, Qt),
        OV("quantity_add_int", MEMBER, Qt, fn_q_add_int, NULL, Qt, I));
    ADD("sub", OV("quantity_sub", MEMBER, Qt, fn_q_sub, NULL, Qt, Qt),
        OV("quantity_sub_int", MEMBER, Qt, fn_q_sub_int, NULL, Qt, I));
    return true;
}

static bool reg_ip(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string(), *B = cel_type_bool();
    const cel_type *IPt = cel_type_opaque(env, "net.IP", NULL, 0);
    ADD("ip", OV("string_to_ip", GLOBAL, IPt, fn_ip, cost_str_traversal, S));
    ADD("family", OV("ip_family", MEMBER, cel_type_int(), fn_ip_family, NULL, IPt));
    ADD("ip.isCanonical", OV("ip_is_canonical", GLOBAL, B, fn_ip_is_canonical, cost_str_traversal2, S));
    ADD("isUnspecified", OV("ip_is_unspecified", MEMBER, B, fn_ip_unspec, NULL, IPt));
    ADD("isLoopback", OV("ip_is_loopback", MEMBER, B, fn_ip_loopback, NULL, IPt));
    ADD("isLinkLocalMulticast", OV("ip_is_link_local_multicast", MEMBER, B, fn_ip_llmc, NULL, IPt));
    ADD("isLinkLocalUnicast", OV("ip_is_link_local_unicast", MEMBER, B, fn_ip_lluc, NULL, IPt));
    ADD("isGlobalUnicast", OV("ip_is_global_unicast", MEMBER, B, fn_ip_global, NULL, IPt));
    ADD("isIP", OV("is_ip", GLOBAL, B, fn_is_ip, cost_str_traversal, S));
    ADD("string", OV("ip_to_string", GLOBAL, S, fn_ip_string, NULL, IPt));
    return true;
}

static bool reg_cidr(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string(), *B = cel_type_bool();
    const cel_type *IPt = cel_type_opaque(env, "net.IP", NULL, 0);
    const cel_type *Ct = cel_type_opaque(env, "net.CIDR", NULL, 0);
    ADD("cidr", OV("string_to_cidr", GLOBAL, Ct, fn_cidr, cost_str_traversal, S));
    ADD("containsIP", OV("cidr_contains_ip_string", MEMBER, B, fn_cidr_contains_ip_str, cost_contains_ip, Ct, S),
        OV("cidr_contains_ip_ip", MEMBER, B, fn_cidr_contains_ip, cost_contains_ip, Ct, IPt));
    ADD("containsCIDR",
        OV("cidr_contains_cidr_string", MEMBER, B, fn_cidr_contains_cidr_str, cost_contains_cidr, Ct, S),
        OV("cidr_contains_cidr", MEMBER, B, fn_cidr_contains_cidr, cost_contains_cidr, Ct, Ct));
    ADD("ip", OV("cidr_ip", MEMBER, IPt, fn_cidr_ip, NULL, Ct));
    ADD("prefixLength", OV("cidr_prefix_length", MEMBER, cel_type_int(), fn_cidr_prefix_length, NULL, Ct));
    ADD("masked", OV("cidr_masked", MEMBER, Ct, fn_cidr_masked, NULL, Ct));
    ADD("isCIDR", OV("is_cidr", GLOBAL, B, fn_is_cidr, cost_str_traversal, S));
    ADD("string", OV("cidr_to_string", GLOBAL, S, fn_cidr_string, NULL, Ct));
    return true;
}

static bool reg_format(cel_env *env, cel_error *err)
{
    const cel_type *S = cel_type_string();
    const cel_type *F = cel_type_opaque(env, "kubernetes.NamedFormat", NULL, 0);
    kg_arena *a = cel_env_arena(env);
    for (size_t i = 0; i < cel_k8s_nformats; i++) {
        const char *name = kg_arena_sprintf(a, "format.%s", cel_k8s_formats[i].key);
        cel_overload o = {.id = name,
                          .flags = GLOBAL,
                          .result = F,
                          .nargs = 0,
                          .impl = fn_format_const,
                          .ud = (void *)&cel_k8s_formats[i]};
        if (!add(env, name, &o, 1, err))
            return false;
    }
    cel_overload v = OV("format-validate", MEMBER, cel_type_optional(env, cel_type_list(env, S)), fn_format_validate,
                        cost_format_validate, F, S);
    if (!add(env, "validate", &v, 1, err))
        return false;
    ADD("format.named", OV("format-named", GLOBAL, cel_type_optional(env, F), fn_format_named, NULL, S));
    return true;
}

static bool reg_semver(cel_env *env, cel_error *err, bool v1)
{
    const cel_type *S = cel_type_string(), *B = cel_type_bool(), *I = cel_type_int();
    const cel_type *Sv = cel_type_opaque(env, "kubernetes.Semver", NULL, 0);
    if (v1) {
        ADD("semver", OV("string_to_semver", GLOBAL, Sv, fn_semver, cost_str_traversal, S),
            OV("string_bool_to_semver", GLOBAL, Sv, fn_semver_norm, cost_str_traversal, S, B));
        ADD("isSemver", OV("is_semver_string", GLOBAL, B, fn_is_semver, cost_str_traversal, S),
            OV("is_semver_string_bool", GLOBAL, B, fn_is_semver_norm, cost_str_traversal, S, B));
    } else {
        ADD("semver", OV("string_to_semver", GLOBAL, Sv, fn_semver, cost_str_traversal, S));
        ADD("isSemver", OV("is_semver_string", GLOBAL, B, fn_is_semver, cost_str_traversal, S));
    }
    ADD("isGreaterThan", OV("semver_is_greater_than", MEMBER, B, fn_sv_gt, NULL, Sv, Sv));
    ADD("isLessThan", OV("semver_is_less_than", MEMBER, B, fn_sv_lt, NULL, Sv, Sv));
    ADD("compareTo", OV("semver_compare_to", MEMBER, I, fn_sv_cmp, NULL, Sv, Sv));
    ADD("major", OV("semver_major", MEMBER, I, fn_sv_major, NULL, Sv));
    ADD("minor", OV("semver_minor", MEMBER, I, fn_sv_minor, NULL, Sv));
    ADD("patch", OV("semver_patch", MEMBER, I, fn_sv_patch, NULL, Sv));
    return true;
}

static bool reg_authz(cel_env *env, cel_error *err, bool selectors)
{
    const cel_type *S = cel_type_string(), *B = cel_type_bool();
    const cel_type *Az = cel_type_opaque(env, "kubernetes.authorization.Authorizer", NULL, 0);
    const cel_type *Pc = cel_type_opaque(env, "kubernetes.authorization.PathCheck", NULL, 0);
    const cel_type *Gc = cel_type_opaque(env, "kubernetes.authorization.GroupCheck", NULL, 0);
    const cel_type *Rc = cel_type_opaque(env, "kubernetes.authorization.ResourceCheck", NULL, 0);
    const cel_type *Dc = cel_type_opaque(env, "kubernetes.authorization.Decision", NULL, 0);
    ADD("path", OV("authorizer_path", MEMBER, Pc, fn_az_path, NULL, Az, S));
    ADD("group", OV("authorizer_group", MEMBER, Gc, fn_az_group, NULL, Az, S));
    ADD("serviceAccount", OV("authorizer_serviceaccount", MEMBER, Az, fn_az_service_account, NULL, Az, S, S));
    ADD("resource", OV("groupcheck_resource", MEMBER, Rc, fn_gc_resource, NULL, Gc, S));
    ADD("subresource", OV("resourcecheck_subresource", MEMBER, Rc, fn_rc_subresource, NULL, Rc, S));
    ADD("namespace", OV("resourcecheck_namespace", MEMBER, Rc, fn_rc_namespace, NULL, Rc, S));
    ADD("name", OV("resourcecheck_name", MEMBER, Rc, fn_rc_name, NULL, Rc, S));
    ADD("check", OV("pathcheck_check", MEMBER, Dc, fn_path_check, cost_check, Pc, S),
        OV("resourcecheck_check", MEMBER, Dc, fn_resource_check, cost_check, Rc, S));
    ADD("allowed", OV("decision_allowed", MEMBER, B, fn_dec_allowed, NULL, Dc));
    ADD("reason", OV("decision_reason", MEMBER, S, fn_dec_reason, NULL, Dc));
    ADD("errored", OV("decision_errored", MEMBER, B, fn_dec_errored, NULL, Dc));
    ADD("error", OV("decision_error", MEMBER, S, fn_dec_error, NULL, Dc));
    if (selectors) {
        ADD("fieldSelector", OV("resourcecheck_fieldselector", MEMBER, Rc, fn_rc_field_selector, NULL, Rc, S));
        ADD("labelSelector", OV("resourcecheck_labelselector", MEMBER, Rc, fn_rc_label_selector, NULL, Rc, S));
    }
    return true;
}

bool cel_k8s_register(cel_env *env, const cel_k8s_options *opts, cel_error *err)
{
    int version = opts ? opts->version : 0;
    unsigned m = cel_k8s_libraries_for_version(version) & ~(opts ? opts->disable : 0u);
    if ((m & CEL_K8S_LIB_URLS) && !reg_urls(env, err))
        return false;
    if ((m & CEL_K8S_LIB_REGEX) && !reg_regex(env, err))
        return false;
    if ((m & CEL_K8S_LIB_LISTS) && !reg_lists(env, err))
        return false;
    if ((m & CEL_K8S_LIB_AUTHZ) && !reg_authz(env, err, (m & CEL_K8S_LIB_AUTHZ_SELECTORS) != 0))
        return false;
    if ((m & CEL_K8S_LIB_QUANTITY) && !reg_quantity(env, err))
        return false;
    if ((m & CEL_K8S_LIB_IP) && !reg_ip(env, err))
        return false;
    if ((m & CEL_K8S_LIB_CIDR) && !reg_cidr(env, err))
        return false;
    if ((m & CEL_K8S_LIB_FORMAT) && !reg_format(env, err))
        return false;
    if ((m & CEL_K8S_LIB_SEMVER) && !reg_semver(env, err, true))
        return false;
    if (opts && opts->jsonpatch) {
        const cel_type *S = cel_type_string();
        ADD("jsonpatch.escapeKey",
            OV("string_jsonpatch_escapekey_string", GLOBAL, S, fn_jsonpatch_escape_key, cost_str_traversal, S));
    }
    return true;
}
