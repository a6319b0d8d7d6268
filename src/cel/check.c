/* Type checker: declared variables, dyn, type parameters, overload resolution, cel-go style messages. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/cel_internal.h"
#include "cel/compile_internal.h"

/* Type-variable substitutions. Fresh variables ("_varN") are indexed by N; other parameter names (rare: declared
 * types with parameters) use a short list. Changes to the checker's mapping are recorded in a trail so a failed
 * trial (overload candidate, assignability test) is undone in time proportional to what it changed — no copies. */
typedef struct mapping {
    size_t n, cap;
    const char **k;
    const cel_type **v;
    const cel_type **var;
    size_t nvar;
    bool trail;
} mapping;

typedef struct trail_ent {
    int id;        /* fresh variable id, or 0 for a named entry */
    size_t idx;    /* named entry index */
    bool appended; /* named entry was appended */
    const cel_type *old;
} trail_ent;

typedef struct checker {
    cel_env *env;
    kg_arena *a;
    const char *src;
    cel_error *err;
    bool failed;
    const cel_type *scope[64 * 3];
    const char *scope_names[64 * 3];
    int depth;
    struct mapping m; /* type-variable substitutions */
    int nfresh;
    trail_ent *trail;
    size_t ntrail, captrail;
    cel_check_extra *extra; /* call nodes for the prepare step, max nesting (or NULL) */
    size_t capcalls;
    const cel_type *var_inline[32]; /* first fresh-variable substitutions (m.var), grown in the arena beyond */
} checker;

static const cel_type *chk(checker *C, cel_node *n);

static const cel_type *ck_mk(checker *C, cel_type_kind k, const char *name, const cel_type *p0, const cel_type *p1)
{
    cel_type *t = kg_arena_calloc(C->a, sizeof *t);
    const cel_type **ps = kg_arena_alloc(C->a, 2 * sizeof *ps);
    ps[0] = p0;
    ps[1] = p1;
    t->kind = k;
    t->name = name;
    t->nparams = p1 ? 2 : 1;
    t->params = ps;
    return t;
}
/* the first fresh type variables are immutable statics shared by all checks: no allocation per variable */
#define FV(n)                                                                                                          \
    {                                                                                                                  \
        CEL_T_PARAM, "_var" #n, 0, NULL, 0, NULL, NULL                                                                 \
    }
static const cel_type fresh_types[128] = {
    FV(0),   FV(1),   FV(2),   FV(3),   FV(4),   FV(5),   FV(6),   FV(7),   FV(8),   FV(9),   FV(10),  FV(11),  FV(12),
    FV(13),  FV(14),  FV(15),  FV(16),  FV(17),  FV(18),  FV(19),  FV(20),  FV(21),  FV(22),  FV(23),  FV(24),  FV(25),
    FV(26),  FV(27),  FV(28),  FV(29),  FV(30),  FV(31),  FV(32),  FV(33),  FV(34),  FV(35),  FV(36),  FV(37),  FV(38),
    FV(39),  FV(40),  FV(41),  FV(42),  FV(43),  FV(44),  FV(45),  FV(46),  FV(47),  FV(48),  FV(49),  FV(50),  FV(51),
    FV(52),  FV(53),  FV(54),  FV(55),  FV(56),  FV(57),  FV(58),  FV(59),  FV(60),  FV(61),  FV(62),  FV(63),  FV(64),
    FV(65),  FV(66),  FV(67),  FV(68),  FV(69),  FV(70),  FV(71),  FV(72),  FV(73),  FV(74),  FV(75),  FV(76),  FV(77),
    FV(78),  FV(79),  FV(80),  FV(81),  FV(82),  FV(83),  FV(84),  FV(85),  FV(86),  FV(87),  FV(88),  FV(89),  FV(90),
    FV(91),  FV(92),  FV(93),  FV(94),  FV(95),  FV(96),  FV(97),  FV(98),  FV(99),  FV(100), FV(101), FV(102), FV(103),
    FV(104), FV(105), FV(106), FV(107), FV(108), FV(109), FV(110), FV(111), FV(112), FV(113), FV(114), FV(115), FV(116),
    FV(117), FV(118), FV(119), FV(120), FV(121), FV(122), FV(123), FV(124), FV(125), FV(126), FV(127)};
#undef FV

static const cel_type *fresh(checker *C)
{
    if (C->nfresh + 1 < 128)
        return &fresh_types[++C->nfresh];
    cel_type *t = kg_arena_calloc(C->a, sizeof *t);
    t->kind = CEL_T_PARAM;
    char buf[24];
    int id = ++C->nfresh, k = (int)sizeof buf;
    buf[--k] = 0;
    do {
        buf[--k] = (char)('0' + id % 10);
        id /= 10;
    } while (id);
    memcpy(buf + k - 4, "_var", 4);
    t->name = kg_arena_strdup(C->a, buf + k - 4);
    return t;
}
static const cel_type *ck_list(checker *C, const cel_type *e)
{
    return ck_mk(C, CEL_T_LIST, "list", e, NULL);
}
static const cel_type *ck_map(checker *C, const cel_type *k, const cel_type *v)
{
    return ck_mk(C, CEL_T_MAP, "map", k, v);
}
static const cel_type *ck_opt(checker *C, const cel_type *e)
{
    return ck_mk(C, CEL_T_OPTIONAL, "optional_type", e, NULL);
}
static const cel_type *ck_typeof(checker *C, const cel_type *e)
{
    return ck_mk(C, CEL_T_TYPE, "type", e, NULL);
}

static void cerr(checker *C, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cerr(checker *C, int pos, const char *fmt, ...)
{
    if (C->failed)
        return;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cel_error_at(C->err, C->src, pos, "%s", msg);
    C->failed = true;
}

static const char *tname(checker *C, const cel_type *t)
{
    char buf[256];
    cel_type_format(t, buf, sizeof buf);
    return kg_arena_strdup(C->a, buf);
}

static bool is_dyn(const cel_type *t)
{
    return t->kind == CEL_T_DYN || t->kind == CEL_T_ANY || t->kind == CEL_T_ERROR;
}

/* ---- type substitutions (cel-go checker/mapping.go, types.go semantics) ---- */

static int fresh_id(const char *name)
{
    if (name[0] != '_' || name[1] != 'v' || name[2] != 'a' || name[3] != 'r')
        return 0;
    /* "_var" + up to 9 digits (what fresh() makes) without atoi; anything else as before */
    int id = 0, k = 4;
    for (; k < 13 && name[k] >= '0' && name[k] <= '9'; k++)
        id = id * 10 + (name[k] - '0');
    if (k > 4 && k < 13 && (name[k] < '0' || name[k] > '9'))
        return id;
    return atoi(name + 4);
}

static const cel_type *m_find(const mapping *m, const char *name)
{
    int id = fresh_id(name);
    if (id > 0)
        return (size_t)id < m->nvar ? m->var[id] : NULL;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->k[i], name))
            return m->v[i];
    return NULL;
}

