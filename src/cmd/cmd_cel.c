/* kgate cel: compile and evaluate one CEL expression in the Kubernetes environment and print the result as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "cel/cel.h"
#include "cel/cel_json.h"
#include "json/json.h"
#ifdef KGATE_HAVE_CEL_K8S
#include "cel/k8s/cel_k8s.h"
#endif

const char kg_cmd_cel_help[] = "evaluate a CEL expression: kgate cel [--var NAME=JSON|NAME=@FILE]... [--cost] EXPR";

static void usage(FILE *f)
{
    fprintf(f, "usage: kgate cel [--var NAME=JSON | --var NAME=@FILE]... [--cost] [--all-libs] [--no-check] EXPR\n"
               "  Variables are declared dyn and bound to the JSON value (objects as maps, integral numbers as int).\n"
               "  The result is printed as JSON on stdout. Exit 1: compile error, 2: evaluation error.\n"
               "  --cost prints the actual cost on stderr (\"cost: N\"); the per-call limit is 1000000.\n");
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return NULL;
    kg_buf b = KG_BUF_INIT;
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        kg_buf_append(&b, tmp, n);
    if (f != stdin)
        fclose(f);
    return kg_buf_steal(&b, len);
}

typedef struct var_arg {
    const char *name;
    kg_json *json;
} var_arg;

int kg_cmd_cel(int argc, char **argv)
{
    const char *expr = NULL;
    bool show_cost = false, all_libs = false, no_check = false;
    kg_arena a;
    kg_arena_init(&a, 0);
    var_arg *vars = kg_arena_calloc(&a, (size_t)(argc + 1) * sizeof *vars);
    size_t nvars = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
            usage(stdout);
            kg_arena_free(&a);
            return 0;
        } else if (!strcmp(s, "--cost")) {
            show_cost = true;
        } else if (!strcmp(s, "--all-libs")) {
            all_libs = true;
        } else if (!strcmp(s, "--no-check")) {
            no_check = true;
        } else if (!strcmp(s, "--var") || !strncmp(s, "--var=", 6)) {
            const char *spec = s[5] == '=' ? s + 6 : (i + 1 < argc ? argv[++i] : NULL);
            const char *eq = spec ? strchr(spec, '=') : NULL;
            if (!eq || eq == spec) {
                fprintf(stderr, "error: --var expects NAME=JSON or NAME=@FILE\n");
                kg_arena_free(&a);
                return 1;
            }
            char *name = kg_arena_strndup(&a, spec, (size_t)(eq - spec));
            const char *val = eq + 1;
            char *text;
            size_t len;
            bool owned = false;
            if (val[0] == '@') {
                text = read_file(val + 1, &len);
                if (!text) {
                    fprintf(stderr, "error: cannot read %s\n", val + 1);
                    kg_arena_free(&a);
                    return 1;
                }
                owned = true;
            } else {
                text = (char *)val;
                len = strlen(val);
            }
            KG_ERROR_DECL(err);
            kg_json *j = kg_json_parse(&a, text, len, &err);
            if (owned)
                free(text);
            if (!j) {
                fprintf(stderr, "error: --var %s: invalid JSON: %s\n", name, err.msg);
                kg_arena_free(&a);
                return 1;
            }
            vars[nvars].name = name;
            vars[nvars].json = j;
            nvars++;
        } else if (s[0] == '-' && s[1] == '-' && !expr) {
            fprintf(stderr, "error: unknown flag %s\n", s);
            usage(stderr);
            kg_arena_free(&a);
            return 1;
        } else if (!expr) {
            expr = s;
        } else {
            fprintf(stderr, "error: more than one expression given\n");
            kg_arena_free(&a);
            return 1;
        }
    }
    if (!expr) {
        usage(stderr);
        kg_arena_free(&a);
        return 1;
    }
    cel_env *env = cel_env_new(all_libs ? CEL_LIB_ALL : CEL_LIB_K8S);
    cel_env_set_options(env, all_libs ? CEL_OPT_PRESENCE_COST_ZERO : CEL_OPT_K8S);
#ifdef KGATE_HAVE_CEL_K8S
    {
        /* the Kubernetes v1.33 libraries: quantity, url, ip/cidr, format, semver, regex find, lists, authz */
        cel_k8s_options ko = {33, 0, false};
        cel_error kerr;
        if (!cel_k8s_register(env, &ko, &kerr)) {
            fprintf(stderr, "error: Kubernetes CEL libraries: %s\n", kerr.message);
            cel_env_free(env);
            kg_arena_free(&a);
            return 1;
        }
    }
#endif
    for (size_t i = 0; i < nvars; i++)
        cel_env_declare_var(env, vars[i].name, cel_type_dyn());
    cel_program *prog = NULL;
    cel_error cerr;
    cel_compile_opts co = {no_check ? CEL_COMPILE_NO_CHECK : 0, NULL};
    if (!cel_compile(env, expr, &co, &prog, &cerr)) {
        fprintf(stderr, "%s\n", cerr.message);
        cel_env_free(env);
        kg_arena_free(&a);
        return 1;
    }
    cel_activation *act = cel_activation_new(env, &a);
    for (size_t i = 0; i < nvars; i++)
        cel_activation_set(act, vars[i].name, cel_json_to_value(vars[i].json));
    cel_value out;
    uint64_t cost = 0;
    cel_eval_status st = cel_eval(prog, act, CEL_PER_CALL_LIMIT, &out, &cost);
    if (st != CEL_EVAL_OK) {
        fprintf(stderr, "%s\n", cel_error_message(&out));
        rc = 2;
    } else {
        char eb[512] = "";
        kg_json *j = cel_value_to_json(&a, &out, eb, sizeof eb);
        if (!j) {
            fprintf(stderr, "%s\n", eb);
            rc = 2;
        } else {
            kg_buf b = KG_BUF_INIT;
            kg_json_write(&b, j, KG_JSON_WRITE_NO_ESCAPE_HTML);
            fwrite(b.data, 1, b.len, stdout);
            fputc('\n', stdout);
            kg_buf_free(&b);
        }
    }
    if (show_cost)
        fprintf(stderr, "cost: %llu\n", (unsigned long long)cost);
    cel_program_free(prog);
    cel_env_free(env);
    kg_arena_free(&a);
    return rc;
}
