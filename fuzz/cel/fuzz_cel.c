/* libFuzzer target: compile (checked and unchecked) and evaluate arbitrary CEL source against a small JSON object,
 * with a cost limit. Must never crash, leak, hang or trip a sanitizer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/cel_json.h"
#include "json/json.h"
#ifdef KGATE_HAVE_CEL_K8S
#include "cel/k8s/cel_k8s.h"
#endif

static const char doc[] = "{\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"x\"}},\"spec\":{\"replicas\":3,"
                          "\"containers\":[{\"name\":\"a\",\"image\":\"r/a:1\"},{\"name\":\"b\",\"ports\":[80,443]}]},"
                          "\"ratio\":0.5,\"flag\":true,\"nil\":null}";

static cel_env *env_checked, *env_all;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!env_checked) {
        env_checked = cel_env_new(CEL_LIB_K8S);
        cel_env_set_options(env_checked, CEL_OPT_K8S);
        cel_env_declare_var(env_checked, "object", cel_type_dyn());
        cel_env_declare_var(env_checked, "n", cel_type_int());
#ifdef KGATE_HAVE_CEL_K8S
        cel_k8s_options ko = {0, 0, true};
        cel_error kerr;
        (void)cel_k8s_register(env_checked, &ko, &kerr);
#endif
        env_all = cel_env_new(CEL_LIB_ALL);
        cel_env_declare_var(env_all, "object", cel_type_dyn());
        cel_env_declare_var(env_all, "n", cel_type_int());
    }
    if (size > 4096)
        return 0;
    char *src = malloc(size + 1);
    memcpy(src, data, size);
    src[size] = 0;
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error jerr;
    kg_json *obj = kg_json_parse(&a, doc, sizeof doc - 1, &jerr);
    for (int round = 0; round < 2; round++) {
        cel_env *env = round ? env_all : env_checked;
        cel_compile_opts co = {round ? CEL_COMPILE_NO_CHECK : 0, NULL, size};
        cel_program *p = NULL;
        cel_error err;
        if (!cel_compile(env, src, &co, &p, &err))
            continue;
        cel_activation *act = cel_activation_new(env, &a);
        cel_activation_set(act, "object", cel_json_to_value(obj));
        cel_activation_set(act, "n", cel_int(2));
        cel_value out, out2;
        uint64_t cost, cost2;
        cel_eval_status st = cel_eval(p, act, 200000, &out, &cost);
        if (st == CEL_EVAL_OK) {
            char eb[128];
            (void)cel_value_to_json(&a, &out, eb, sizeof eb);
        }
        const char *t1 = st == CEL_EVAL_OK ? cel_value_debug(&a, &out) : cel_error_message(&out);
        /* the same bindings by slot, without an activation: the same outcome and cost */
        const cel_value vals[2] = {cel_json_to_value(obj), cel_int(2)};
        cel_eval_status st2 = cel_eval_slots(p, &a, vals, 2, 200000, &out2, &cost2);
        const char *t2 = st2 == CEL_EVAL_OK ? cel_value_debug(&a, &out2) : cel_error_message(&out2);
        if (st != st2 || cost != cost2 || strcmp(t1, t2) != 0)
            abort();
        cel_program_free(p);
    }
    kg_arena_free(&a);
    free(src);
    return 0;
}
