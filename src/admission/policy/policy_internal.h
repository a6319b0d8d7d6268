/* Helpers shared by the files of src/admission/policy (not part of the module's interface). */
#ifndef KG_ADMISSION_POLICY_INTERNAL_H
#define KG_ADMISSION_POLICY_INTERNAL_H

#include "base/arena.h"
#include "meta/names.h"

/* strings.TrimSpace, copied into a ("" for NULL). */
const char *kg_vap_trim(kg_arena *a, const char *s);
const char *kg_vap_trim_n(kg_arena *a, const char *s, size_t n);
/* strings.Join(errs, ","), in a. */
const char *kg_vap_join(kg_arena *a, const kg_name_errs *ne);
/* A CEL identifier that is not a reserved word (variable names; MutatingAdmissionPolicy uses it too). */
bool kg_vap_is_cel_identifier(const char *s);

#endif
