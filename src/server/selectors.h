/* Label and field selectors of list/watch/deletecollection requests. */
#ifndef KG_SERVER_SELECTORS_H
#define KG_SERVER_SELECTORS_H

#include <stdbool.h>

#include "api/resources.h"
#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/fields.h"
#include "meta/labels.h"

typedef struct kg_selectors {
    bool empty;
    kg_label_selector labels;
    kg_field_selector fields;
    kg_arena *arena; /* scratch for field matching */
} kg_selectors;

/* Parse ?labelSelector= and ?fieldSelector= (either may be NULL). Field selectors: metadata.name and
 * metadata.namespace for every resource, plus the fields upstream registers per resource (pods: spec.nodeName,
 * spec.restartPolicy, spec.schedulerName, spec.serviceAccountName, status.phase, status.podIP, ...; others as
 * their field label conversion functions allow). An unsupported field gives upstream's
 * `field label not supported: <field>`. */
bool kg_selectors_parse(kg_arena *a, const char *label_sel, const char *field_sel, const kg_resource *r,
                        kg_selectors *out, kg_error *err);
bool kg_selectors_match(const kg_selectors *s, const kg_json *obj);

#endif
