/* The admission CEL environment (k8s.io/apiserver pkg/admission/plugin/cel compile.go, activation.go, composition.go,
 * over pkg/cel/environment base.go at v1.33): what ValidatingAdmissionPolicy expressions and the matchConditions of
 * policies and webhooks see, how they are compiled, and how they are evaluated against a request.
 *
 * Variables (declared in this order; upstream's OptionalVariableDeclarations choose the optional ones):
 *
 *   object, oldObject            dyn; null on DELETE / on CREATE
 *   request                      kubernetes.AdmissionRequest{kind, resource, subResource, requestKind,
 *                                requestResource, requestSubResource, name, namespace, operation,
 *                                userInfo{username, uid, groups, extra}, dryRun, options}
 *   namespaceObject              kubernetes.Namespace; null for cluster-scoped requests and Namespace objects
 *   params                       dyn (KG_ACEL_PARAMS: policies with a paramKind)
 *   authorizer                   kubernetes.authorization.Authorizer (KG_ACEL_AUTHORIZER; not in messageExpression)
 *   authorizer.requestResource   kubernetes.authorization.ResourceCheck pre-filled from the request
 *   variables                    the policy's variables (kg_acel_vars: composited environments only)
 *
 * Environments are built once: the base ones (each combination of the optional declarations) are process-wide,
 * built on first use and never freed; a policy with `variables` gets a composited environment of its own
 * (kg_acel_vars_new), freed with the policy.
 * Once built, environments and programs are read-only and may be shared by every request thread.
 *
 * Compilation (kg_acel_compile) parses and type-checks, then checks the result type exactly as upstream
 * (`must evaluate to bool but got dyn`); errors carry upstream's text `compilation failed: ERROR: <input>:1:8: ...`.
 * There is no static cost check: as upstream, `object` is dyn and only the runtime limits apply (the per-expression
 * CEL_PER_CALL_LIMIT and the budgets of the callers).
 *
 * Evaluation: a kg_acel_input holds the values of one request (built once per request by kg_acel_input_init, in the
 * request arena, without copying the objects: they are wrapped by the JSON bridge; `request` is built on first use).
 * kg_acel_eval runs a program over it; every value it makes lives in the request arena. An input is used by one
 * thread at a time. */
#ifndef KG_ADMISSION_CEL_H
#define KG_ADMISSION_CEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "admission/attributes.h"
#include "admission/services.h"
#include "base/arena.h"
#include "cel/cel.h"
#include "cel/k8s/cel_k8s.h"
#include "json/json.h"
#include "meta/gvk.h"

/* Kubernetes minor version whose CEL base environment is used. */
#define KG_ACEL_K8S_VERSION 33
/* Largest messageExpression result used as a message (MaxEvaluatedMessageExpressionSizeBytes). */
#define KG_ACEL_MAX_MESSAGE_BYTES (5 * 1024)

/* Optional variable declarations (upstream OptionalVariableDeclarations). */
enum {
    KG_ACEL_PARAMS = 1u << 0,     /* declare `params` */
    KG_ACEL_AUTHORIZER = 1u << 1, /* declare `authorizer` and `authorizer.requestResource` */
    /* declare `variables` as dyn: only for checking what else an expression references (kg_acel_vars_compile with
     * no_authorizer); never for the programs that run */
    KG_ACEL_DYN_VARIABLES = 1u << 2,
    /* upstream's NewExpressions environment: the libraries of the previous minor version (the default compatibility
     * version), for expressions written through the API that were not already stored; with KG_ACEL_DYN_VARIABLES a
     * second check after the real compile (kg_acel_check_new_expression) */
    KG_ACEL_NEW_EXPRESSIONS = 1u << 3,
    /* MutatingAdmissionPolicy mutations: the `Object` and `Object.<field>` struct types (schemaless, built with
     * Object{spec: Object.spec{...}}), the `JSONPatch` type and jsonpatch.escapeKey() */
    KG_ACEL_MUTATION = 1u << 4,
};