static void trail_push(checker *C, trail_ent e)
{
    if (C->ntrail == C->captrail) {
        size_t nc = C->captrail ? C->captrail * 2 : 64;
        C->trail = kg_arena_realloc(C->a, C->trail, C->captrail * sizeof *C->trail, nc * sizeof *C->trail);
        C->captrail = nc;
    }
    C->trail[C->ntrail++] = e;
}

static void m_add(checker *C, mapping *m, const char *name, const cel_type *t)
{
    int id = fresh_id(name);
    if (id > 0) {
        if ((size_t)id >= m->nvar && m->var == C->var_inline && m->nvar == 0 && id < 32) {
            /* the inline table is zeroed when first used (most checks bind no fresh variable) */
            memset(C->var_inline, 0, sizeof C->var_inline);
            m->nvar = 32;
        }
        if ((size_t)id >= m->nvar) {
            size_t nc = m->nvar ? m->nvar : 16;
            while (nc <= (size_t)id)
                nc *= 2;
            m->var = kg_arena_realloc(C->a, m->var, m->nvar * sizeof *m->var, nc * sizeof *m->var);
            memset(m->var + m->nvar, 0, (nc - m->nvar) * sizeof *m->var);
            m->nvar = nc;
        }
        if (m->trail)
            trail_push(C, (trail_ent){id, 0, false, m->var[id]});
        m->var[id] = t;
        return;
    }
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->k[i], name)) {
            if (m->trail)
                trail_push(C, (trail_ent){0, i, false, m->v[i]});
            m->v[i] = t;
            return;
        }
    if (m->n == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 8;
        m->k = kg_arena_realloc(C->a, m->k, m->cap * sizeof *m->k, nc * sizeof *m->k);
        m->v = kg_arena_realloc(C->a, m->v, m->cap * sizeof *m->v, nc * sizeof *m->v);
        m->cap = nc;
    }
    if (m->trail)
        trail_push(C, (trail_ent){0, m->n, true, NULL});
    m->k[m->n] = name;
    m->v[m->n] = t;
    m->n++;
}

static void undo_to(checker *C, size_t mark)
{
    mapping *m = &C->m;
    while (C->ntrail > mark) {
        trail_ent e = C->trail[--C->ntrail];
        if (e.id > 0)
            m->var[e.id] = e.old;
        else if (e.appended)
            m->n--;
        else
            m->v[e.idx] = e.old;
    }
}

static const cel_type *with_params(checker *C, const cel_type *t, const cel_type **ps)
{
    /* one allocation for the type and its parameter array */
    cel_type *nt = kg_arena_alloc(C->a, sizeof *nt + t->nparams * sizeof(cel_type *));
    *nt = *t;
    const cel_type **np = (const cel_type **)(nt + 1);
    memcpy(np, ps, t->nparams * sizeof *np);
    nt->params = np;
    return nt;
}

static const cel_type *substitute(checker *C, const mapping *m, const cel_type *t, bool to_dyn, int depth)
{
    if (depth > 64)
        return cel_type_dyn();
    if (t->kind == CEL_T_PARAM) {
        const cel_type *s = m_find(m, t->name);
        if (s && !(s->kind == CEL_T_PARAM && !strcmp(s->name, t->name)))
            return substitute(C, m, s, to_dyn, depth + 1);
        return to_dyn ? cel_type_dyn() : t;
    }
    if (t->nparams == 0 || t->nparams > 8)
        return t;
    const cel_type *ps[8];
    bool changed = false;
    for (size_t i = 0; i < t->nparams && i < 8; i++) {
        ps[i] = substitute(C, m, t->params[i], to_dyn, depth + 1);
        changed |= ps[i] != t->params[i];
    }
    return changed ? with_params(C, t, ps) : t;
}

/* true when the param `name` does not occur in t (following substitutions) */
static bool not_referenced_in(const mapping *m, const char *name, const cel_type *t, int depth)
{
    if (depth > 64)
        return false;
    if (t->kind == CEL_T_PARAM) {
        if (!strcmp(t->name, name))
            return false;
        const cel_type *s = m_find(m, t->name);
        return s ? not_referenced_in(m, name, s, depth + 1) : true;
    }
    for (size_t i = 0; i < t->nparams; i++)
        if (!not_referenced_in(m, name, t->params[i], depth + 1))
            return false;
    return true;
}

static bool exact(const cel_type *a, const cel_type *b)
{
    return cel_type_equal(a, b);
}

static bool less_specific(const cel_type *t1, const cel_type *t2)
{
    if (is_dyn(t1) || t1->kind == CEL_T_PARAM)
        return true;
    if (is_dyn(t2) || t2->kind == CEL_T_PARAM)
        return false;
    if (t1->kind != t2->kind)
        return false;
    switch (t1->kind) {
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_OPAQUE:
    case CEL_T_OPTIONAL:
        if (strcmp(t1->name, t2->name) != 0 || t1->nparams != t2->nparams)
            return false;
        for (size_t i = 0; i < t1->nparams; i++)
            if (!less_specific(t1->params[i], t2->params[i]))
                return false;
        return true;
    case CEL_T_TYPE: return true;
    default: return exact(t1, t2);
    }
}

static const cel_type *most_general(const cel_type *t1, const cel_type *t2)
{
    return less_specific(t1, t2) ? t1 : t2;
}

static bool assign_internal(checker *C, mapping *m, const cel_type *t1, const cel_type *t2, int depth);

static bool valid_sub(checker *C, mapping *m, const cel_type *t1, const cel_type *t2, bool *has_sub, int depth)
{
    *has_sub = false;
    if (t1->kind == t2->kind && exact(t1, t2)) {
        *has_sub = true;
        return true;
    }
    const cel_type *t2s = m_find(m, t2->name);
    if (t2s) {
        *has_sub = true;
        if (t1->kind == t2s->kind && exact(t1, t2s))
            return true;
        if (assign_internal(C, m, t1, t2s, depth + 1)) {
            const cel_type *g = most_general(t1, t2s);
            if (not_referenced_in(m, t2->name, g, 0))
                m_add(C, m, t2->name, g);
            return true;
        }
        return false;
    }
    if (not_referenced_in(m, t2->name, t1, 0)) {
        m_add(C, m, t2->name, t1);
        return true;
    }
    return false;
}

