/* The admission flags of kube-apiserver (--enable-admission-plugins, --disable-admission-plugins, the deprecated
 * --admission-control, --admission-control-config-file) and the enabled plugin set they select. The chain
 * (chain.h) is built from these options; `kgate serve` and `kgate check` fill them from their command lines. */
#include "admission/options.h"

#include <stdlib.h>
#include <string.h>

#include "admission/registry.h"
#include "base/buf.h"

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
