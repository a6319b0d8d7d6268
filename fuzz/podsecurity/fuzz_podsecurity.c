/* PodSecurity never crashes, never reports "unknown forbidden reason" and never modifies its input. Input: a JSON
 * value taken as a pod ({metadata, spec}); it is evaluated at every level and version, and its metadata.labels are
 * read as namespace labels. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ps_evaluator ev;
    static int ready;
    if (!ready) {
        size_t n;
        kg_error e;
        if (!ps_evaluator_init(&ev, ps_default_checks(&n), n, &e))
            abort();
        ready = 1;
    }
    kg_arena a;
    kg_arena_init(&a, 0);
    kg_error err;
    kg_json *pod = kg_json_parse(&a, (const char *)data, size, &err);
    if (pod) {
        kg_json *copy = kg_json_clone(&a, pod);
        ps_pod view;
        ps_pod_view(&a, kg_json_get(pod, "metadata"), kg_json_get(pod, "spec"), &view);
        for (int level = PS_BASELINE; level <= PS_RESTRICTED; level++)
            for (int minor = 0; minor <= PS_MAX_MINOR + 1; minor++) {
                ps_agg r;
                ps_version v = minor > PS_MAX_MINOR ? (ps_version){true, 0} : (ps_version){false, minor};
                ps_evaluate(&ev, &a, (ps_lv){(ps_level)level, v}, &view, &r);
                /* reasons are fixed texts (details quote user data, so only reasons are checked) */
                for (size_t i = 0; i < r.n; i++)
                    if (strcmp(r.reasons[i], "unknown forbidden reason") == 0)
                        abort();
                if (!r.allowed)
                    ps_forbidden_detail(&a, &r);
            }
        ps_lv def = {PS_PRIVILEGED, {true, 0}};
        ps_policy defaults = {def, def, def};
        kg_field_errors errs = KG_FIELD_ERRORS_INIT;
        ps_policy_from_labels(&a, kg_json_path(pod, "metadata.labels"), &defaults, &errs);
        if (!kg_json_equal(pod, copy))
            abort(); /* evaluation must never modify the pod */
    }
    kg_arena_free(&a);
    return 0;
}