static bool null_assignable(const cel_type *t)
{
    switch (t->kind) {
    case CEL_T_NULL:
    case CEL_T_OPAQUE:
    case CEL_T_OPTIONAL:
    case CEL_T_OBJECT:
    case CEL_T_TIMESTAMP:
    case CEL_T_DURATION:
    case CEL_T_ANY: return true;
    default: return false;
    }
}

/* can a value of type t1 be used where t2 is expected (symmetric for most kinds, as in cel-go) */
static bool assign_internal(checker *C, mapping *m, const cel_type *t1, const cel_type *t2, int depth)
{
    if (depth > 64)
        return false;
    if (t2->kind == CEL_T_PARAM) {
        bool has;
        if (valid_sub(C, m, t1, t2, &has, depth))
            return true;
        if (has)
            return false;
    }
    if (t1->kind == CEL_T_PARAM) {
        bool has;
        return valid_sub(C, m, t2, t1, &has, depth);
    }
    if (is_dyn(t1) || is_dyn(t2))
        return true;
    if (t1->kind == CEL_T_NULL)
        return null_assignable(t2);
    if (t2->kind == CEL_T_NULL)
        return null_assignable(t1);
    switch (t1->kind) {
    case CEL_T_TYPE: return t2->kind == CEL_T_TYPE;
    case CEL_T_LIST:
    case CEL_T_MAP:
    case CEL_T_OPAQUE:
    case CEL_T_OPTIONAL:
        if (t1->kind != t2->kind || strcmp(t1->name, t2->name) != 0)
            return false;
        if (t1->nparams == 0 || t2->nparams == 0)
            return true;
        if (t1->nparams != t2->nparams)
            return false;
        for (size_t i = 0; i < t1->nparams; i++)
            if (!assign_internal(C, m, t1->params[i], t2->params[i], depth + 1))
                return false;
        return true;
    case CEL_T_OBJECT: return t2->kind == CEL_T_OBJECT && !strcmp(t1->name, t2->name);
    default: return t1->kind == t2->kind;
    }
}

/* cel-go checker.isAssignable: on success the substitutions are kept */
static bool is_assignable(checker *C, const cel_type *t1, const cel_type *t2)
{
    /* no type variable on either side and the same parameter-free type, or dyn: assignable, nothing bound (what
     * assign_internal answers for these) */
    if (t1->kind != CEL_T_PARAM && t2->kind != CEL_T_PARAM &&
        ((t1 == t2 && t1->nparams == 0) || is_dyn(t1) || is_dyn(t2)))
        return true;
    size_t mark = C->ntrail;
    if (!assign_internal(C, &C->m, t1, t2, 0)) {
        undo_to(C, mark);
        return false;
    }
    return true;
}

static inline const cel_type *subst(checker *C, const cel_type *t, bool to_dyn)
{
    /* most types are concrete and parameterless: nothing to substitute */
    if (t->kind != CEL_T_PARAM && t->nparams == 0)
        return t;
    return substitute(C, &C->m, t, to_dyn, 0);
}

/* instantiate an overload signature type with fresh type variables */
static const cel_type *instantiate(checker *C, const cel_type *t, mapping *local)
{
    if (t->kind == CEL_T_PARAM) {
        const cel_type *f = m_find(local, t->name);
        if (!f) {
            f = fresh(C);
            m_add(C, local, t->name, f);
        }
        return f;
    }
    if (t->nparams == 0 || t->nparams > 8)
        return t;
    const cel_type *ps[8];
    bool changed = false;
    for (size_t i = 0; i < t->nparams && i < 8; i++) {
        ps[i] = instantiate(C, t->params[i], local);
        changed |= ps[i] != t->params[i];
    }
    /* a subtree without type parameters is shared, not copied */
    return changed ? with_params(C, t, ps) : t;
}

static inline bool quick_mismatch_k(cel_type_kind k1, cel_type_kind k2)
{
    return cel_quick_mismatch(k1, k2);
}

/* no type parameter anywhere in t */
static bool ground(const cel_type *t, int depth)
{
    if (t->kind == CEL_T_PARAM || depth > 64)
        return false;
    for (size_t i = 0; i < t->nparams; i++)
        if (!ground(t->params[i], depth + 1))
            return false;
    return true;
}

static inline bool quick_mismatch(const cel_type *t1, const cel_type *t2)
{
    return quick_mismatch_k(t1->kind, t2->kind);
}

/* list/map literal element join (cel-go joinTypes) */
static const cel_type *join(checker *C, int pos, const cel_type *prev, const cel_type *cur)
{
    if (!prev)
        return cur;
    if (is_assignable(C, prev, cur)) {
        /* legacy nullable types: null joins into the nullable type */
        if (cur->kind == CEL_T_NULL && prev->kind != CEL_T_NULL)
            return prev;
        if (prev->kind == CEL_T_NULL && cur->kind != CEL_T_NULL)
            return cur;
        return most_general(prev, cur);
    }
    if (C->env->opts & CEL_OPT_HOMOGENEOUS_LITERALS) {
        cerr(C, pos, "expected type '%s' but found '%s'", tname(C, subst(C, prev, false)),
             tname(C, subst(C, cur, false)));
        return prev;
    }
    return cel_type_dyn();
}

static bool same_type(const cel_type *a, const cel_type *b)
{
    return cel_type_equal(a, b);
}

static const cel_type *scope_type(checker *C, int k)
{
    return C->scope[k];
}

static const cel_type *chk_select(checker *C, cel_node *n)
{
    const cel_type *t = chk(C, n->target);
    if (C->failed)
        return cel_type_error();
    t = subst(C, t, false);
    if (t->kind == CEL_T_PARAM)
        is_assignable(C, cel_type_dyn(), t);
    bool test = (n->flags & NF_TEST_ONLY) != 0;
    bool opt = false;
    if (t->kind == CEL_T_OPTIONAL) {
        opt = true;
        t = t->nparams ? t->params[0] : cel_type_dyn();
    }
    const cel_type *r;
    switch (t->kind) {
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_ERROR:
    case CEL_T_PARAM: r = cel_type_dyn(); break;
    case CEL_T_MAP: r = t->nparams > 1 ? t->params[1] : cel_type_dyn(); break;
    case CEL_T_OBJECT: {
        r = t->nfields ? NULL : cel_type_dyn(); /* schemaless object types: any field, dyn */
        for (size_t i = 0; i < t->nfields; i++)
            if (!strcmp(t->field_names[i], n->name)) {
                r = t->field_types[i];
                break;
            }
        if (!r) {
            cerr(C, n->pos, "undefined field '%s'", n->name);
            return cel_type_error();
        }
        break;
    }
    case CEL_T_OPAQUE: r = cel_type_dyn(); break;
    default: cerr(C, n->pos, "type '%s' does not support field selection", tname(C, t)); return cel_type_error();
    }
    if (test)
        return cel_type_bool();
    if (opt)
        return ck_opt(C, r);
    return r;
}

