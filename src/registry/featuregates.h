/* --feature-gates: upstream syntax ("A=true,B=false"), v1.33 defaults for the gates kgate consults. */
#ifndef KG_REGISTRY_FEATUREGATES_H
#define KG_REGISTRY_FEATUREGATES_H

#include <stdbool.h>

#include "base/error.h"

typedef struct kg_feature_gates kg_feature_gates;

/* Parse a --feature-gates value (NULL/"" = defaults). Errors as upstream: `missing bool value for X`,
 * `invalid value of X=Y, err: strconv.ParseBool: parsing "Y": invalid syntax`. Gates kgate does not consult are
 * accepted and reported by kg_feature_gates_unused (upstream knows ~200 gates; kgate only the ones it reads). */
kg_feature_gates *kg_feature_gates_parse(const char *spec, kg_error *err);
void kg_feature_gates_free(kg_feature_gates *g);
bool kg_feature_enabled(const kg_feature_gates *g, const char *gate);
/* Comma-separated names given in the flag that kgate does not consult ("" when none). */
const char *kg_feature_gates_unused(const kg_feature_gates *g);

#endif
