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
#include "admission/options.h"
#include "admission/plugin.h"
#include "admission/services.h"
#include "base/metrics.h"
#include "meta/status.h"

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
