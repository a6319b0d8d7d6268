/* kgate CEL benchmark: compile and eval ns/op of the expressions in expressions.json over pod.json, in the
 * Kubernetes environment (CEL_LIB_K8S + CEL_OPT_K8S + the Kubernetes libraries, `object` declared dyn, cost tracking
 * with the per-call limit), measured like the npm peers (cel.md §4.3): calibrated runs of ~200 ms, 11 runs, median.
 *   compile = cel_compile (parse + macro expansion + check + plan, incl. regex precompilation) + cel_program_free
 *   eval    = a fresh activation in a reset arena, `object` bound (by its slot) to the lazily wrapped JSON DOM,
 * cel_eval with cost tracking and the 1M per-call limit (what one admission request does per expression) Usage:
 * bench_cel <pod.json> <expressions.json> [ms-per-run=200] [runs=11] [both|eval|compile] (the last for profiling one
 * side). Prints one JSON document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/str.h"
#include "cel/cel.h"
#include "cel/cel_json.h"
#include "cel/k8s/cel_k8s.h"
#include "json/json.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

typedef struct bench_ctx {
    cel_env *env;
    const char *expr;
    const cel_program *prog;
    const kg_json *pod;
    kg_arena *arena;
    int slot; /* of `object`, resolved once (cel_env_var_slot) */
} bench_ctx;

static bool do_compile(bench_ctx *b)
{
    cel_program *p;
    cel_error err;
    if (!cel_compile(b->env, b->expr, NULL, &p, &err))
        return false;
    sink += (uintptr_t)p & 1;
    cel_program_free(p);
    return true;
}

/* eval: the program over `object` bound by its slot, no activation object (cel_eval_slots) */
static bool do_eval(bench_ctx *b)
{
    kg_arena_reset(b->arena);
    cel_value obj = cel_json_to_value(b->pod);
    cel_value out;
    uint64_t cost;
    cel_eval_status st = cel_eval_slots(b->prog, b->arena, &obj, 1, CEL_PER_CALL_LIMIT, &out, &cost);
    sink += cost + out.kind;
    return st == CEL_EVAL_OK;
}

/* eval_act: the same through a fresh activation (what a caller binding several variables, a resolver or host data
 * does) */
static bool do_eval_act(bench_ctx *b)
{
    kg_arena_reset(b->arena);
    cel_activation *act = cel_activation_new(b->env, b->arena);
    cel_activation_bind(act, b->slot, cel_json_to_value(b->pod));
    cel_value out;
    uint64_t cost;
    cel_eval_status st = cel_eval(b->prog, act, CEL_PER_CALL_LIMIT, &out, &cost);
    sink += cost + out.kind;
    return st == CEL_EVAL_OK;
}