static const char *arg_list(checker *C, const cel_type **args, size_t n, bool member)
{
    kg_buf b = KG_BUF_INIT;
    size_t start = 0;
    if (member && n > 0) {
        char buf[256];
        kg_buf_puts(&b, cel_type_format(args[0], buf, sizeof buf));
        kg_buf_puts(&b, ".");
        start = 1;
    }
    kg_buf_putc(&b, '(');
    for (size_t i = start; i < n; i++) {
        char buf[256];
        if (i > start)
            kg_buf_puts(&b, ", ");
        kg_buf_puts(&b, cel_type_format(args[i], buf, sizeof buf));
    }
    kg_buf_putc(&b, ')');
    char *s = kg_arena_strdup(C->a, b.data);
    kg_buf_free(&b);
    return s;
}

/* How an argument of type a relates to a parameter type p of a non-generic overload, when that is decided without
 * the mapping: 1 assignable with nothing to bind (the same parameter-free type, or dyn on either side with no type
 * variable in a), 0 ruled out by kind (cel_quick_mismatch), -1 anything else (the general path decides). */
static inline int simple_fit(const cel_type *a, const cel_type *p)
{
    if (a->kind == CEL_T_PARAM || a->nparams)
        return -1;
    if (a == p || is_dyn(a) || is_dyn(p))
        return 1;
    if (quick_mismatch_k(a->kind, p->kind))
        return 0;
    return -1;
}

static const uint16_t cand_first[1] = {0};

/* Overload resolution when every overload the call can reach is non-generic and each argument either is exactly
 * the parameter's parameter-free type, or meets dyn, or is ruled out by kind: what the general loop below computes
 * for such overloads (assign_internal binds nothing and cannot fail for them; non-generic overloads take no fresh
 * variables), without instantiation, assignment trials or the trail. Returns NULL (nothing changed) for any other
 * call, and for calls without a candidate (the general path reports the error). */
static const cel_type *simple_resolve(checker *C, cel_node *n, const cel_func *f, const cel_type **targs, size_t na,
                                      bool member)
{
    if (na > 2 || f->novl > CEL_OVL_INDEXED || f->novl == 0)
        return NULL;
    const uint32_t *meta = cel_func_ovl_meta(f);
    const uint32_t mask = CEL_OVL_MEMBER | (CEL_OVL_MAX4 << 2);
    const uint32_t want = (member ? CEL_OVL_MEMBER : 0) | ((uint32_t)na << 2);
    /* the overloads of the call's shape; with the index, those ruled out by kind are left out */
    uint64_t visit;
    int fresh_skipped = 0; /* fresh variables the general loop would take (it takes them for every generic overload
                              of the shape, candidate or not, and binds none in the cases taken here) */
    const bool indexed = f->novl > 3;
    if (indexed) {
        const cel_ovl_index *ix = cel_func_ovl_index(f);
        uint64_t shape = ix->shape[cel_ovl_shape(member, na)];
        visit = shape;
        if (na > 0 && (unsigned)targs[0]->kind < CEL_OVL_NKINDS)
            visit &= ix->kind0[targs[0]->kind];
        if (na > 1 && (unsigned)targs[1]->kind < CEL_OVL_NKINDS)
            visit &= ix->kind1[targs[1]->kind];
        for (uint64_t g = shape & ix->generic & ~visit; g; g &= g - 1) {
            unsigned np = CEL_OVL_NPARAMS(meta[__builtin_ctzll(g)]);
            if (np >= CEL_OVL_MAX4)
                return NULL;
            fresh_skipped += (int)np;
        }
    } else {
        visit = 0;
        for (size_t k = 0; k < f->novl; k++)
            if ((meta[k] & mask) == want)
                visit |= (uint64_t)1 << k;
    }
    uint16_t found[CEL_OVL_INDEXED];
    unsigned nf = 0;
    const cel_type *result = NULL;
    bool multi = false;
    while (visit) {
        size_t k = (size_t)__builtin_ctzll(visit);
        visit &= visit - 1;
        const uint32_t m = meta[k];
        if ((m & mask) != want)
            continue;
        const cel_overload *o = &f->ovls[k];
        if (m & CEL_OVL_GENERIC) {
            /* the general loop's ways for generic overloads that bind nothing visible: ruled out by kind, dyn
             * arguments (or a ground first argument for a bare parameter), (A, A) -> R with ground arguments; all
             * with a parameter-free result. Anything else: the general path. */
            unsigned np = CEL_OVL_NPARAMS(m);
            if (np >= CEL_OVL_MAX4)
                return NULL;
            fresh_skipped += (int)np;
            if (!indexed) {
                const unsigned k0 = CEL_OVL_KIND(m, 0), k1 = CEL_OVL_KIND(m, 1);
                if ((na > 0 && (k0 == CEL_OVL_NOKIND ? quick_mismatch(targs[0], o->args[0])
                                                     : quick_mismatch_k(targs[0]->kind, (cel_type_kind)k0))) ||
                    (na > 1 && (k1 == CEL_OVL_NOKIND ? quick_mismatch(targs[1], o->args[1])
                                                     : quick_mismatch_k(targs[1]->kind, (cel_type_kind)k1))))
                    continue;
            }
            if (o->result->kind == CEL_T_PARAM || o->result->nparams)
                return NULL;
            bool dyn_fast = true;
            for (size_t i = 0; i < na && dyn_fast; i++)
                dyn_fast = is_dyn(targs[i]) || (i == 0 && o->args[0]->kind == CEL_T_PARAM && ground(targs[0], 0));
            if (!dyn_fast) {
                if (!(na == 2 && (m & CEL_OVL_EQSHAPE) && ground(targs[0], 0) && ground(targs[1], 0)))
                    return NULL;
                if (!(targs[1]->kind == targs[0]->kind && exact(targs[1], targs[0])) &&
                    !assign_internal(C, &C->m, targs[1], targs[0], 1))
                    continue;
            }
        } else {
            bool ok = true;
            for (size_t i = 0; i < na && ok; i++) {
                int fit = simple_fit(targs[i], o->args[i]);
                if (fit < 0)
                    return NULL;
                ok = fit == 1;
            }
            if (!ok)
                continue;
        }
        const cel_type *r = o->result;
        if (!nf)
            result = r;
        else if (result != r && !is_dyn(result) && !same_type(result, r))
            multi = true;
        found[nf++] = (uint16_t)k;
    }
    if (!nf)
        return NULL;
    C->nfresh += fresh_skipped;
    if (nf == 1 && found[0] == 0) {
        n->cands = (uint16_t *)cand_first; /* read only */
    } else {
        n->cands = kg_arena_alloc(C->a, nf * sizeof *n->cands);
        memcpy(n->cands, found, nf * sizeof *found);
    }
    n->ncands = (uint16_t)nf;
    if (nf == 1 && f->ovls[found[0]].impl) {
        bool concrete = true;
        for (size_t i = 0; i < na; i++)
            if (is_dyn(targs[i]) || targs[i]->kind == CEL_T_PARAM || targs[i]->kind == CEL_T_NULL)
                concrete = false;
        if (concrete)
            n->flags |= NF_DIRECT;
    }
    return multi ? cel_type_dyn() : result;
}

