/* kube-apiserver's --runtime-config: which API group/versions are served beyond the defaults (upstream
 * k8s.io/apiserver pkg/server/resourceconfig MergeAPIResourceConfigs).
 *
 * The value is a comma-separated list of key=value pairs. Keys: `api/all`, `api/ga`, `api/beta`, `api/alpha` (every
 * registered group/version of that stability), `api/legacy` and `api/v1` (core), or `<group>/<version>`. Values:
 * true or false as Go's strconv.ParseBool reads them; an empty value is true. As upstream, keys of groups kgate
 * does not know are ignored (they may belong to an aggregated API), an unknown version of a known group is an
 * error (`group version <g>/<v> that has not been registered`), a key that is no group/version is `invalid key
 * <k>` and a bad value `invalid value of <k>: <v>, err: ...`.
 *
 * kgate serves every GA group/version it implements whatever the flag says (turning one off is accepted and
 * ignored with a warning); the flag matters for the optional ones: MutatingAdmissionPolicy in
 * admissionregistration.k8s.io v1beta1 and v1alpha1 (served when enabled here and with its feature gate). */
#ifndef KG_API_RUNTIMECONFIG_H
#define KG_API_RUNTIMECONFIG_H

#include <stdbool.h>

#include "base/error.h"

typedef struct kg_runtime_config {
    bool admissionregistration_v1beta1;
    bool admissionregistration_v1alpha1;
} kg_runtime_config;

/* Parse spec (NULL or "" = defaults). False with err on bad input. */
bool kg_runtime_config_parse(const char *spec, kg_runtime_config *out, kg_error *err);

#endif
