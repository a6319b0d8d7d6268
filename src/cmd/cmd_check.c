/* kgate check: admission of manifests offline, by the engine `kgate serve` runs (docs/check.md). Flags, input
 * order and exit codes here; the reader is check/inputs.h, the cluster check/cluster.h, the outputs
 * check/report.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "check/audit.h"
#include "check/cluster.h"
#include "check/explain.h"
#include "check/inputs.h"
#include "check/mirror.h"
#include "check/report.h"
#include "cmd/flags.h"

const char kg_cmd_check_help[] = "Admit manifests offline through the same pipeline and admission chain as serve";

enum { EXIT_ADMITTED = 0, EXIT_DENIED = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: kgate check [flags] PATH...\n\n"
            "Submits every object of the given files, directories (recursively: *.yaml, *.yml, *.json) or \"-\"\n"
            "(stdin) to an in-memory cluster through the write pipeline and admission chain of kgate serve, and\n"
            "reports what serve would answer. Objects that configure admission (Namespaces, LimitRanges,\n"
            "ResourceQuotas, PriorityClasses, ServiceAccounts, StorageClasses, RuntimeClasses, IngressClasses,\n"
            "ConfigMaps (policy params), admissionregistration.k8s.io objects) are submitted first; later\n"
            "objects see earlier ones.\n\n"
            "Flags:\n"
            "  -o, --output FORMAT           text: one line per object (default); json: results and summary;\n"
            "                                yaml: the admitted objects as mutated, ready for kubectl apply;\n"
            "                                junit: JUnit XML (a testsuite per file, a testcase per object);\n"
            "                                sarif: SARIF 2.1.0 (a result per denial and warning)\n"
            "      --explain                 the decision trace of each object: every plugin, policy binding,\n"
            "                                webhook and PodSecurity check consulted, its verdict and time, and\n"
            "                                the values of a failed CEL expression's sub-expressions\n"
            "      --kubeconfig FILE         read the cluster's namespaces and policies (and LimitRanges,\n"
            "                                ResourceQuotas) as context, read-only (loaded before --context)\n"
            "      --context PATH            objects that make up the cluster (loaded first, without admission,\n"
            "                                not reported); repeatable\n"
            "      --operation CREATE|UPDATE the request's operation (default CREATE)\n"
            "      --old PATH                for UPDATE: the objects as stored, paired by kind, namespace and name;\n"
            "                                repeatable\n"
            "      --user NAME               the requesting user (default %s)\n"
            "      --group NAME              a group of the user; repeatable (default system:masters and\n"
            "                                system:authenticated)\n"
            "      --audit                   audit mode: evaluate the policies of --policy against every object of\n"
            "                                --context and PATH... they match, without enforcing them and without\n"
            "                                the rest of the chain; report counts per policy, binding and namespace\n"
            "                                and the first violations (exit 1 if any)\n"
            "      --policy PATH             (--audit) ValidatingAdmissionPolicies, bindings and params; repeatable\n"
            "      --max-violations N        (--audit) violations listed in the report (default 20)\n"
            "  -h, --help                    this help\n\n",
            "kgate-admin");
    kg_flags_engine_usage(f);
    fprintf(f, "\nExit status: 0 every object admitted, 1 some denied, 2 bad input or usage (--audit: 0 no violation,\n"
               "1 violations, 2 bad input or usage).\n");
}

/* Submission rank: namespaces, then the kinds that configure admission, then the rest (stable within a rank). */
static int rank(const kg_json *obj)
{
    /* ConfigMaps: the usual params of ValidatingAdmissionPolicies (a binding's paramRef) */
    static const char *const configuring[] = {"LimitRange",   "ResourceQuota", "PriorityClass", "ServiceAccount",
                                              "StorageClass", "RuntimeClass",  "IngressClass",  "ConfigMap"};
    const char *kind = kg_json_get_str(obj, "kind");
    const char *av = kg_json_get_str(obj, "apiVersion");
    if (!kind)
        return 2;
    if (!strcmp(kind, "Namespace"))
        return 0;
    if (av && !strncmp(av, "admissionregistration.k8s.io/", 29))
        return 1;
    for (size_t i = 0; i < sizeof configuring / sizeof configuring[0]; i++)
        if (!strcmp(kind, configuring[i]))
            return 1;
    return 2;
}

static const char *str_or(const char *s, const char *d)
{
    return s ? s : d;
}

