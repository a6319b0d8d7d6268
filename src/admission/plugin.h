/* The admission plugin descriptor. Every built-in plugin is one `const kg_admission_plugin` in
 * src/admission/plugins/<name>.c (or a folder plugins/<name>/ for a plugin of several files), listed in
 * plugins/plugins.def.
 *
 * Rejections are Statuses (src/meta/status.h) allocated in the request arena; NULL means "allowed". Mutating
 * plugins (admit) must be idempotent: webhook reinvocation runs the whole mutating phase again on the already
 * mutated object. Plugins with side effects must skip them when attrs->dry_run is set. */
#ifndef KG_ADMISSION_PLUGIN_H
#define KG_ADMISSION_PLUGIN_H

#include <stdbool.h>

#include "admission/attributes.h"
#include "admission/services.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/status.h"

typedef struct kg_admission_plugin {
    const char *name; /* registered name, e.g. "NamespaceLifecycle" */
    unsigned handles; /* mask of kg_admission_op; the chain skips the plugin for other operations */
    /* Build the plugin's state from its configuration (the AdmissionConfiguration entry's object, or NULL when
     * there is none). On failure set err (naming the offending field) and return false. May be NULL. The services
     * outlive the state. */
    bool (*init)(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err);
    /* Mutating phase (upstream MutationInterface.Admit); may edit attrs->object. NULL = not a mutating plugin. */
    kg_status *(*admit)(void *state, kg_admission_attributes *attrs, const kg_admission_services *svc);
    /* Validating phase (ValidationInterface.Validate); must not edit the object. NULL = not a validating plugin. */
    kg_status *(*validate)(void *state, const kg_admission_attributes *attrs, const kg_admission_services *svc);
    void (*destroy)(void *state);
} kg_admission_plugin;

/* admission.NewForbidden(attrs, fmt.Errorf(...)): 403 `<resource>[.<group>] "<name>" is forbidden: <msg>` with
 * the naming rule of kg_admission_forbidden_name. */
kg_status *kg_admission_forbidden(const kg_admission_attributes *attrs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* admission.NewForbidden for an error that may already be a Status: a Forbidden status is returned unchanged
 * (no double wrap); anything else becomes Forbidden with the status' message. */
kg_status *kg_admission_forbidden_status(const kg_admission_attributes *attrs, kg_status *st);

#endif
