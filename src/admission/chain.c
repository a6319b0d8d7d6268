#include "admission/chain.h"

#include <stdlib.h>
#include <string.h>

#include "admission/registry.h"
#include "base/buf.h"
#include "base/log.h"

typedef struct chain_entry {
    const kg_admission_plugin *plugin;
    void *state;
    size_t slot; /* chain position: the plugin's per-request context slot */
} chain_entry;

/* The phases as data (nginx's phase handler array): for each operation and phase, the entries that take part, in
 * chain order, built once when the chain is built. Running a phase is a plain loop over one array. */
enum { PHASE_ADMIT, PHASE_VALIDATE, NPHASES };
#define NOPS 4 /* CREATE, UPDATE, DELETE, CONNECT: bit i of kg_admission_op */

typedef struct phase {
    const chain_entry **entries;
    size_t n;
} phase;

struct kg_admission_chain {
    chain_entry *entries;
    size_t n;
    phase phases[NOPS][NPHASES];
    kg_admission_services svc; /* copy: plugins keep &svc from init */
    const kg_apiserver_metrics *metrics;
    kg_admission_config config;
};

/* ---- construction ---- */

static kg_admission_chain *chain_alloc(size_t n, const kg_admission_services *svc, const kg_apiserver_metrics *m)
{
    kg_admission_chain *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->entries = calloc(n ? n : 1, sizeof *c->entries);
    if (!c->entries)
        abort();
    for (int op = 0; op < NOPS; op++)
        for (int ph = 0; ph < NPHASES; ph++)
            if (!(c->phases[op][ph].entries = calloc(n ? n : 1, sizeof(chain_entry *))))
                abort();
    if (svc)
        c->svc = *svc;
    c->metrics = m;
    if (!c->svc.metrics)
        c->svc.metrics = m;
    kg_admission_config_init(&c->config);
    return c;
}

static bool chain_add(kg_admission_chain *c, const kg_admission_plugin *p, const kg_json *config, kg_error *err)
{
    void *state = NULL;
    if (p->init) {
        KG_ERROR_DECL(e);
        if (!p->init(config, &c->svc, &state, &e)) {
            /* upstream's text, plus the file the configuration came from so a user knows where to look */
            if (config && c->config.file && c->config.file[0])
                return kg_err_set(err, e.code ? e.code : KG_EINVAL,
                                  "couldn't init admission plugin \"%s\" (configured in \"%s\"): %s", p->name,
                                  c->config.file, e.msg);
            return kg_err_set(err, e.code ? e.code : KG_EINVAL, "couldn't init admission plugin \"%s\": %s", p->name,
                              e.msg);
        }
    }
    chain_entry *e = &c->entries[c->n];
    e->plugin = p;
    e->state = state;
    e->slot = c->n;
    c->n++;
    for (int op = 0; op < NOPS; op++) {
        if (!(p->handles & (1u << op)))
            continue;
        if (p->admit) {
            phase *ph = &c->phases[op][PHASE_ADMIT];
            ph->entries[ph->n++] = e;
        }
        if (p->validate) {
            phase *ph = &c->phases[op][PHASE_VALIDATE];
            ph->entries[ph->n++] = e;
        }
    }
    return true;
}

static void log_loaded(const kg_admission_chain *c)
{
    for (int phase = 0; phase < 2; phase++) {
        kg_buf b = KG_BUF_INIT;
        size_t cnt = 0;
        for (size_t i = 0; i < c->n; i++) {
            const kg_admission_plugin *p = c->entries[i].plugin;
            if (phase == 0 ? !p->admit : !p->validate)
                continue;
            if (cnt++)
                kg_buf_putc(&b, ',');
            kg_buf_puts(&b, p->name);
        }
        KG_INFO("Loaded %zu %s admission controller(s) successfully in the following order: %s.", cnt,
                phase == 0 ? "mutating" : "validating", kg_buf_cstr(&b));
        kg_buf_free(&b);
    }
}

