/* The admission chain: the enabled plugins in v1.33's fixed order; the mutating phase (admit) runs before the
 * validating phase (validate); the first rejection wins; per-plugin and per-step durations are recorded in the
 * apiserver metrics.
 *
 * A chain is built once at start-up and then used by many request threads at once (it is read-only after
 * construction; plugin states must be thread-safe). Running it allocates only in the request arena. */
#ifndef KG_ADMISSION_CHAIN_H
#define KG_ADMISSION_CHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/attributes.h"
#include "admission/config.h"
#include "admission/plugin.h"
#include "admission/services.h"
#include "base/metrics.h"
#include "meta/status.h"

/* The command-line flags, as given (comma-separated lists; NULL = flag not given). */
typedef struct kg_admission_options {
    const char *enable_plugins;    /* --enable-admission-plugins */
    const char *disable_plugins;   /* --disable-admission-plugins */
    const char *admission_control; /* deprecated --admission-control */
    const char *config_file;       /* --admission-control-config-file */
} kg_admission_options;

/* Compute the enabled plugin names from the flags with upstream semantics:
 *   enabled = [p in order | p not in (DefaultOff ∪ disable) − enable]; --admission-control=L: enable L, disable the
 * rest. Errors (all collected, Go aggregate format "[e1, e2]" when several): `enable-admission-plugins plugin "X" is
 * unknown`, `disable-admission-plugins plugin "X" is unknown`,
 *   `[A B] in enable-admission-plugins and disable-admission-plugins overlapped`,
 *   `admission-control plugin "X" is unknown`,
 *   `admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive`,
 *   and kgate's own: `enable-admission-plugins plugin "X" is not implemented yet in kgate` (or `admission-control
 *   plugin ...`) for a registered but unimplemented plugin named explicitly in a flag.
 * names[] receives registry indexes in execution order (capacity kg_admission_registry_count()).
 * Default-on plugins that are not implemented are left out and reported in *unimplemented (indexes, same capacity;
 * may be NULL). */
bool kg_admission_enabled_plugins(const kg_admission_options *opts, int *names, size_t *n, int *unimplemented,
                                  size_t *nunimplemented, kg_error *err);

typedef struct kg_admission_chain kg_admission_chain;

/* Build the chain from the flags: computes the enabled set, logs unimplemented default plugins
 * ("default admission plugins not implemented yet, skipped: A, B"), loads the config file and inits each plugin
 * with its configuration (`couldn't init admission plugin "<n>": <err>`), then logs
 * "Loaded N mutating admission controller(s) successfully in the following order: ...". metrics may be NULL. */
kg_admission_chain *kg_admission_chain_new(const kg_admission_options *opts, const kg_admission_services *svc,
                                           const kg_apiserver_metrics *metrics, kg_error *err);
/* Build a chain from explicit descriptors in the given order (tests, embedding); configs[i] may be NULL and
 * configs itself may be NULL. */
kg_admission_chain *kg_admission_chain_new_from(const kg_admission_plugin *const *plugins, size_t n,
                                                const kg_json *const *configs, const kg_admission_services *svc,
                                                const kg_apiserver_metrics *metrics, kg_error *err);
void kg_admission_chain_free(kg_admission_chain *c);

size_t kg_admission_chain_len(const kg_admission_chain *c);
const char *kg_admission_chain_name(const kg_admission_chain *c, size_t i);
const kg_admission_plugin *kg_admission_chain_plugin(const kg_admission_chain *c, size_t i);
/* Whether any plugin of the chain has an admit / validate function for op. */
bool kg_admission_chain_has_mutating(const kg_admission_chain *c);

/* Mutating phase: admit of every plugin that handles the operation, in order; first rejection returned. */
kg_status *kg_admission_chain_admit(const kg_admission_chain *c, kg_admission_attributes *attrs);
/* Validating phase. Plugins see attrs read-only; the chain only sets attrs' context-slot bookkeeping. */
kg_status *kg_admission_chain_validate(const kg_admission_chain *c, kg_admission_attributes *attrs);
/* Both phases (mutating, then validating) — for callers with nothing to do in between (kgate check, webhook). */
kg_status *kg_admission_chain_run(const kg_admission_chain *c, kg_admission_attributes *attrs);

#endif