/* The variables, as indexes into kg_acel_input.values. */
typedef enum kg_acel_var {
    KG_ACEL_VAR_OBJECT = 0,
    KG_ACEL_VAR_OLD_OBJECT,
    KG_ACEL_VAR_REQUEST,
    KG_ACEL_VAR_NAMESPACE,
    KG_ACEL_VAR_PARAMS,
    KG_ACEL_VAR_AUTHORIZER,
    KG_ACEL_VAR_REQUEST_RESOURCE,
    KG_ACEL_VAR_VARIABLES,
    KG_ACEL_NVARS,
} kg_acel_var;

/* An environment: a cel_env with some of the variables declared, and where each one sits (its slot). */
typedef struct kg_acel_env {
    cel_env *env;
    unsigned decls;          /* KG_ACEL_PARAMS | KG_ACEL_AUTHORIZER */
    bool has_variables;      /* `variables` declared (composited) */
    int slot[KG_ACEL_NVARS]; /* cel slot of each variable, -1 when not declared */
    int nslots;
} kg_acel_env;

/* A process-wide base environment (built on first use, thread-safe, never freed). NULL only if the CEL libraries
 * failed to register (a build problem; the error is printed once). */
const kg_acel_env *kg_acel_env_base(unsigned decls);

/* What an expression must evaluate to (upstream ExpressionAccessor.ReturnTypes). */
typedef enum kg_acel_return {
    KG_ACEL_RETURN_BOOL,           /* validations, matchConditions */
    KG_ACEL_RETURN_STRING,         /* messageExpression */
    KG_ACEL_RETURN_STRING_OR_NULL, /* auditAnnotations valueExpression */
    KG_ACEL_RETURN_ANY,            /* variables */
} kg_acel_return;

/* A compiled expression. prog is NULL when compilation failed; error then holds upstream's detail (an Invalid field
 * error at write; a config error at run time). */
typedef struct kg_acel_expr {
    const char *source;     /* the expression text */
    cel_program *prog;      /* owned; kg_acel_expr_free */
    const cel_type *type;   /* checked result type (NULL on failure) */
    const kg_acel_env *env; /* the environment it was compiled in */
    const char *error;      /* NULL on success */
} kg_acel_expr;

/* Compile src in env (strings of the result are allocated in a, which must outlive the expression). Returns
 * false with out->error set (`compilation failed: ...`, `must evaluate to bool but got dyn`). */
bool kg_acel_compile(const kg_acel_env *env, kg_arena *a, const char *src, kg_acel_return ret, kg_acel_expr *out);
void kg_acel_expr_free(kg_acel_expr *e);

/* Upstream compiles expressions written through the API that were not in the stored object with the previous minor
 * version's libraries (so a cluster can roll back a version): check src that way, after it compiled. decls: the
 * optional declarations of the expression's environment (`variables`, when declared, as dyn). NULL when fine, else
 * the compile error (in a). */
const char *kg_acel_check_new_expression(unsigned decls, kg_arena *a, const char *src);

/* ---- composited environments: a policy's variables ---- */

/* One variable of a policy: its name and compiled expression (which may use the variables before it). */
typedef struct kg_acel_variable {
    const char *name;
    kg_acel_expr expr;
} kg_acel_variable;

/* The variables of one policy and the environment in which its expressions compile (`full`, with the authorizer
 * when asked).
 *
 * Typed (what validation on write uses, as upstream): an environment of the policy's own declares `variables` with
 * each variable's checked type, so `variables.isBig` is a bool validation and a reference to a later or unknown
 * variable is `undefined field`. Building an environment costs far more than compiling (about 0.1 ms), so:
 *
 * Untyped (what the plugin uses to run policies that were validated when written): the shared environment that
 * declares `variables` as dyn; no environment is built, result types are not checked again (kg_acel_vars_compile),
 * and evaluation is the same, CEL dispatching on the runtime values.
 *
 * messageExpression may not use the authorizer: it compiles through kg_acel_vars_compile. */
typedef struct kg_acel_vars {
    kg_acel_env full; /* owned when typed, else a copy of a shared base environment */
    unsigned decls;
    bool typed;
    kg_acel_variable *items;
    size_t n;
} kg_acel_vars;

/* Compile the variables (names and expressions in order; names are assumed valid and unique, which validation
 * checks). Typed: each variable i sees variables 0..i-1 (a later one is `undefined field`). Compile errors are
 * recorded in the items' expr.error; false only if an environment could not be built. */