/* The function's memo of resolutions (cel_func.rcache). A call whose arguments (at most two) all have primitive
 * types (the shared singletons, error excepted) resolves the same way every time in an environment: its key is
 * the receiver style, the arity and the arguments' singleton indexes. A resolution with up to four candidates and
 * a primitive result is kept in one 64-bit word with its key, so a relaxed atomic load sees a whole entry or none:
 *   bits 0-11  key: bit 0 set, bit 1 member, bits 2-3 arity, bits 4-7 / 8-11 argument 0 / 1 (15: none)
 *   bits 12-43 the candidate overloads (8 bits each), bits 44-46 how many, bits 47-50 the result's singleton
 *   index, bit 51 NF_DIRECT, bits 52-59 the fresh type variables the resolution took (the only trace it leaves in
 *   the checker: what it bound is visible to nothing, as arguments and result have no type parameters) */
static const uint16_t cand_seq[256] = {
#define S4(i) i, i + 1, i + 2, i + 3
#define S16(i) S4(i), S4(i + 4), S4(i + 8), S4(i + 12)
#define S64(i) S16(i), S16(i + 16), S16(i + 32), S16(i + 48)
    S64(0), S64(64), S64(128), S64(192)
#undef S64
#undef S16
#undef S4
};

static inline unsigned prim_index(const cel_type *t)
{
    /* a type inside the array is one of its elements */
    uintptr_t d = (uintptr_t)t - (uintptr_t)cel_prim_types;
    return d < (uintptr_t)CEL_PRIM_ERROR * sizeof *t ? (unsigned)(d / sizeof *t) : 15u;
}

/* the call's key, 0 when it has none */
static inline uint32_t rcache_key(const cel_type **targs, size_t na, bool member)
{
    if (na > 2)
        return 0;
    unsigned i0 = na > 0 ? prim_index(targs[0]) : 15u, i1 = na > 1 ? prim_index(targs[1]) : 15u;
    if ((na > 0 && i0 == 15u) || (na > 1 && i1 == 15u))
        return 0;
    return 1u | (member ? 2u : 0u) | (uint32_t)na << 2 | i0 << 4 | i1 << 8;
}

static inline unsigned rcache_slot(uint32_t key)
{
    return (uint32_t)(key * 0x9E3779B1u) >> (32 - CEL_RCACHE_BITS);
}

/* what a call with this key resolved to: NULL when not known */
static inline const cel_type *rcache_get(checker *C, cel_node *n, const cel_func *f, uint32_t key)
{
    uint64_t e = __atomic_load_n(&f->rcache[rcache_slot(key)], __ATOMIC_RELAXED);
    if ((e & 0xfffu) != key)
        return NULL;
    unsigned nc = (unsigned)(e >> 44) & 7u;
    if (nc == 1) {
        n->cands = (uint16_t *)&cand_seq[(e >> 12) & 0xffu]; /* read only */
    } else {
        n->cands = kg_arena_alloc(C->a, 4 * sizeof *n->cands);
        for (unsigned i = 0; i < 4; i++)
            n->cands[i] = (uint16_t)((e >> (12 + 8 * i)) & 0xffu);
    }
    n->ncands = (uint16_t)nc;
    if (e >> 51 & 1u)
        n->flags |= NF_DIRECT;
    C->nfresh += (int)((e >> 52) & 0xffu);
    return &cel_prim_types[(e >> 47) & 15u];
}

static inline void rcache_put(checker *C, const cel_node *n, const cel_func *f, uint32_t key, int fresh0,
                              const cel_type *r)
{
    unsigned ri = prim_index(r), nc = n->ncands;
    int fresh = C->nfresh - fresh0;
    if (!key || nc < 1 || nc > 4 || ri == 15u || fresh < 0 || fresh > 0xff)
        return;
    uint64_t e = key | (uint64_t)nc << 44 | (uint64_t)ri << 47 | (uint64_t)((n->flags & NF_DIRECT) != 0) << 51 |
                 (uint64_t)fresh << 52;
    for (unsigned i = 0; i < nc; i++) {
        if (n->cands[i] > 0xff)
            return;
        e |= (uint64_t)n->cands[i] << (12 + 8 * i);
    }
    __atomic_store_n(&((cel_func *)f)->rcache[rcache_slot(key)], e, __ATOMIC_RELAXED);
}

