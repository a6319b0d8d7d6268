/* escaping.h - CEL names of schema properties (k8s.io/apiserver pkg/cel escaping.go): a property whose name is a
 * CEL reserved word `w` is the field `__w__`; otherwise `__` becomes `__underscores__`, `.` `__dot__`, `-` `__dash__`
 * and `/` `__slash__`. Names that are empty, start with a digit or hold any other character have no CEL name: the
 * property is not visible to expressions. Shared by every schema -> CEL type mapping (ValidatingAdmissionPolicy
 * type checking, CRD x-kubernetes-validations). */
#ifndef KG_CEL_K8S_ESCAPING_H
#define KG_CEL_K8S_ESCAPING_H

#include "base/arena.h"

/* The escaped name in a (the name itself when nothing needs escaping), or NULL when name has no CEL name. */
const char *cel_k8s_escape_name(kg_arena *a, const char *name);

#endif