/* ns per call, growing the batch until it runs at least target_ns */
static double time_once(bool (*fn)(bench_ctx *), bench_ctx *b, double target_ns)
{
    long n = 1;
    for (;;) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (!fn(b)) {
                fprintf(stderr, "bench_cel: call failed for %s\n", b->expr);
                exit(1);
            }
        double dt = now_ns() - t0;
        if (dt >= target_ns)
            return dt / (double)n;
        double grow = dt < 1e6 ? 10.0 : (target_ns * 1.05) / dt;
        if (grow < 1.2)
            grow = 1.2;
        n = (long)((double)n * grow) + 1;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *xs, int n)
{
    qsort(xs, (size_t)n, sizeof *xs, cmp_double);
    return xs[n / 2];
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_cel <pod.json> <expressions.json> [ms-per-run] [runs]\n");
        return 2;
    }
    double ms = argc > 3 ? atof(argv[3]) : 200;
    int runs = argc > 4 ? atoi(argv[4]) : 11;
    if (runs < 1 || runs > 101)
        runs = 11;
    const char *mode = argc > 5 ? argv[5] : "both";
    bool do_c = strcmp(mode, "eval") != 0, do_e = strcmp(mode, "compile") != 0;
    size_t podn, exn;
    char *podtext = kg_read_file(argv[1], &podn);
    char *extext = kg_read_file(argv[2], &exn);
    if (!podtext || !extext) {
        fprintf(stderr, "bench_cel: cannot read inputs\n");
        return 2;
    }
    kg_arena data;
    kg_arena_init(&data, 0);
    kg_error jerr;
    kg_json *pod = kg_json_parse(&data, podtext, podn, &jerr);
    kg_json *exprs = kg_json_parse(&data, extext, exn, &jerr);
    if (!pod || !exprs || exprs->type != KG_JSON_ARRAY) {
        fprintf(stderr, "bench_cel: bad JSON input\n");
        return 2;
    }

    cel_env *env = cel_env_new(CEL_LIB_K8S);
    cel_env_set_options(env, CEL_OPT_K8S);
    cel_error err;
    cel_k8s_options ko = {.version = 33};
    if (!cel_k8s_register(env, &ko, &err)) {
        fprintf(stderr, "bench_cel: %s\n", err.message);
        return 1;
    }
    cel_env_declare_var(env, "object", cel_type_dyn());
    int slot = cel_env_var_slot(env, "object");

    size_t nexpr = exprs->len;
    cel_program **progs = calloc(nexpr, sizeof *progs);
    const char **texts = calloc(nexpr, sizeof *texts);
    double *cs = calloc(nexpr * (size_t)runs, sizeof *cs), *es = calloc(nexpr * (size_t)runs, sizeof *es),
           *as = calloc(nexpr * (size_t)runs, sizeof *as);
    kg_arena evala;
    kg_arena_init(&evala, 64 * 1024);
    for (size_t i = 0; i < nexpr; i++) {
        const kg_json *e = kg_json_at(exprs, i);
        texts[i] = e->u.s;
        if (!cel_compile(env, texts[i], NULL, &progs[i], &err)) {
            fprintf(stderr, "bench_cel: compile %s: %s\n", texts[i], err.message);
            return 1;
        }
        /* every expression must give the expected answer before it is timed */
        kg_arena_reset(&evala);
        cel_activation *act = cel_activation_new(env, &evala);
        cel_activation_set(act, "object", cel_json_to_value(pod));
        cel_value out, out2, obj = cel_json_to_value(pod);
        uint64_t c1 = 0, c2 = 0;
        if (cel_eval(progs[i], act, CEL_PER_CALL_LIMIT, &out, &c1) != CEL_EVAL_OK) {
            fprintf(stderr, "bench_cel: eval %s: %s\n", texts[i], cel_error_message(&out));
            return 1;
        }
        if (cel_eval_slots(progs[i], &evala, &obj, 1, CEL_PER_CALL_LIMIT, &out2, &c2) != CEL_EVAL_OK || c1 != c2 ||
            out2.kind != out.kind || out2.n != out.n) {
            fprintf(stderr, "bench_cel: eval by slot differs for %s\n", texts[i]);
            return 1;
        }
        bool ok = out.kind == CEL_BOOL
                      ? out.u.b
                      : out.kind == CEL_STRING && out.n == 24 && memcmp(out.u.s, "prod/web-7d4b9c6f5-x2x9k", 24) == 0;
        if (!ok) {
            fprintf(stderr, "bench_cel: unexpected result for %s: %s\n", texts[i], cel_value_debug(&evala, &out));
            return 1;
        }
    }
    /* global warm-up */
    for (size_t i = 0; i < nexpr; i++) {
        bench_ctx b = {env, texts[i], progs[i], pod, &evala, slot};
        time_once(do_compile, &b, 20e6);
        time_once(do_eval, &b, 20e6);
        time_once(do_eval_act, &b, 20e6);
    }
    for (int r = 0; r < runs; r++)
        for (size_t i = 0; i < nexpr; i++) {
            bench_ctx b = {env, texts[i], progs[i], pod, &evala, slot};
            cs[i * (size_t)runs + (size_t)r] = do_c ? time_once(do_compile, &b, ms * 1e6) : 0;
            es[i * (size_t)runs + (size_t)r] = do_e ? time_once(do_eval, &b, ms * 1e6) : 0;
            as[i * (size_t)runs + (size_t)r] = do_e ? time_once(do_eval_act, &b, ms * 1e6) : 0;
        }
    printf("{\n  \"engine\": \"kgate\",\n  \"ms_per_run\": %g,\n  \"runs\": %d,\n  \"results\": [\n", ms, runs);
    for (size_t i = 0; i < nexpr; i++) {
        kg_buf q = KG_BUF_INIT;
        kg_json_write(&q, kg_json_at(exprs, i), 0);
        printf("    {\"expr\": %s, \"compile_ns\": %.0f, \"eval_ns\": %.1f, \"eval_act_ns\": %.1f}%s\n",
               kg_buf_cstr(&q), median(cs + i * (size_t)runs, runs), median(es + i * (size_t)runs, runs),
               median(as + i * (size_t)runs, runs), i + 1 < nexpr ? "," : "");
        kg_buf_free(&q);
    }
    printf("  ]\n}\n");
    for (size_t i = 0; i < nexpr; i++)
        cel_program_free(progs[i]);
    cel_env_free(env);
    kg_arena_free(&evala);
    kg_arena_free(&data);
    free(progs), free(texts), free(cs), free(es), free(as), free(podtext), free(extext);
    return (int)(sink & 0);
}