/* The old object for obj: same kind, namespace (defaulted as for the request) and name. */
static const kg_json *find_old(const kg_check_inputs *old, const kg_json *obj)
{
    const char *kind = str_or(kg_json_get_str(obj, "kind"), "");
    const char *ns = str_or(kg_json_path_str(obj, "metadata.namespace"), "");
    const char *name = str_or(kg_json_path_str(obj, "metadata.name"), "");
    for (size_t i = 0; i < old->n; i++) {
        const kg_json *o = old->docs[i].obj;
        if (!o)
            continue;
        const char *ons = str_or(kg_json_path_str(o, "metadata.namespace"), "");
        if (!strcmp(str_or(kg_json_get_str(o, "kind"), ""), kind) &&
            !strcmp(str_or(kg_json_path_str(o, "metadata.name"), ""), name) &&
            (!strcmp(ons, ns) || (!ons[0] && !strcmp(ns, "default")) || (!ns[0] && !strcmp(ons, "default"))))
            return o;
    }
    return NULL;
}

static bool read_paths(kg_check_inputs *in, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        KG_ERROR_DECL(err);
        if (!kg_check_read_path(in, paths[i], &err)) {
            fprintf(stderr, "Error: %s\n", err.msg);
            return false;
        }
    }
    return true;
}

/* The document of each policy kind, counted for the report. */
static void count_policies(const kg_check_inputs *in, size_t *np, size_t *nb)
{
    for (size_t i = 0; i < in->n; i++) {
        const char *kind = in->docs[i].obj ? kg_json_get_str(in->docs[i].obj, "kind") : NULL;
        if (kind && !strcmp(kind, "ValidatingAdmissionPolicy"))
            (*np)++;
        else if (kind && !strcmp(kind, "ValidatingAdmissionPolicyBinding"))
            (*nb)++;
    }
}

/* --audit (check/audit.h): a cluster whose chain is the policy plugin alone; policies, context and inputs loaded
 * without admission, then every context and input object through the validating phase with the audit collector. */
static int run_audit(kg_check_config *cfg, kg_arena *a, const kg_check_inputs *pol, const kg_check_inputs *cin,
                     const kg_check_inputs *in, size_t max_items, bool json)
{
    if (cfg->admission.enable_plugins || cfg->admission.disable_plugins || cfg->admission.admission_control) {
        fprintf(stderr, "Error: --audit evaluates the policies alone: the admission plugin flags do not apply\n");
        return EXIT_USAGE;
    }
    cfg->admission.admission_control = "ValidatingAdmissionPolicy";
    KG_ERROR_DECL(err);
    kg_check_cluster *cluster = kg_check_cluster_new(cfg, &err);
    if (!cluster) {
        fprintf(stderr, "Error: %s\n", err.msg);
        return EXIT_USAGE;
    }
    int rc = EXIT_USAGE;
    for (size_t i = 0; i < pol->n; i++) {
        const kg_check_doc *d = &pol->docs[i];
        if (!d->obj || !kg_check_load(cluster, a, d->obj, &err)) {
            fprintf(stderr, "Error: --policy %s: %s\n", kg_check_doc_where(a, d), d->obj ? err.msg : d->error);
            goto out;
        }
    }
    size_t np = 0, nb = 0;
    count_policies(pol, &np, &nb);
    if (!np) {
        fprintf(stderr, "Error: --policy: no ValidatingAdmissionPolicy found\n");
        goto out;
    }
    kg_audit au;
    kg_audit_init(&au, a, max_items);
    /* load everything first (namespaces and params before the objects that need them), then evaluate */
    const kg_check_inputs *sets[] = {cin, in};
    size_t total = cin->n + in->n;
    kg_json **stored = kg_arena_calloc(a, (total ? total : 1) * sizeof *stored);
    for (int pass = 0; pass < 2; pass++)
        for (size_t s = 0, k = 0; s < 2; s++)
            for (size_t i = 0; i < sets[s]->n; i++, k++) {
                const kg_check_doc *d = &sets[s]->docs[i];
                bool ns = d->obj && !strcmp(str_or(kg_json_get_str(d->obj, "kind"), ""), "Namespace");
                if (!d->obj || ns != (pass == 0))
                    continue;
                KG_ERROR_DECL(e);
                if (!(stored[k] = kg_check_load_get(cluster, a, d->obj, &e)))
                    kg_audit_error(&au, d, e.msg);
            }
    kg_arena scratch;
    kg_arena_init(&scratch, 1u << 20);
    for (size_t s = 0, k = 0; s < 2; s++)
        for (size_t i = 0; i < sets[s]->n; i++, k++) {
            const kg_check_doc *d = &sets[s]->docs[i];
            if (!d->obj) {
                kg_audit_error(&au, d, d->error);
                continue;
            }
            if (!stored[k])
                continue;
            kg_audit_begin_object(&au, d, kg_json_get_str(stored[k], "kind"),
                                  kg_json_path_str(stored[k], "metadata.namespace"),
                                  kg_json_path_str(stored[k], "metadata.name"));
            kg_check_validate_only(cluster, &scratch, kg_json_clone(&scratch, stored[k]), &au.tracer);
            kg_audit_end_object(&au);
            kg_arena_reset(&scratch);
        }
    kg_arena_free(&scratch);
    if (json)
        kg_audit_report_json(stdout, a, &au, np, nb);
    else
        kg_audit_report_text(stdout, a, &au, np, nb);
    rc = au.errors ? EXIT_USAGE : au.violations ? EXIT_DENIED : EXIT_ADMITTED;
out:
    kg_check_cluster_free(cluster);
    return rc;
}