kg_admission_chain *kg_admission_chain_new(const kg_admission_options *opts, const kg_admission_services *svc,
                                           const kg_apiserver_metrics *metrics, kg_error *err)
{
    size_t total = kg_admission_registry_count();
    int *names = calloc(total, sizeof(int)), *unimpl = calloc(total, sizeof(int));
    if (!names || !unimpl)
        abort();
    size_t n = 0, nu = 0;
    kg_admission_chain *c = NULL;
    if (!kg_admission_enabled_plugins(opts, names, &n, unimpl, &nu, err))
        goto out;
    if (nu) {
        kg_buf b = KG_BUF_INIT;
        for (size_t i = 0; i < nu; i++) {
            if (i)
                kg_buf_puts(&b, ", ");
            kg_buf_puts(&b, kg_admission_registry_at((size_t)unimpl[i])->name);
        }
        KG_WARN("default admission plugins not implemented yet in kgate, skipped: %s", kg_buf_cstr(&b));
        kg_buf_free(&b);
    }
    c = chain_alloc(n, svc, metrics);
    if (opts && opts->config_file && opts->config_file[0]) {
        KG_ERROR_DECL(e);
        if (!kg_admission_config_load(&c->config, opts->config_file, &e)) {
            kg_err_set(err, e.code, "failed to read plugin config: %s", e.msg);
            goto fail;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const kg_admission_plugin *p = kg_admission_registry_at((size_t)names[i])->impl;
        KG_ERROR_DECL(e);
        const kg_json *cfg = kg_admission_config_for(&c->config, p->name, &e);
        if (!cfg && e.code) {
            kg_err_set(err, e.code, "couldn't get config for admission plugin %s: %s", p->name, e.msg);
            goto fail;
        }
        if (!chain_add(c, p, cfg, err))
            goto fail;
    }
    log_loaded(c);
    goto out;
fail:
    kg_admission_chain_free(c);
    c = NULL;
out:
    free(names);
    free(unimpl);
    return c;
}

kg_admission_chain *kg_admission_chain_new_from(const kg_admission_plugin *const *plugins, size_t n,
                                                const kg_json *const *configs, const kg_admission_services *svc,
                                                const kg_apiserver_metrics *metrics, kg_error *err)
{
    kg_admission_chain *c = chain_alloc(n, svc, metrics);
    for (size_t i = 0; i < n; i++) {
        if (!chain_add(c, plugins[i], configs ? configs[i] : NULL, err)) {
            kg_admission_chain_free(c);
            return NULL;
        }
    }
    return c;
}

void kg_admission_chain_free(kg_admission_chain *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        if (c->entries[i].plugin->destroy)
            c->entries[i].plugin->destroy(c->entries[i].state);
    free(c->entries);
    for (int op = 0; op < NOPS; op++)
        for (int ph = 0; ph < NPHASES; ph++)
            free(c->phases[op][ph].entries);
    kg_admission_config_free(&c->config);
    free(c);
}

size_t kg_admission_chain_len(const kg_admission_chain *c)
{
    return c ? c->n : 0;
}

const char *kg_admission_chain_name(const kg_admission_chain *c, size_t i)
{
    return c && i < c->n ? c->entries[i].plugin->name : NULL;
}

const kg_admission_plugin *kg_admission_chain_plugin(const kg_admission_chain *c, size_t i)
{
    return c && i < c->n ? c->entries[i].plugin : NULL;
}

bool kg_admission_chain_has_mutating(const kg_admission_chain *c)
{
    for (size_t i = 0; c && i < c->n; i++)
        if (c->entries[i].plugin->admit)
            return true;
    return false;
}

/* ---- running ---- */

static void observe_plugin(const kg_admission_chain *c, const char *name, const char *type, kg_admission_op op,
                           bool rejected, double seconds)
{
    if (!c->metrics)
        return;
    const char *v[] = {name, type, kg_admission_op_name(op), rejected ? "true" : "false"};
    kg_metric_observe(c->metrics->admission_controller_duration, v, seconds);
}

static void observe_step(const kg_admission_chain *c, const char *type, kg_admission_op op, bool rejected,
                         double seconds)
{
    if (!c->metrics)
        return;
    const char *v[] = {type, kg_admission_op_name(op), rejected ? "true" : "false"};
    kg_metric_observe(c->metrics->admission_step_duration, v, seconds);
}

/* The phase array of attrs' operation (an empty phase for an unknown operation). */
static const phase *phase_of(const kg_admission_chain *c, kg_admission_op op, int ph)
{
    static const phase none = {NULL, 0};
    for (int i = 0; i < NOPS; i++)
        if (op == (kg_admission_op)(1u << i))
            return &c->phases[i][ph];
    return &none;
}

/* Every run gets one zeroed context slot per chain position (kg_admission_request_ctx); the slots of the first
 * run survive into the later ones (validating phase, reinvocation). */
static void enter(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    if (attrs->ctx_slots && attrs->nslots == c->n)
        return;
    attrs->nslots = c->n;
    attrs->ctx_slots = kg_arena_alloc(attrs->arena, (c->n ? c->n : 1) * sizeof(void *));
    memset(attrs->ctx_slots, 0, (c->n ? c->n : 1) * sizeof(void *));
}

/* A plugin run with a tracer (admission/trace.h): timed, its verdict reported after its own events; whether a
 * mutating plugin changed the object is told by a copy taken before it ran (only when tracing). */
static kg_status *traced_run(const chain_entry *e, kg_admission_attributes *attrs, const kg_admission_services *svc,
                             bool mutating)
{
    bool full = !attrs->tracer->verdicts_only;
    const kg_json *before = full && mutating && attrs->object ? kg_json_clone(attrs->arena, attrs->object) : NULL;
    double t = full ? kg_metrics_now() : 0;
    kg_status *st = mutating ? e->plugin->admit(e->state, attrs, svc) : e->plugin->validate(e->state, attrs, svc);
    kg_trace_event ev = {.depth = 0,
                         .phase = mutating ? "mutating" : "validating",
                         .kind = "plugin",
                         .name = e->plugin->name,
                         .seconds = full ? kg_metrics_now() - t : 0,
                         .verdict = KG_TRACE_ADMITTED};
    if (st) {
        ev.verdict = KG_TRACE_DENIED;
        ev.message = st->message;
    } else if (before && attrs->object && !kg_json_equal(before, attrs->object))
        ev.verdict = KG_TRACE_MUTATED;
    kg_admission_trace(attrs, &ev);
    return st;
}

static kg_status *admit_once(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    const phase *ph = phase_of(c, attrs->operation, PHASE_ADMIT);
    for (size_t i = 0; i < ph->n; i++) {
        const chain_entry *e = ph->entries[i];
        attrs->slot = e->slot;
        double t = c->metrics ? kg_metrics_now() : 0;
        kg_status *st =
            attrs->tracer ? traced_run(e, attrs, &c->svc, true) : e->plugin->admit(e->state, attrs, &c->svc);
        if (c->metrics)
            observe_plugin(c, e->plugin->name, "admit", attrs->operation, st != NULL, kg_metrics_now() - t);
        if (st)
            return st;
    }
    return NULL;
}

kg_status *kg_admission_chain_admit(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    double t = c->metrics ? kg_metrics_now() : 0;
    enter(c, attrs);
    kg_status *st = admit_once(c, attrs);
    /* reinvocation: when a later mutator (webhook) asked for it, run the mutating phase once more, never a third
     * time */
    if (!st && attrs->reinvoke_requested && !attrs->is_reinvoke) {
        attrs->is_reinvoke = true;
        attrs->reinvoke_requested = false;
        st = admit_once(c, attrs);
    }
    observe_step(c, "admit", attrs->operation, st != NULL, c->metrics ? kg_metrics_now() - t : 0);
    return st;
}

kg_status *kg_admission_chain_validate(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    double t = c->metrics ? kg_metrics_now() : 0;
    enter(c, attrs);
    kg_status *st = NULL;
    const phase *ph = phase_of(c, attrs->operation, PHASE_VALIDATE);
    for (size_t i = 0; i < ph->n && !st; i++) {
        const chain_entry *e = ph->entries[i];
        attrs->slot = e->slot;
        double t1 = c->metrics ? kg_metrics_now() : 0;
        st = attrs->tracer ? traced_run(e, attrs, &c->svc, false) : e->plugin->validate(e->state, attrs, &c->svc);
        if (c->metrics)
            observe_plugin(c, e->plugin->name, "validate", attrs->operation, st != NULL, kg_metrics_now() - t1);
    }
    observe_step(c, "validate", attrs->operation, st != NULL, c->metrics ? kg_metrics_now() - t : 0);
    return st;
}

kg_status *kg_admission_chain_run(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    kg_status *st = kg_admission_chain_admit(c, attrs);
    return st ? st : kg_admission_chain_validate(c, attrs);
}