static const cel_type *chk_call(checker *C, cel_node *n)
{
    const cel_type *targs[64];
    size_t na = n->nargs;
    if (na > 64) {
        cerr(C, n->pos, "too many arguments");
        return cel_type_error();
    }
    bool hasc = false; /* a constant among the first 8 arguments (the prepare step's calls) */
    for (size_t i = 0; i < na; i++) {
        const cel_node *a = n->args[i];
        hasc |= i < 8 && a->kind == N_CONST;
        targs[i] = chk(C, n->args[i]);
        if (C->failed)
            return cel_type_error();
    }
    for (size_t i = 0; i < na; i++)
        targs[i] = subst(C, targs[i], false);
    const cel_func *f = n->fn;
    bool member = (n->flags & NF_MEMBER) != 0;
    if (!f) {
        cerr(C, n->pos, "undeclared reference to '%s' (in container '%s')", n->name, C->env->container);
        return cel_type_error();
    }
    if (C->extra) {
        /* after its arguments' calls, as the prepare walk visits them */
        if (hasc) {
            cel_check_extra *x = C->extra;
            if (x->ncalls == C->capcalls) {
                size_t nc = C->capcalls * 2;
                cel_node **nv = kg_arena_alloc(C->a, nc * sizeof *nv);
                memcpy(nv, x->calls, x->ncalls * sizeof *nv);
                x->calls = nv;
                C->capcalls = nc;
            }
            x->calls[x->ncalls++] = n;
        }
    }
    if (n->op == OP_OPT_SELECT) {
        const cel_type *t = targs[0];
        if (t->kind == CEL_T_OPTIONAL)
            t = t->nparams ? t->params[0] : cel_type_dyn();
        const cel_type *r = cel_type_dyn();
        if (t->kind == CEL_T_MAP && t->nparams > 1)
            r = t->params[1];
        else if (t->kind == CEL_T_OBJECT && n->args[1]->kind == N_CONST) {
            const char *fname = n->args[1]->cval.u.s;
            r = NULL;
            for (size_t i = 0; i < t->nfields; i++)
                if (!strcmp(t->field_names[i], fname))
                    r = t->field_types[i];
            if (!r) {
                cerr(C, n->pos, "undefined field '%s'", fname);
                return cel_type_error();
            }
        } else if (!is_dyn(t) && t->kind != CEL_T_MAP && t->kind != CEL_T_PARAM) {
            cerr(C, n->pos, "type '%s' does not support field selection", tname(C, t));
            return cel_type_error();
        }
        return ck_opt(C, r);
    }
    const cel_type *result = NULL;
    bool any = false, multi = false;
    const uint32_t *meta = cel_func_ovl_meta(f);
    const uint32_t rkey = rcache_key(targs, na, member);
    if (rkey) {
        const cel_type *r = rcache_get(C, n, f, rkey);
        if (r)
            return r;
    }
    const int fresh0 = C->nfresh;
    {
        const cel_type *r = simple_resolve(C, n, f, targs, na, member);
        if (r) {
            rcache_put(C, n, f, rkey, fresh0, r);
            return r;
        }
    }
    uint16_t *cands = kg_arena_alloc(C->a, (f->novl ? f->novl : 1) * sizeof *cands);
    uint16_t ncands = 0;
    /* arity and receiver style from the compact per-overload words; the overload itself is read only when they fit */
    const uint32_t mask = CEL_OVL_MEMBER | (CEL_OVL_MAX4 << 2);
    const uint32_t want = (member ? CEL_OVL_MEMBER : 0) | ((uint32_t)(na < CEL_OVL_MAX4 ? na : CEL_OVL_MAX4) << 2);
    const cel_type_kind tk0 = na > 0 ? targs[0]->kind : CEL_T_DYN, tk1 = na > 1 ? targs[1]->kind : CEL_T_DYN;
    /* with the index: only the overloads of the call's shape whose first two argument kinds fit, plus the generic
     * ones the kinds ruled out (they still take their fresh variables, in order) */
    const bool indexed = f->novl > 3 && f->novl <= CEL_OVL_INDEXED; /* a short list is scanned as fast */
    uint64_t visit = 0, fit = 0;
    if (indexed) {
        const cel_ovl_index *ix = cel_func_ovl_index(f);
        uint64_t shape = ix->shape[cel_ovl_shape(member, na)];
        fit = shape;
        if (na > 0 && (unsigned)tk0 < CEL_OVL_NKINDS)
            fit &= ix->kind0[tk0];
        if (na > 1 && (unsigned)tk1 < CEL_OVL_NKINDS)
            fit &= ix->kind1[tk1];
        visit = fit | (shape & ~fit & ix->generic);
    }
    for (size_t k = 0; k < f->novl; k++) {
        if (indexed) {
            if (!visit)
                break;
            k = (size_t)__builtin_ctzll(visit);
            visit &= visit - 1;
        }
        const uint32_t m = meta[k];
        if ((m & mask) != want)
            continue;
        const cel_overload *o = &f->ovls[k];
        if (na >= CEL_OVL_MAX4 && o->nargs != na)
            continue;
        const cel_type *iargs[8];
        const cel_type *ires;
        bool generic = (m & CEL_OVL_GENERIC) != 0;
        /* a scalar argument of another concrete kind rules the overload out before any instantiation; a generic
         * overload still takes its fresh type variables so later ones are numbered as before */
        const unsigned k0 = CEL_OVL_KIND(m, 0), k1 = CEL_OVL_KIND(m, 1);
        bool mismatch = (na > 0 && (k0 == CEL_OVL_NOKIND ? quick_mismatch(targs[0], o->args[0])
                                                         : quick_mismatch_k(tk0, (cel_type_kind)k0))) ||
                        (na > 1 && (k1 == CEL_OVL_NOKIND ? quick_mismatch(targs[1], o->args[1])
                                                         : quick_mismatch_k(tk1, (cel_type_kind)k1)));
        for (size_t i = 2; i < na && i < 8 && !mismatch; i++)
            mismatch = quick_mismatch(targs[i], o->args[i]);
        if (mismatch) {
            if (generic) {
                unsigned np = CEL_OVL_NPARAMS(m);
                C->nfresh += (int)(np < CEL_OVL_MAX4 ? np : cel_ovl_count_params(o));
            }
            continue;
        }
        bool dyn_fast = false;
        if (generic && o->result->kind != CEL_T_PARAM && o->result->nparams == 0) {
            /* dyn arguments (e.g. size(dyn) against size(list(A)), "k" in dyn against @in(A, list(A))), and a first
             * argument of a parameter-free type against a bare parameter: every assignment succeeds, whatever it
             * binds is visible to nothing (the result has no parameters), so instantiating only has to advance the
             * fresh-variable counter */
            dyn_fast = true;
            for (size_t i = 0; i < na && dyn_fast; i++)
                dyn_fast = is_dyn(targs[i]) || (i == 0 && o->args[0]->kind == CEL_T_PARAM && ground(targs[0], 0));
        }
        if (!dyn_fast && generic && na == 2 && o->result->kind != CEL_T_PARAM && o->result->nparams == 0 &&
            o->args[0]->kind == CEL_T_PARAM && o->args[1]->kind == CEL_T_PARAM &&
            !strcmp(o->args[0]->name, o->args[1]->name) && ground(targs[0], 0) && ground(targs[1], 0)) {
            /* (A, A) -> R with parameter-free argument types, e.g. _==_: the fresh variable for A takes the first
             * argument's type and the second must then be it or assignable to it (what valid_sub does); the binding
             * itself is visible to nothing (R has no parameters), so only the counter advances */
            unsigned np = CEL_OVL_NPARAMS(m);
            C->nfresh += (int)(np < CEL_OVL_MAX4 ? np : cel_ovl_count_params(o));
            if (!(targs[1]->kind == targs[0]->kind && exact(targs[1], targs[0])) &&
                !assign_internal(C, &C->m, targs[1], targs[0], 1))
                continue;
            const cel_type *r = o->result;
            cands[ncands++] = (uint16_t)k;
            if (!any) {
                result = r;
                any = true;
            } else if (result != r && !is_dyn(result) && !same_type(result, r)) {
                multi = true;
            }
            continue;
        }
        if (dyn_fast) {
            /* a candidate without any assignment (none could fail or leave a visible binding) */
            unsigned np = CEL_OVL_NPARAMS(m);
            C->nfresh += (int)(np < CEL_OVL_MAX4 ? np : cel_ovl_count_params(o));
            const cel_type *r = o->result;
            cands[ncands++] = (uint16_t)k;
            if (!any) {
                result = r;
                any = true;
            } else if (result != r && !is_dyn(result) && !same_type(result, r)) {
                multi = true;
            }
            continue;
        }
        if (generic) {
            /* the overload's own parameters (A, B, ...) map to fresh variables in a stack table */
            const char *lk[8];
            const cel_type *lv[8];
            mapping local = {0, 8, lk, lv, NULL, 0, false};
            for (size_t i = 0; i < na && i < 8; i++)
                iargs[i] = instantiate(C, o->args[i], &local);
            ires = instantiate(C, o->result, &local);
        } else {
            /* no type parameters: instantiation is the identity and takes no fresh variables */
            for (size_t i = 0; i < na && i < 8; i++)
                iargs[i] = o->args[i];
            ires = o->result;
        }
        size_t mark = C->ntrail;
        bool ok = true;
        for (size_t i = 0; i < na && ok; i++)
            ok = assign_internal(C, &C->m, targs[i], iargs[i], 0);
        if (!ok) {
            undo_to(C, mark);
            continue;
        }
        const cel_type *r = generic ? subst(C, ires, false) : ires;
        cands[ncands++] = (uint16_t)k;
        if (!any) {
            result = r;
            any = true;
        } else if (result != r && !is_dyn(result) && !same_type(result, r)) {
            multi = true;
        }
    }
    if (!any) {
        /* comparisons of dyn-typed or cross numeric values are allowed at runtime; anything else is an error */
        for (size_t i = 0; i < na; i++)
            targs[i] = subst(C, targs[i], true);
        cerr(C, n->pos, "found no matching overload for '%s' applied to '%s'", n->name, arg_list(C, targs, na, member));
        return cel_type_error();
    }
    n->cands = cands;
    n->ncands = ncands;
    if (ncands == 1 && f->ovls[cands[0]].impl) {
        bool concrete = true;
        for (size_t i = 0; i < na; i++)
            if (is_dyn(targs[i]) || targs[i]->kind == CEL_T_PARAM || targs[i]->kind == CEL_T_NULL)
                concrete = false;
        if (concrete)
            n->flags |= NF_DIRECT;
    }
    if (multi)
        result = cel_type_dyn();
    rcache_put(C, n, f, rkey, fresh0, result);
    return result;
}

