/* The admission flags of kube-apiserver and the enabled plugin set they select (upstream: k8s.io/apiserver
 * pkg/server/options/admission.go and pkg/kubeapiserver/options/admission.go). kg_admission_chain_new (chain.h)
 * builds a chain from these options. */
#ifndef KG_ADMISSION_OPTIONS_H
#define KG_ADMISSION_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

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

#endif
