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

/* ---- flag computation ---- */

/* A flag value split like pflag's StringSlice (comma-separated, no trimming; "" → empty list). */
typedef struct name_list {
    char **items;
    size_t n;
} name_list;

static void list_split(name_list *l, const char *s)
{
    l->items = NULL;
    l->n = 0;
    if (!s || !*s)
        return;
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    l->items = calloc(cap, sizeof(char *));
    if (!l->items)
        abort();
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == ',' || *p == '\0') {
            l->items[l->n++] = strndup(start, (size_t)(p - start));
            if (!*p)
                break;
            start = p + 1;
        }
    }
}

static void list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
}

static bool list_has(const name_list *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i], name) == 0)
            return true;
    return false;
}

/* Collected errors, rendered like utilerrors.NewAggregate: one → itself, several → "[a, b]" (duplicates dropped). */
typedef struct errlist {
    kg_buf msgs[64];
    size_t n;
} errlist;

static void errs_add(errlist *e, const char *prefix, const char *quoted_name, const char *suffix)
{
    if (e->n == sizeof e->msgs / sizeof e->msgs[0])
        return;
    kg_buf *b = &e->msgs[e->n];
    kg_buf_init(b);
    kg_buf_puts(b, prefix);
    if (quoted_name)
        kg_meta_quote(b, quoted_name, strlen(quoted_name));
    kg_buf_puts(b, suffix);
    for (size_t i = 0; i < e->n; i++) {
        if (strcmp(kg_buf_cstr(&e->msgs[i]), kg_buf_cstr(b)) == 0) {
            kg_buf_free(b);
            return;
        }
    }
    e->n++;
}

static bool errs_finish(errlist *e, kg_error *err)
{
    bool ok = e->n == 0;
    if (!ok) {
        kg_buf all = KG_BUF_INIT;
        if (e->n > 1)
            kg_buf_putc(&all, '[');
        for (size_t i = 0; i < e->n; i++) {
            if (i)
                kg_buf_puts(&all, ", ");
            kg_buf_puts(&all, kg_buf_cstr(&e->msgs[i]));
        }
        if (e->n > 1)
            kg_buf_putc(&all, ']');
        kg_err_set(err, KG_EINVAL, "%s", kg_buf_cstr(&all));
        kg_buf_free(&all);
    }
    for (size_t i = 0; i < e->n; i++)
        kg_buf_free(&e->msgs[i]);
    e->n = 0;
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool kg_admission_enabled_plugins(const kg_admission_options *opts, int *names, size_t *n, int *unimplemented,
                                  size_t *nunimplemented, kg_error *err)
{
    static const kg_admission_options none = {0};
    if (!opts)
        opts = &none;
    errlist errs = {.n = 0};
    name_list enable, disable, legacy;
    list_split(&enable, opts->enable_plugins);
    list_split(&disable, opts->disable_plugins);
    list_split(&legacy, opts->admission_control);
    size_t total = kg_admission_registry_count();

    /* k/k pkg/kubeapiserver/options/admission.go Validate */
    if (opts->admission_control && (opts->enable_plugins || opts->disable_plugins))
        errs_add(
            &errs,
            "admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive",
            NULL, "");
    for (size_t i = 0; i < legacy.n; i++)
        if (kg_admission_registry_index(legacy.items[i]) < 0)
            errs_add(&errs, "admission-control plugin ", legacy.items[i], " is unknown");
    /* k8s.io/apiserver pkg/server/options/admission.go Validate */
    for (size_t i = 0; i < enable.n; i++)
        if (kg_admission_registry_index(enable.items[i]) < 0)
            errs_add(&errs, "enable-admission-plugins plugin ", enable.items[i], " is unknown");
    for (size_t i = 0; i < disable.n; i++)
        if (kg_admission_registry_index(disable.items[i]) < 0)
            errs_add(&errs, "disable-admission-plugins plugin ", disable.items[i], " is unknown");
    {
        /* sets.String.Intersection(...).List(): sorted, unique, printed with %v → "[A B]" */
        char **both = calloc(enable.n + 1, sizeof(char *));
        size_t nb = 0;
        for (size_t i = 0; i < enable.n; i++) {
            bool dup = false;
            for (size_t j = 0; j < nb && !dup; j++)
                dup = strcmp(both[j], enable.items[i]) == 0;
            if (!dup && list_has(&disable, enable.items[i]))
                both[nb++] = enable.items[i];
        }
        if (nb) {
            qsort(both, nb, sizeof *both, cmp_str);
            kg_buf b = KG_BUF_INIT;
            kg_buf_putc(&b, '[');
            for (size_t i = 0; i < nb; i++) {
                if (i)
                    kg_buf_putc(&b, ' ');
                kg_buf_puts(&b, both[i]);
            }
            kg_buf_puts(&b, "] in enable-admission-plugins and disable-admission-plugins overlapped");
            errs_add(&errs, kg_buf_cstr(&b), NULL, "");
            kg_buf_free(&b);
        }
        free(both);
    }
    /* kgate: a plugin named explicitly must exist here, never a silent no-op */
    const name_list *named = opts->admission_control ? &legacy : &enable;
    const char *flag = opts->admission_control ? "admission-control" : "enable-admission-plugins";
    for (size_t i = 0; i < named->n; i++) {
        const kg_admission_plugin_info *info = kg_admission_registry_find(named->items[i]);
        if (info && !info->impl) {
            kg_buf b = KG_BUF_INIT;
            kg_buf_printf(&b, "%s plugin ", flag);
            errs_add(&errs, kg_buf_cstr(&b), named->items[i], " is not implemented yet in kgate");
            kg_buf_free(&b);
        }
    }

    bool ok = errs_finish(&errs, err);
    if (ok) {
        size_t k = 0, u = 0;
        for (size_t i = 0; i < total; i++) {
            const kg_admission_plugin_info *info = kg_admission_registry_at(i);
            bool disabled;
            if (opts->admission_control) /* enable = list, disable = every other registered plugin */
                disabled = !list_has(&legacy, info->name);
            else
                disabled = (!info->default_on || list_has(&disable, info->name)) && !list_has(&enable, info->name);
            if (disabled)
                continue;
            if (!info->impl) {
                if (unimplemented)
                    unimplemented[u] = (int)i;
                u++;
                continue;
            }
            names[k++] = (int)i;
        }
        *n = k;
        if (nunimplemented)
            *nunimplemented = u;
    }
    list_free(&enable);
    list_free(&disable);
    list_free(&legacy);
    return ok;
}

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

static kg_status *admit_once(const kg_admission_chain *c, kg_admission_attributes *attrs)
{
    const phase *ph = phase_of(c, attrs->operation, PHASE_ADMIT);
    for (size_t i = 0; i < ph->n; i++) {
        const chain_entry *e = ph->entries[i];
        attrs->slot = e->slot;
        double t = c->metrics ? kg_metrics_now() : 0;
        kg_status *st = e->plugin->admit(e->state, attrs, &c->svc);
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
        st = e->plugin->validate(e->state, attrs, &c->svc);
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
