/* The decision trace of `kgate check` (see explain.h). */
#include "check/explain.h"

#include <string.h>

static const char *dup(kg_arena *a, const char *s)
{
    return s ? kg_arena_strdup(a, s) : NULL;
}

static void copy_step(kg_arena *a, kg_check_step *dst, const kg_check_step *src)
{
    *dst = *src;
    dst->phase = dup(a, src->phase);
    dst->kind = dup(a, src->kind);
    dst->name = dup(a, src->name);
    dst->binding = dup(a, src->binding);
    dst->message = dup(a, src->message);
    dst->expression = dup(a, src->expression);
    dst->values = NULL;
    if (src->nvalues) {
        dst->values = kg_arena_alloc(a, src->nvalues * sizeof *dst->values);
        for (size_t i = 0; i < src->nvalues; i++)
            dst->values[i] = (kg_trace_value){dup(a, src->values[i].expr), dup(a, src->values[i].value)};
    }
}

static void on_event(void *ud, const kg_trace_event *ev)
{
    kg_check_trace *t = ud;
    if (ev->verdict == KG_TRACE_DENIED) {
        if (ev->depth == 0 && !t->denied_plugin)
            t->denied_plugin = kg_arena_strdup(t->arena, ev->name);
        else if (ev->depth > 0 && !t->denied_plugin && !t->denied_name && strcmp(ev->kind, "check")) {
            t->denied_kind = kg_arena_strdup(t->arena, ev->kind);
            t->denied_name = kg_arena_strdup(t->arena, ev->name);
            t->denied_binding = dup(t->arena, ev->binding);
        }
    }
    if (ev->depth == 0 && !t->denied_plugin)
        t->denied_kind = t->denied_name = t->denied_binding = NULL; /* a step inside a plugin that did not deny */
    if (!t->explain)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 32;
        kg_check_step *s = kg_arena_alloc(t->arena, cap * sizeof *s);
        if (t->n)
            memcpy(s, t->steps, t->n * sizeof *s);
        t->steps = s;
        t->cap = cap;
    }
    kg_check_step st = {.depth = ev->depth,
                        .phase = ev->phase,
                        .kind = ev->kind,
                        .name = ev->name,
                        .binding = ev->binding,
                        .verdict = ev->verdict,
                        .seconds = ev->seconds,
                        .message = ev->message,
                        .expression = ev->expression,
                        .values = (kg_trace_value *)ev->values,
                        .nvalues = ev->nvalues};
    if (ev->depth == 0) {
        /* a plugin's own event comes after the steps inside it: it goes before them */
        memmove(&t->steps[t->group + 1], &t->steps[t->group], (t->n - t->group) * sizeof *t->steps);
        copy_step(t->arena, &t->steps[t->group], &st);
        t->n++;
        for (size_t i = t->group + 1; i < t->n; i++)
            if (!t->steps[i].phase)
                t->steps[i].phase = t->steps[t->group].phase;
        t->group = t->n;
    } else {
        copy_step(t->arena, &t->steps[t->n++], &st);
    }
}

void kg_check_trace_init(kg_check_trace *t, bool explain)
{
    memset(t, 0, sizeof *t);
    t->tracer = (kg_admission_tracer){on_event, t, !explain};
    t->explain = explain;
}

void kg_check_trace_reset(kg_check_trace *t, kg_arena *a)
{
    t->arena = a;
    t->steps = NULL;
    t->n = t->cap = t->group = 0;
    t->denied_plugin = t->denied_kind = t->denied_name = t->denied_binding = NULL;
}

kg_check_step *kg_check_steps_copy(kg_arena *a, const kg_check_trace *t, size_t *n)
{
    *n = t->n;
    if (!t->n)
        return NULL;
    kg_check_step *s = kg_arena_alloc(a, t->n * sizeof *s);
    for (size_t i = 0; i < t->n; i++)
        copy_step(a, &s[i], &t->steps[i]);
    return s;
}

const char *kg_check_trace_rule(kg_arena *a, const kg_check_trace *t)
{
    if (!t->denied_plugin)
        return NULL;
    if (t->denied_name && t->denied_kind && !strcmp(t->denied_kind, "ValidatingAdmissionPolicy"))
        return kg_arena_sprintf(a, "ValidatingAdmissionPolicy/%s", t->denied_name);
    if (t->denied_name)
        return kg_arena_sprintf(a, "%s/%s", t->denied_plugin, t->denied_name);
    return kg_arena_strdup(a, t->denied_plugin);
}

static const char *label(kg_arena *a, const kg_check_step *s)
{
    if (s->depth == 0)
        return s->name;
    if (s->binding)
        return kg_arena_sprintf(a, "%s %s binding %s", s->kind, s->name, s->binding);
    return kg_arena_sprintf(a, "%s %s", s->kind, s->name);
}

void kg_check_steps_text(FILE *f, const kg_check_step *s, size_t n, int indent)
{
    kg_arena a;
    kg_arena_init(&a, 0);
    for (size_t i = 0; i < n; i++) {
        const kg_check_step *x = &s[i];
        int ind = indent + 2 * x->depth;
        fprintf(f, "%*s%s%s: %s", ind, "", x->depth == 0 ? (x->phase[0] == 'm' ? "mutating " : "validating ") : "",
                label(&a, x), kg_trace_verdict_name(x->verdict));
        if (x->seconds > 0)
            fprintf(f, " (%.1f µs)", x->seconds * 1e6);
        if (x->message && x->depth > 0)
            fprintf(f, ": %s", x->message);
        fputc('\n', f);
        if (x->expression) {
            fprintf(f, "%*s  failed expression: %s\n", ind, "", x->expression);
            for (size_t k = 0; k < x->nvalues; k++)
                fprintf(f, "%*s    %s = %s\n", ind, "", x->values[k].expr, x->values[k].value);
        }
    }
    kg_arena_free(&a);
}

static void set_str(kg_arena *a, kg_json *o, const char *k, const char *v)
{
    if (v)
        kg_json_set(a, o, k, kg_json_new_str(a, v));
}

kg_json *kg_check_steps_json(kg_arena *a, const kg_check_step *s, size_t n)
{
    kg_json *arr = kg_json_new_array(a);
    for (size_t i = 0; i < n; i++) {
        const kg_check_step *x = &s[i];
        kg_json *o = kg_json_new_object(a);
        set_str(a, o, "stage", x->phase);
        kg_json_set(a, o, "depth", kg_json_new_int(a, x->depth));
        set_str(a, o, "kind", x->kind);
        set_str(a, o, "name", x->name);
        set_str(a, o, "binding", x->binding);
        set_str(a, o, "result", kg_trace_verdict_name(x->verdict));
        kg_json_set(a, o, "durationNs", kg_json_new_int(a, (int64_t)(x->seconds * 1e9)));
        set_str(a, o, "message", x->message);
        set_str(a, o, "expression", x->expression);
        if (x->nvalues) {
            kg_json *tr = kg_json_new_array(a);
            for (size_t k = 0; k < x->nvalues; k++) {
                kg_json *v = kg_json_new_object(a);
                set_str(a, v, "expr", x->values[k].expr);
                set_str(a, v, "value", x->values[k].value);
                kg_json_array_append(a, tr, v);
            }
            kg_json_set(a, o, "trace", tr);
        }
        kg_json_array_append(a, arr, o);
    }
    return arr;
}
