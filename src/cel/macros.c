/* CEL macro expansion (cel-go's macros): has(), all(), exists(), exists_one()/existsOne(), map(), filter(), the
 * two-variable forms (transformList, transformMap, transformMapEntry), cel.bind, cel.block and its index variables,
 * optMap/optFlatMap and sortBy. The grammar (parse.c finish_call) calls cel_expand_macro once a call's arguments are
 * parsed; an expansion is made of ordinary nodes (comprehensions over the accumulator ACCU, calls of the functions
 * with fixed names) with cel-go's shapes, so everything after the parser sees no macros. */
#include <stdio.h>
#include <stdlib.h>

#include "cel/parse_internal.h"

const char cel_accu_name[] = "@result";

static cel_node *mk_compr(parser *P, int pos, cel_node *range, const char *iv, const char *iv2, cel_node *init,
                          cel_node *cond, cel_node *step, cel_node *result)
{
    cel_node *n = mk(P, N_COMPR, pos);
    n->range = range;
    n->iter_var = iv;
    n->iter_var2 = iv2;
    n->accu_var = ACCU;
    n->accu_init = init;
    n->cond = cond;
    n->step = step;
    n->result = result;
    return n;
}

static cel_node *empty_list(parser *P, int pos)
{
    cel_node *n = mk(P, N_LIST, pos);
    n->args = nodes(P, 0);
    return n;
}

static const char *var_name(parser *P, cel_node *n)
{
    if (n->kind != N_IDENT || (n->flags & NF_ROOT))
        cel_parse_err(P, n->pos, "argument must be a simple name");
    return n->name;
}

static cel_node *list1(parser *P, int pos, cel_node *e)
{
    cel_node *l = mk(P, N_LIST, pos);
    l->args = nodes(P, 1);
    l->args[0] = e;
    l->nargs = 1;
    return l;
}

static cel_node *append_step(parser *P, int pos, cel_node *elem)
{
    cel_node *c = call2w(P, pos, CEL_WK_ADD, mk_ident(P, pos, ACCU), list1(P, pos, elem));
    c->flags |= NF_APPEND_ACCU;
    return c;
}