int kg_cmd_check(int argc, char **argv)
{
    kg_check_config cfg = {0};
    const char *output = "text", *operation = "CREATE", *kubeconfig = NULL;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths), **ctx = calloc((size_t)argc + 1, sizeof *ctx);
    const char **olds = calloc((size_t)argc + 1, sizeof *olds), **groups = calloc((size_t)argc + 1, sizeof *groups);
    const char **pols = calloc((size_t)argc + 1, sizeof *pols), *max_violations = "20";
    size_t npaths = 0, nctx = 0, nolds = 0, ngroups = 0, npols = 0;
    int rc = EXIT_USAGE;
    kg_check_cluster *cluster = NULL;
    kg_arena a, scratch;
    bool scratch_live = false, explain = false, audit = false;
    kg_arena_init(&a, 0);
    kg_log_threshold = 1; /* warnings and errors only, unless -v */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool m;
        const char *v;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            rc = EXIT_ADMITTED;
            goto out;
        }
        if (!strcmp(arg, "-") || arg[0] != '-') {
            paths[npaths++] = arg;
            continue;
        }
        if (!strcmp(arg, "--explain")) {
            explain = true;
            continue;
        }
        if (!strcmp(arg, "--audit")) {
            audit = true;
            continue;
        }
        kg_flag_result fr = kg_flags_engine(argc, argv, &i, &cfg.admission, &cfg.feature_gates);
        if (fr == KG_FLAG_ERROR)
            goto out;
        if (fr == KG_FLAG_MATCHED)
            continue;
        struct {
            const char *name;
            const char **single;
            const char **list;
            size_t *nlist;
        } flags[] = {
            {"--output", &output, NULL, NULL},
            {"-o", &output, NULL, NULL},
            {"--operation", &operation, NULL, NULL},
            {"--user", &cfg.user, NULL, NULL},
            {"--context", NULL, ctx, &nctx},
            {"--old", NULL, olds, &nolds},
            {"--group", NULL, groups, &ngroups},
            {"--policy", NULL, pols, &npols},
            {"--max-violations", &max_violations, NULL, NULL},
            {"--kubeconfig", &kubeconfig, NULL, NULL},
        };
        bool done = false;
        for (size_t k = 0; k < sizeof flags / sizeof flags[0] && !done; k++) {
            v = kg_flag_value(argc, argv, &i, flags[k].name, &m);
            if (!m)
                continue;
            if (!v) {
                fprintf(stderr, "Error: flag needs an argument: %s\n", flags[k].name);
                goto out;
            }
            if (flags[k].single)
                *flags[k].single = v;
            else
                flags[k].list[(*flags[k].nlist)++] = v;
            done = true;
        }
        if (done)
            continue;
        if (!strncmp(arg, "-v=", 3) || !strncmp(arg, "--v=", 4)) {
            kg_log_verbosity = atoi(strchr(arg, '=') + 1);
            kg_log_threshold = 0;
            continue;
        }
        fprintf(stderr, "Error: unknown flag: %s\nRun 'kgate check --help' for usage.\n", arg);
        goto out;
    }
    static const char *const formats[] = {"text", "json", "yaml", "junit", "sarif"};
    bool known = false;
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++)
        known = known || !strcmp(output, formats[k]);
    if (!known) {
        fprintf(stderr, "Error: unsupported output format \"%s\" (text, json, yaml, junit, sarif)\n", output);
        goto out;
    }
    if (explain && strcmp(output, "text") && strcmp(output, "json")) {
        fprintf(stderr, "Error: --explain needs -o text or -o json\n");
        goto out;
    }
    if (audit) {
        char *end;
        long mv = strtol(max_violations, &end, 10);
        if (*end || mv < 0 || mv > 100000) {
            fprintf(stderr, "Error: invalid --max-violations \"%s\" (0 to 100000)\n", max_violations);
            goto out;
        }
        if (strcmp(output, "text") && strcmp(output, "json")) {
            fprintf(stderr, "Error: --audit needs -o text or -o json\n");
            goto out;
        }
        if (!npols || (!npaths && !nctx) || explain || nolds) {
            fprintf(stderr, "Error: --audit needs --policy PATH and objects (--context PATH or PATH...), and takes "
                            "neither --explain nor --old\n");
            goto out;
        }
        if (ngroups) {
            cfg.groups = groups;
            cfg.ngroups = ngroups;
        }
        kg_check_inputs pin, ain, acin;
        kg_check_inputs_init(&pin, &a);
        kg_check_inputs_init(&ain, &a);
        kg_check_inputs_init(&acin, &a);
        if (!read_paths(&pin, pols, npols) || !read_paths(&acin, ctx, nctx) || !read_paths(&ain, paths, npaths))
            goto out;
        rc = run_audit(&cfg, &a, &pin, &acin, &ain, (size_t)mv, !strcmp(output, "json"));
        goto out;
    }
    if (npols) {
        fprintf(stderr, "Error: --policy needs --audit (policies to enforce are given as inputs or --context)\n");
        goto out;
    }
    bool update = !strcmp(operation, "UPDATE");
    if (!update && strcmp(operation, "CREATE")) {
        fprintf(stderr, "Error: unsupported --operation \"%s\" (CREATE, UPDATE)\n", operation);
        goto out;
    }
    if (update != (nolds > 0)) {
        fprintf(stderr, "Error: %s\n",
                update ? "--operation UPDATE needs --old PATH" : "--old needs --operation UPDATE");
        goto out;
    }
    if (!npaths) {
        fprintf(stderr, "Error: no input: give files, directories or - (stdin)\nRun 'kgate check --help' for usage.\n");
        goto out;
    }
    if (ngroups) {
        cfg.groups = groups;
        cfg.ngroups = ngroups;
    }

    kg_check_inputs in, cin, oin;
    kg_check_inputs_init(&in, &a);
    kg_check_inputs_init(&cin, &a);
    kg_check_inputs_init(&oin, &a);
    if (!read_paths(&in, paths, npaths) || !read_paths(&cin, ctx, nctx) || !read_paths(&oin, olds, nolds))
        goto out;
    if (!in.n) {
        fprintf(stderr, "Error: no objects found in the input\n");
        goto out;
    }
    KG_ERROR_DECL(err);
    cluster = kg_check_cluster_new(&cfg, &err);
    if (!cluster) {
        fprintf(stderr, "Error: %s\n", err.msg);
        goto out;
    }
    if (kubeconfig) { /* the live cluster's namespaces and policies as context, read-only (check/mirror.h) */
        kg_client *client = kg_client_from_kubeconfig(kubeconfig, &err);
        bool ok = client && kg_check_mirror_list_once(cluster, client, &cfg.admission, &err);
        kg_client_free(client);
        if (!ok) {
            fprintf(stderr, "Error: --kubeconfig %s: %s\n", kubeconfig, err.msg);
            goto out;
        }
    }
    for (size_t i = 0; i < cin.n; i++) {
        const kg_check_doc *d = &cin.docs[i];
        if (!d->obj || !kg_check_load(cluster, &a, d->obj, &err)) {
            fprintf(stderr, "Error: --context %s: %s\n", kg_check_doc_where(&a, d), d->obj ? err.msg : d->error);
            goto out;
        }
    }
    for (size_t i = 0; i < oin.n; i++)
        if (!oin.docs[i].obj) {
            fprintf(stderr, "Error: --old %s: %s\n", kg_check_doc_where(&a, &oin.docs[i]), oin.docs[i].error);
            goto out;
        }

    /* submit in rank order, report in input order; each submission works in a scratch arena. -o json is streamed:
     * by the last rank every earlier result is known, so each object of it is written as soon as it is decided
     * and its patch never outlives its scratch arena. */
    bool json = !strcmp(output, "json");
    unsigned keep = json ? KG_CHECK_KEEP_PATCH : !strcmp(output, "yaml") ? KG_CHECK_KEEP_OBJECT : 0;
    kg_check_trace trace;
    kg_check_trace_init(&trace, explain);
    kg_check_cluster_set_tracer(cluster, &trace.tracer);
    kg_check_result *res = kg_arena_calloc(&a, in.n * sizeof *res);
    kg_arena_init(&scratch, 1u << 20); /* one chunk holds a submission: reset only rewinds */
    scratch_live = true;
    size_t emitted = 0;
    if (json)
        kg_check_json_begin(stdout);
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < in.n; i++) {
            const kg_check_doc *d = &in.docs[i];
            kg_check_result *r = &res[i];
            if (!d->obj) {
                if (pass == 0)
                    *r = (kg_check_result){.doc = d, .v = {.input_error = true, .code = 400, .message = d->error}};
                continue;
            }
            if (rank(d->obj) != pass)
                continue;
            if (json && pass == 2) /* everything before i is decided */
                for (; emitted < i; emitted++, kg_arena_reset(&scratch))
                    kg_check_json_result(stdout, &scratch, &res[emitted], emitted == 0);
            r->doc = d;
            r->submitted = d->obj;
            r->explained = explain;
            const kg_json *old = NULL;
            if (update && !(old = find_old(&oin, d->obj))) {
                r->v = (kg_check_verdict){.input_error = true,
                                          .code = 400,
                                          .kind = kg_json_get_str(d->obj, "kind"),
                                          .name = kg_json_path_str(d->obj, "metadata.name"),
                                          .ns = kg_json_path_str(d->obj, "metadata.namespace"),
                                          .message = "no old object (--old) with this kind, namespace and name"};
                continue;
            }
            kg_check_verdict v;
            kg_check_trace_reset(&trace, &scratch);
            kg_check_submit(cluster, &scratch, kg_json_clone(&scratch, d->obj), old, &v);
            /* a result written now lives in the scratch arena, the others in the long-lived one */
            bool now = json && pass == 2 && emitted == i;
            kg_arena *ra = now ? &scratch : &a;
            kg_check_result_keep(ra, r, &v, keep);
            if (!v.allowed && !v.input_error)
                r->rule = kg_check_trace_rule(ra, &trace);
            if (explain)
                r->steps = kg_check_steps_copy(ra, &trace, &r->nsteps);
            if (now) {
                kg_check_json_result(stdout, &scratch, r, i == 0);
                emitted++;
                /* only the verdict's flags are read from here on (the summary) */
                r->v = (kg_check_verdict){.allowed = r->v.allowed, .input_error = r->v.input_error};
                r->patch = NULL;
                r->steps = NULL;
            }
            kg_arena_reset(&scratch);
        }
    kg_check_cluster_set_tracer(cluster, NULL);
    if (json) {
        for (; emitted < in.n; emitted++, kg_arena_reset(&scratch))
            kg_check_json_result(stdout, &scratch, &res[emitted], emitted == 0);
        kg_check_summary js = kg_check_summarize(res, in.n);
        kg_check_json_end(stdout, &scratch, &js, in.n > 0);
    } else if (!strcmp(output, "yaml"))
        kg_check_report_yaml(stdout, &a, res, in.n);
    else if (!strcmp(output, "junit"))
        kg_check_report_junit(stdout, &a, res, in.n);
    else if (!strcmp(output, "sarif"))
        kg_check_report_sarif(stdout, &a, res, in.n);
    else
        kg_check_report_text(stdout, &a, res, in.n);
    kg_check_summary s = kg_check_summarize(res, in.n);
    rc = s.errors ? EXIT_USAGE : s.denied ? EXIT_DENIED : EXIT_ADMITTED;
out:
    fflush(stdout);
    kg_check_cluster_free(cluster);
    if (scratch_live)
        kg_arena_free(&scratch);
    kg_arena_free(&a);
    free(paths);
    free(ctx);
    free(olds);
    free(groups);
    free(pols);
    return rc;
}