static const cel_type *chk_compr(checker *C, cel_node *n)
{
    const cel_type *rt = chk(C, n->range);
    if (C->failed)
        return cel_type_error();
    rt = subst(C, rt, false);
    const cel_type *v1 = cel_type_dyn(), *v2 = cel_type_dyn();
    switch (rt->kind) {
    case CEL_T_LIST:
        if (n->iter_var2) {
            v1 = cel_type_int();
            v2 = rt->nparams ? rt->params[0] : cel_type_dyn();
        } else {
            v1 = rt->nparams ? rt->params[0] : cel_type_dyn();
        }
        break;
    case CEL_T_MAP:
        v1 = rt->nparams ? rt->params[0] : cel_type_dyn();
        v2 = rt->nparams > 1 ? rt->params[1] : cel_type_dyn();
        break;
    case CEL_T_DYN:
    case CEL_T_ANY:
    case CEL_T_ERROR:
    case CEL_T_PARAM: is_assignable(C, cel_type_dyn(), rt); break;
    default:
        cerr(C, n->range->pos,
             "expression of type '%s' cannot be range of a comprehension (must be list, map, or "
             "dynamic)",
             tname(C, rt));
        return cel_type_error();
    }
    const cel_type *at = chk(C, n->accu_init);
    if (C->failed)
        return cel_type_error();
    int b = C->depth * 3;
    if (C->depth >= 63) {
        cerr(C, n->pos, "comprehension nesting too deep");
        return cel_type_error();
    }
    C->scope[b] = v1;
    C->scope[b + 1] = v2;
    C->scope[b + 2] = at;
    C->depth++;
    if (C->extra && C->depth > C->extra->max_depth)
        C->extra->max_depth = C->depth;
    chk(C, n->cond);
    const cel_type *st = chk(C, n->step);
    if (!C->failed && !is_assignable(C, at, st)) {
        cerr(C, n->step->pos, "expected type '%s' but found '%s'", tname(C, subst(C, at, true)),
             tname(C, subst(C, st, true)));
        return cel_type_error();
    }
    const cel_type *r = chk(C, n->result);
    C->depth--;
    return subst(C, r, false);
}

static const cel_type *chk_node(checker *C, cel_node *n);

/* Leaves (variables, constants but type literals) are typed here, without chk_node's register saves; everything
 * else in chk_node (a tail call). Not inlined into cel_check_ex, where GCC cannot see that the scope array is
 * written before it is read (-Wmaybe-uninitialized). */
static const cel_type *chk(checker *C, cel_node *n) __attribute__((noinline));
static const cel_type *chk(checker *C, cel_node *n)
{
    if (C->failed)
        return cel_type_error();
    const cel_type *t;
    if (n->kind == N_IDENT) {
        if (n->slot <= -2)
            t = scope_type(C, -2 - n->slot);
        else if (n->slot >= 0)
            t = C->env->vars[n->slot].type;
        else
            return chk_node(C, n);
    } else if (n->kind == N_CONST) {
        switch (n->cval.kind) {
        case CEL_NULL: t = cel_type_null(); break;
        case CEL_BOOL: t = cel_type_bool(); break;
        case CEL_INT: t = cel_type_int(); break;
        case CEL_UINT: t = cel_type_uint(); break;
        case CEL_DOUBLE: t = cel_type_double(); break;
        case CEL_STRING: t = cel_type_string(); break;
        case CEL_BYTES: t = cel_type_bytes(); break;
        case CEL_TYPE: return chk_node(C, n);
        default: t = cel_type_dyn(); break;
        }
    } else {
        return chk_node(C, n);
    }
    n->type = t;
    return t;
}

static const cel_type *chk_rest(checker *C, cel_node *n) __attribute__((noinline));
static const cel_type *chk_select_node(checker *C, cel_node *n) __attribute__((noinline));
static const cel_type *chk_call_node(checker *C, cel_node *n) __attribute__((noinline));

/* selects and calls in their own functions (tail calls: each saves only the registers it needs), the rest in
 * chk_rest */