/* Expand a macro call if (name, argc, target) is one; returns NULL otherwise. */
cel_node *cel_expand_macro(parser *P, int pos, const char *name, size_t name_len, cel_node *target, cel_node **args,
                           size_t n)
{
    unsigned libs = P->env->libs;
    if (!target) {
        if (name[0] == 'h' && n == 1 && !strcmp(name, "has")) {
            cel_node *a = args[0];
            if (a->kind != N_SELECT || (a->flags & NF_OPTIONAL))
                cel_parse_err(P, a->pos, "invalid argument to has() macro");
            cel_node *s = mk(P, N_SELECT, pos);
            *s = *a;
            s->id = ++P->next_id;
            s->pos = pos;
            s->flags |= NF_TEST_ONLY;
            return s;
        }
        return NULL;
    }
    /* namespaced macros: cel.bind, cel.block */
    if (target->kind == N_IDENT && target->name[0] == 'c' && !strcmp(target->name, "cel") &&
        !(target->flags & NF_ROOT)) {
        if (!strcmp(name, "bind") && n == 3 && (libs & CEL_LIB_BINDINGS)) {
            const char *v = var_name(P, args[0]);
            cel_node *c = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, args[1],
                                   mk_const(P, pos, cel_bool(false)), mk_ident(P, pos, v), args[2]);
            c->accu_var = v;
            return c;
        }
        if (libs & CEL_LIB_BLOCK) {
            if (!strcmp(name, "index") && n == 1 && args[0]->kind == N_CONST && args[0]->cval.kind == CEL_INT)
                return mk_ident(P, pos, kg_arena_sprintf(P->a, "@index%lld", (long long)args[0]->cval.u.i));
            if ((!strcmp(name, "iterVar") || !strcmp(name, "accuVar")) && n == 2 && args[0]->kind == N_CONST &&
                args[1]->kind == N_CONST && args[0]->cval.kind == CEL_INT && args[1]->cval.kind == CEL_INT)
                return mk_ident(P, pos,
                                kg_arena_sprintf(P->a, "@%s:%lld:%lld", name[0] == 'i' ? "it" : "ac",
                                                 (long long)args[0]->cval.u.i, (long long)args[1]->cval.u.i));
            if (!strcmp(name, "block") && n == 2) {
                if (args[0]->kind != N_LIST)
                    cel_parse_err(P, args[0]->pos, "cel.block requires the first arg to be a list literal");
                /* nested lazy-enough bindings: @index0 = e0 in (@index1 = e1 in (... result)) */
                cel_node *body = args[1];
                for (size_t i = args[0]->nargs; i-- > 0;) {
                    const char *v = kg_arena_sprintf(P->a, "@index%zu", i);
                    cel_node *c = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, args[0]->args[i],
                                           mk_const(P, pos, cel_bool(false)), mk_ident(P, pos, v), body);
                    c->accu_var = v;
                    body = c;
                }
                return body;
            }
        }
        return NULL;
    }
    /* which member macro (if any) the name is: one switch and at most one compare */
    enum {
        MM_NONE,
        MM_ALL,
        MM_EXISTS,
        MM_EXISTS_ONE,
        MM_EXISTSONE,
        MM_MAP,
        MM_FILTER,
        MM_TLIST,
        MM_TMAP,
        MM_TMAPENTRY,
        MM_OPTMAP,
        MM_OPTFLATMAP,
        MM_SORTBY
    };
    static const struct {
        const char *s;
        size_t len;
        int id;
    } mm[] = {{"all", 3, MM_ALL},
              {"exists", 6, MM_EXISTS},
              {"exists_one", 10, MM_EXISTS_ONE},
              {"existsOne", 9, MM_EXISTSONE},
              {"map", 3, MM_MAP},
              {"filter", 6, MM_FILTER},
              {"transformList", 13, MM_TLIST},
              {"transformMap", 12, MM_TMAP},
              {"transformMapEntry", 17, MM_TMAPENTRY},
              {"optMap", 6, MM_OPTMAP},
              {"optFlatMap", 10, MM_OPTFLATMAP},
              {"sortBy", 6, MM_SORTBY}};
    int mid = MM_NONE;
    switch (name[0]) {
    case 'a':
    case 'e':
    case 'f':
    case 'm':
    case 'o':
    case 's':
    case 't':
        for (size_t i = 0; i < sizeof mm / sizeof *mm; i++)
            if (mm[i].s[0] == name[0] && mm[i].len == name_len && !memcmp(mm[i].s, name, name_len)) {
                mid = mm[i].id;
                break;
            }
        break;
    default: break;
    }
    if (mid == MM_NONE)
        return NULL;
    bool two = (libs & CEL_LIB_TWOVAR) != 0;
    int pos2 = pos;
    if (mid == MM_ALL || mid == MM_EXISTS || mid == MM_EXISTS_ONE || mid == MM_EXISTSONE) {
        const char *v1 = NULL, *v2 = NULL;
        cel_node *pred;
        bool one = mid == MM_EXISTS_ONE || mid == MM_EXISTSONE;
        if (n == 2 && mid != MM_EXISTSONE) {
            v1 = var_name(P, args[0]);
            pred = args[1];
        } else if (n == 3 && two) {
            v1 = var_name(P, args[0]);
            v2 = var_name(P, args[1]);
            if (!strcmp(v1, v2))
                cel_parse_err(P, args[1]->pos, "duplicate variable name: %s", v1);
            pred = args[2];
        } else {
            return NULL;
        }
        if ((v1 && v1[0] == '@' && !strcmp(v1, ACCU)) || (v2 && v2[0] == '@' && !strcmp(v2, ACCU)))
            cel_parse_err(P, args[0]->pos, "iteration variable overwrites accumulator variable");
        if (mid == MM_ALL) {
            cel_node *c = mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_bool(true)),
                                   call1w(P, pos, CEL_WK_NOT_STRICTLY_FALSE, mk_ident(P, pos, ACCU)),
                                   call2w(P, pos, CEL_WK_AND, mk_ident(P, pos, ACCU), pred), mk_ident(P, pos, ACCU));
            c->flags |= NF_ALL;
            c->target = pred;
            return c;
        }
        if (mid == MM_EXISTS) {
            cel_node *c =
                mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_bool(false)),
                         call1w(P, pos, CEL_WK_NOT_STRICTLY_FALSE, call1w(P, pos, CEL_WK_NOT, mk_ident(P, pos, ACCU))),
                         call2w(P, pos, CEL_WK_OR, mk_ident(P, pos, ACCU), pred), mk_ident(P, pos, ACCU));
            c->flags |= NF_EXISTS;
            c->target = pred;
            return c;
        }
        (void)one;
        return mk_compr(P, pos2, target, v1, v2, mk_const(P, pos, cel_int(0)), mk_const(P, pos, cel_bool(true)),
                        call3w(P, pos, CEL_WK_COND, pred,
                               call2w(P, pos, CEL_WK_ADD, mk_ident(P, pos, ACCU), mk_const(P, pos, cel_int(1))),
                               mk_ident(P, pos, ACCU)),
                        call2w(P, pos, CEL_WK_EQ, mk_ident(P, pos, ACCU), mk_const(P, pos, cel_int(1))));
    }
    if (mid == MM_MAP && (n == 2 || n == 3)) {
        const char *v = var_name(P, args[0]);
        cel_node *step = append_step(P, pos, args[n - 1]);
        if (n == 3)
            step = call3w(P, pos, CEL_WK_COND, args[1], step, mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)), step,
                        mk_ident(P, pos, ACCU));
    }
    if (mid == MM_FILTER && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *step =
            call3w(P, pos, CEL_WK_COND, args[1], append_step(P, pos, mk_ident(P, pos, v)), mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)), step,
                        mk_ident(P, pos, ACCU));
    }
    if (two && (mid == MM_TLIST || mid == MM_TMAP || mid == MM_TMAPENTRY) && (n == 3 || n == 4)) {
        const char *v1 = var_name(P, args[0]);
        const char *v2 = var_name(P, args[1]);
        if (!strcmp(v1, v2))
            cel_parse_err(P, args[1]->pos, "duplicate variable name: %s", v1);
        cel_node *init, *step;
        if (mid == MM_TLIST) {
            init = empty_list(P, pos);
            step = append_step(P, pos, args[n - 1]);
        } else {
            init = mk(P, N_MAP, pos);
            init->args = nodes(P, 0);
            init->vals = nodes(P, 0);
            if (mid == MM_TMAP)
                step = call3(P, pos, "cel.@mapInsert", mk_ident(P, pos, ACCU), mk_ident(P, pos, v1), args[n - 1]);
            else
                step = call2(P, pos, "cel.@mapInsert", mk_ident(P, pos, ACCU), args[n - 1]);
        }
        if (n == 4)
            step = call3w(P, pos, CEL_WK_COND, args[2], step, mk_ident(P, pos, ACCU));
        return mk_compr(P, pos, target, v1, v2, init, mk_const(P, pos, cel_bool(true)), step, mk_ident(P, pos, ACCU));
    }
    if ((libs & CEL_LIB_OPTIONALS) && (mid == MM_OPTMAP || mid == MM_OPTFLATMAP) && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *val = mk_call(P, pos, "value", target, NULL, 0);
        cel_node *bind = mk_compr(P, pos, empty_list(P, pos), "#unused", NULL, val, mk_const(P, pos, cel_bool(false)),
                                  mk_ident(P, pos, v), args[1]);
        bind->accu_var = v;
        cel_node *yes = bind;
        if (mid == MM_OPTMAP) {
            cel_node *optof = mk_call(P, pos, "optional.of", NULL, nodes(P, 1), 1);
            optof->args[0] = bind;
            yes = optof;
        }
        cel_node *none = mk_call(P, pos, "optional.none", NULL, nodes(P, 0), 0);
        return call3w(P, pos, CEL_WK_COND, mk_call(P, pos, "hasValue", target, NULL, 0), yes, none);
    }
    if ((libs & CEL_LIB_LISTS) && mid == MM_SORTBY && n == 2) {
        const char *v = var_name(P, args[0]);
        cel_node *keys = mk_compr(P, pos, target, v, NULL, empty_list(P, pos), mk_const(P, pos, cel_bool(true)),
                                  append_step(P, pos, args[1]), mk_ident(P, pos, ACCU));
        cel_node **a1 = nodes(P, 1);
        a1[0] = keys;
        return mk_call(P, pos, "@sortByAssociatedKeys", target, a1, 1);
    }
    return NULL;
}