bool kg_acel_vars_new(kg_acel_vars *v, kg_arena *a, unsigned decls, const char *const *names, const char *const *exprs,
                      size_t n, bool typed);
void kg_acel_vars_free(kg_acel_vars *v);

/* Declared types instead of dyn for `object` / `oldObject` and `params` (upstream's typeOverwrite, which the policy
 * type checker uses): build is called once while the environment is built, after the libraries are registered, and
 * sets *object and *params (NULL: dyn) to types it builds in env. */
typedef struct kg_acel_types {
    void (*build)(void *ud, cel_env *env, const cel_type **object, const cel_type **params);
    void *ud;
} kg_acel_types;
/* kg_acel_vars_new with typed object/params (types NULL: as kg_acel_vars_new). Only with typed = true: the
 * environment is the policy's own. */
bool kg_acel_vars_new_typed(kg_acel_vars *v, kg_arena *a, unsigned decls, const char *const *names,
                            const char *const *exprs, size_t n, bool typed, const kg_acel_types *types);
/* Compile an expression that may use the variables (typed: with the result type check of ret). no_authorizer
 * (messageExpression): the expression is also checked in a shared environment without the authorizer (and
 * `variables` as dyn), whose errors are reported as they are, so `authorizer` reads as an undeclared reference, as
 * upstream. */
bool kg_acel_vars_compile(const kg_acel_vars *v, kg_arena *a, const char *src, kg_acel_return ret, bool no_authorizer,
                          kg_acel_expr *out);

/* ---- evaluation ---- */

/* The values of one request, shared by every expression evaluated for it. values[KG_ACEL_VAR_PARAMS] and
 * values[KG_ACEL_VAR_VARIABLES] are set per evaluation by the caller (kg_acel_eval_state for variables). */
typedef struct kg_acel_input {
    cel_value values[KG_ACEL_NVARS];
    cel_k8s_authorizer authz; /* what the authorizer values point at */
} kg_acel_input;

/* Fill in from attrs (upstream CreateAdmissionRequest + the activation). resource / kind: what the match was made
 * against (request.resource / request.kind; the equivalent resource under matchPolicy Equivalent), NULL for the
 * request's own; request.requestResource / requestKind are always the request's. ns_object: the request namespace's
 * object (NULL: namespaceObject is null). authz NULL: authorizer checks error with "no authorizer available".
 * Everything is allocated in attrs->arena; the objects are wrapped, not copied. */
void kg_acel_input_init(kg_acel_input *in, const kg_admission_attributes *attrs, const kg_gvr *resource,
                        const kg_gvk *kind, const kg_json *ns_object, const kg_authorizer *authz);

/* The lazy `variables` of one evaluation: each variable is evaluated on first use and its value kept for the rest
 * of the evaluation; cost accumulates in cost (charged to the caller's budget, as upstream's composition context). */
typedef struct kg_acel_eval_state {
    const kg_acel_vars *vars;
    kg_acel_input *in;
    kg_arena *arena;
    cel_value *cache; /* per variable, kind CEL_UNKNOWN until evaluated */
    uint64_t cost;    /* accumulated variable cost since the last kg_acel_take_cost */
} kg_acel_eval_state;

/* Bind `variables` of in to a fresh lazy map over vars (vars NULL: nothing bound). */
void kg_acel_eval_state_init(kg_acel_eval_state *st, const kg_acel_vars *vars, kg_acel_input *in, kg_arena *a);
/* The variable cost spent since the last call. */
uint64_t kg_acel_take_cost(kg_acel_eval_state *st);

/* Evaluate e over in with the per-expression limit; results in a. *cost (may be NULL) receives the cost. */
cel_eval_status kg_acel_eval(const kg_acel_expr *e, const kg_acel_input *in, kg_arena *a, uint64_t limit,
                             cel_value *out, uint64_t *cost);

/* For explaining a failed expression (admission/trace.h; only when a tracer is set): e's sub-expressions over in,
 * as (text, value) pairs rendered in a, values longer than 200 bytes cut with "…". NULL with *n 0 when e did not
 * compile. */
struct kg_trace_value;
const struct kg_trace_value *kg_acel_explain(const kg_acel_expr *e, const kg_acel_input *in, kg_arena *a, size_t *n);

#endif