static const cel_type *chk_node(checker *C, cel_node *n)
{
    if (n->kind == N_SELECT)
        return chk_select_node(C, n);
    if (n->kind == N_CALL)
        return chk_call_node(C, n);
    return chk_rest(C, n);
}

static const cel_type *chk_select_node(checker *C, cel_node *n)
{
    /* plain selections all the way down to a variable of type dyn (object.spec.containers): each is dyn, what
     * chk_select answers for a dyn operand, typed in one walk instead of a recursion per selection */
    if (!(n->flags & (NF_TEST_ONLY | NF_OPTIONAL))) {
        cel_node *r = cel_select_root(n->target);
        if (r->kind == N_IDENT && r->slot != -1) {
            const cel_type *rt = r->slot <= -2 ? scope_type(C, -2 - r->slot) : C->env->vars[r->slot].type;
            if (rt->kind == CEL_T_DYN) {
                r->type = rt;
                for (cel_node *s = n; s != r; s = s->target)
                    s->type = cel_type_dyn();
                return cel_type_dyn();
            }
        }
    }
    const cel_type *t = chk_select(C, n);
    n->type = t;
    return t;
}

static const cel_type *chk_call_node(checker *C, cel_node *n)
{
    const cel_type *t = chk_call(C, n);
    n->type = t;
    return t;
}

static const cel_type *chk_rest(checker *C, cel_node *n)
{
    const cel_type *t = cel_type_dyn();
    switch ((node_kind)n->kind) {
    case N_CONST:
        switch (n->cval.kind) {
        case CEL_NULL: t = cel_type_null(); break;
        case CEL_BOOL: t = cel_type_bool(); break;
        case CEL_INT: t = cel_type_int(); break;
        case CEL_UINT: t = cel_type_uint(); break;
        case CEL_DOUBLE: t = cel_type_double(); break;
        case CEL_STRING: t = cel_type_string(); break;
        case CEL_BYTES: t = cel_type_bytes(); break;
        case CEL_TYPE: t = ck_typeof(C, n->cval.u.type); break;
        default: t = cel_type_dyn(); break;
        }
        break;
    case N_IDENT:
        if (n->slot <= -2)
            t = scope_type(C, -2 - n->slot);
        else if (n->slot >= 0)
            t = C->env->vars[n->slot].type;
        else {
            cerr(C, n->pos, "undeclared reference to '%s' (in container '%s')", n->name, C->env->container);
            t = cel_type_error();
        }
        break;
    case N_SELECT: t = chk_select(C, n); break;
    case N_CALL: t = chk_call(C, n); break;
    case N_LIST: {
        const cel_type *e = NULL;
        bool mixed = false;
        for (size_t i = 0; i < n->nargs; i++) {
            const cel_type *et = chk(C, n->args[i]);
            if (n->opt && n->opt[i]) {
                const cel_type *ot = ck_opt(C, fresh(C));
                if (!is_assignable(C, ot, et)) {
                    cerr(C, n->args[i]->pos, "expected type 'optional_type' but found '%s'", tname(C, et));
                    return cel_type_error();
                }
                et = subst(C, ot, false)->params[0];
            }
            (void)mixed;
            e = join(C, n->args[i]->pos, e, et);
            if (C->failed)
                return cel_type_error();
        }
        t = ck_list(C, e ? e : fresh(C));
        break;
    }
    case N_MAP: {
        const cel_type *k = NULL, *v = NULL;
        bool mixed = false;
        for (size_t i = 0; i < n->nargs; i++) {
            const cel_type *kt = chk(C, n->args[i]);
            const cel_type *vt = chk(C, n->vals[i]);
            if (n->opt && n->opt[i]) {
                const cel_type *ot = ck_opt(C, fresh(C));
                if (!is_assignable(C, ot, vt)) {
                    cerr(C, n->vals[i]->pos, "expected type 'optional_type' but found '%s'", tname(C, vt));
                    return cel_type_error();
                }
                vt = subst(C, ot, false)->params[0];
            }
            (void)mixed;
            k = join(C, n->args[i]->pos, k, kt);
            if (C->failed)
                return cel_type_error();
            v = join(C, n->vals[i]->pos, v, vt);
            if (C->failed)
                return cel_type_error();
        }
        t = ck_map(C, k ? k : fresh(C), v ? v : fresh(C));
        break;
    }
    case N_STRUCT: {
        const cel_type *st = n->struct_type;
        for (size_t i = 0; i < n->nargs; i++) {
            const char *f = n->args[i]->cval.u.s;
            const cel_type *ft = NULL;
            for (size_t j = 0; j < st->nfields; j++)
                if (!strcmp(st->field_names[j], f))
                    ft = st->field_types[j];
            const cel_type *vt = chk(C, n->vals[i]);
            if (!ft && st->nfields) {
                cerr(C, n->args[i]->pos, "undefined field '%s'", f);
                return cel_type_error();
            }
            if (n->opt && n->opt[i] && vt->kind == CEL_T_OPTIONAL)
                vt = vt->nparams ? vt->params[0] : cel_type_dyn();
            if (ft && !is_assignable(C, ft, vt)) {
                cerr(C, n->vals[i]->pos, "expected type of field '%s' is '%s' but provided type is '%s'", f,
                     tname(C, ft), tname(C, vt));
                return cel_type_error();
            }
        }
        t = st;
        break;
    }
    case N_COMPR: t = chk_compr(C, n); break;
    }
    n->type = t;
    return t;
}

bool cel_check(cel_env *env, kg_arena *a, const char *src, cel_node *root, const cel_type **out, cel_error *err)
{
    return cel_check_ex(env, a, src, root, out, err, NULL);
}

bool cel_check_ex(cel_env *env, kg_arena *a, const char *src, cel_node *root, const cel_type **out, cel_error *err,
                  cel_check_extra *extra)
{
    /* the scope arrays (3 KiB) are written before they are read: only the other fields need zeroing */
    checker C;
    C.failed = false;
    C.depth = 0;
    C.m = (mapping){0, 0, NULL, NULL, C.var_inline, 0, false}; /* var_inline zeroed on first use (m_add) */
    C.nfresh = 0;
    C.trail = NULL;
    C.ntrail = C.captrail = 0;
    C.extra = extra;
    C.capcalls = extra ? sizeof extra->inl / sizeof *extra->inl : 0;
    if (extra)
        extra->calls = extra->inl, extra->ncalls = 0, extra->max_depth = 0;
    C.env = env;
    C.a = a;
    C.src = src;
    C.err = err;
    C.m.trail = true;
    const cel_type *t = chk(&C, root);
    if (C.failed)
        return false;
    *out = subst(&C, t, true);
    return true;
}
