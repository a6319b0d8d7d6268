/* cel_k8s.h - the Kubernetes CEL libraries (k8s.io/apiserver pkg/cel/library) for kgate's CEL engine:
 * regex (find/findAll), lists, urls, quantity, ip, cidr, format, semver and authz (+ selectors).
 *
 *   cel_env *env = cel_env_new(CEL_LIB_K8S);
 *   cel_env_set_options(env, CEL_OPT_K8S);
 *   cel_k8s_register(env, &(cel_k8s_options){.version = 33}, &err);
 *
 * Values of constant calls (quantity('1Gi'), cidr('10.0.0.0/8'), ...) are built once with the program and live in
 * it, like string literals do: use a result before freeing its program.
 *
 * Library availability follows pkg/cel/environment/base.go: a library introduced in 1.N is registered when
 * version >= N (version 0 = everything this build implements). Runtime cost hooks follow pkg/cel/library/cost.go.
 */
#ifndef KG_CEL_K8S_H
#define KG_CEL_K8S_H

#include <stdbool.h>
#include <stddef.h>

#include "auth/authorizer.h"
#include "base/arena.h"
#include "cel/cel.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CEL_K8S_LIB_URLS = 1u << 0,
    CEL_K8S_LIB_REGEX = 1u << 1,
    CEL_K8S_LIB_LISTS = 1u << 2,
    CEL_K8S_LIB_AUTHZ = 1u << 3,           /* 1.27 */
    CEL_K8S_LIB_QUANTITY = 1u << 4,        /* 1.28 */
    CEL_K8S_LIB_IP = 1u << 5,              /* 1.30 */
    CEL_K8S_LIB_CIDR = 1u << 6,            /* 1.30 */
    CEL_K8S_LIB_FORMAT = 1u << 7,          /* 1.31 */
    CEL_K8S_LIB_AUTHZ_SELECTORS = 1u << 8, /* 1.31 */
    CEL_K8S_LIB_SEMVER = 1u << 9,          /* 1.33 (v1: semver(s, normalize)) */
    CEL_K8S_LIB_ALL = 0x3ffu,
};

typedef struct cel_k8s_options {
    int version;      /* Kubernetes minor version (33 = v1.33); 0 = all libraries */
    unsigned disable; /* CEL_K8S_LIB_* to leave out */
    bool jsonpatch;   /* MutatingAdmissionPolicy environments: jsonpatch.escapeKey(s) ("~" -> "~0", "/" -> "~1") */
} cel_k8s_options;

/* Libraries a given Kubernetes minor version enables (CEL_K8S_LIB_* mask). */
unsigned cel_k8s_libraries_for_version(int version);

/* Register the libraries (types, functions, cost hooks). Call before the first cel_compile on env. */
bool cel_k8s_register(cel_env *env, const cel_k8s_options *opts, cel_error *err);

/* ---- Types (valid after cel_k8s_register on that env) ---- */
const cel_type *cel_k8s_type_authorizer(cel_env *env);     /* kubernetes.authorization.Authorizer */
const cel_type *cel_k8s_type_resource_check(cel_env *env); /* kubernetes.authorization.ResourceCheck */

/* ---- Authorization: the server's authorizer interface (auth/authorizer.h) ---- */
/* What the `authorizer` variable asks and as whom. Checks build kg_authz_attributes (APIVersion "*" for resource
 * checks, as upstream) with user, or with the service account user of authorizer.serviceAccount(ns, name)
 * ("system:serviceaccount:<ns>:<name>", groups system:serviceaccounts and system:serviceaccounts:<ns>).
 * Decision.reason() / .error() are the authorizer's reason and error message. */
typedef struct cel_k8s_authorizer {
    const kg_authorizer *authz; /* NULL: every check errors with "no authorizer available" */
    const kg_user_info *user;   /* the request's user */
} cel_k8s_authorizer;

/* The value of the `authorizer` variable, and of `authorizer.requestResource` for the request being admitted.
 * The authorizer struct must outlive the evaluation. */
cel_value cel_k8s_authorizer_value(kg_arena *a, const cel_k8s_authorizer *az);
cel_value cel_k8s_request_resource_value(kg_arena *a, const cel_k8s_authorizer *az, const char *group,
                                         const char *resource, const char *subresource, const char *namespace_,
                                         const char *name);

#ifdef __cplusplus
}
#endif

#endif
