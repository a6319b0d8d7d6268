/* Helpers shared by the files of src/admission/policy (not part of the module's interface). */
#ifndef KG_ADMISSION_POLICY_INTERNAL_H
#define KG_ADMISSION_POLICY_INTERNAL_H

#include "admission/cel/admission_cel.h"
#include "base/arena.h"
#include "json/json.h"
#include "meta/fields.h"
#include "meta/names.h"

/* strings.TrimSpace, copied into a ("" for NULL). */
const char *kg_vap_trim(kg_arena *a, const char *s);
const char *kg_vap_trim_n(kg_arena *a, const char *s, size_t n);
/* strings.Join(errs, ","), in a. */
const char *kg_vap_join(kg_arena *a, const kg_name_errs *ne);
/* A CEL identifier that is not a reserved word (variable names; MutatingAdmissionPolicy uses it too). */
bool kg_vap_is_cel_identifier(const char *s);

/* The compile context of both policy kinds: where compiled data and error strings go, the field errors (NULL: not
 * validating, compiling a stored object to run it) and the first configuration error. */
typedef struct kg_policy_cctx {
    kg_arena *a;
    kg_field_errors *errs;
    const char **config_error;
} kg_policy_cctx;

/* Field errors matter when validating; at run time the stored object was validated when written. */
static inline void kg_policy_fe_required(kg_policy_cctx *c, const char *path, const char *detail)
{
    if (c->errs)
        kg_field_required(c->a, c->errs, path, detail);
}
static inline void kg_policy_fe_invalid(kg_policy_cctx *c, const char *path, const char *value, const char *detail)
{
    if (c->errs)
        kg_field_invalid(c->a, c->errs, path, value, detail);
}
static inline void kg_policy_fe_not_supported(kg_policy_cctx *c, const char *path, const char *value,
                                              const char *const *valid, size_t n)
{
    if (c->errs)
        kg_field_not_supported(c->a, c->errs, path, value, valid, n);
}

/* spec.variables of either kind: names and expressions checked with upstream's texts, compiled into *vars with the
 * declarations `decls` (types checked only when validating). False when there are no variables or the environment
 * could not be built (a config error then). */
bool kg_policy_compile_variables(kg_policy_cctx *c, kg_acel_vars *vars, const kg_json *list, unsigned decls);

#endif
