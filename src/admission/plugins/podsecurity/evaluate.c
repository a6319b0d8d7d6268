/* PodSecurity evaluation (policy/checks.go visitContainers, policy/registry.go EvaluatePod, policy/check.go
 * AggregateCheckResults): the pod as the checks see it, one level/version evaluated over it, and the aggregated
 * reason and detail texts used in denials, warnings and audit annotations. */
#include <string.h>

#include "admission/plugins/podsecurity/podsecurity.h"

void ps_pod_view(kg_arena *a, const kg_json *metadata, const kg_json *spec, ps_pod *out)
{
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    memset(out, 0, sizeof *out);
    out->annotations = ps_obj(metadata, "annotations");
    out->spec = kg_json_is(spec, KG_JSON_OBJECT) ? spec : NULL;
    out->sc = ps_obj(out->spec, "securityContext");
    const char *os = ps_str(ps_obj(out->spec, "os"), "name");
    out->windows = os && strcmp(os, "windows") == 0;
    size_t n = 0;
    for (int l = 0; l < 3; l++) {
        const kg_json *cs = ps_arr(out->spec, lists[l]);
        n += cs ? cs->len : 0;
    }
    if (!n)
        return;
    out->containers = kg_arena_alloc(a, n * sizeof *out->containers);
    for (int l = 0; l < 3; l++) {
        const kg_json *cs = ps_arr(out->spec, lists[l]);
        for (size_t i = 0; cs && i < cs->len; i++) {
            const kg_json *c = kg_json_at(cs, i);
            if (!kg_json_is(c, KG_JSON_OBJECT))
                continue;
            const char *name = ps_str(c, "name");
            out->containers[out->ncontainers++] = (ps_container){name ? name : "", c, ps_obj(c, "securityContext")};
        }
    }
}

void ps_evaluate(const ps_evaluator *ev, kg_arena *a, ps_lv lv, const ps_pod *pod, ps_agg *out)
{
    memset(out, 0, sizeof *out);
    out->allowed = true;
    const ps_check_list *l = ps_evaluator_list(ev, lv);
    if (!l)
        return;
    const char **reasons = NULL, **details = NULL;
    for (size_t i = 0; i < l->n; i++) {
        ps_result r = l->fns[i](a, pod);
        if (r.allowed)
            continue;
        if (!reasons) {
            reasons = kg_arena_alloc(a, l->n * sizeof *reasons);
            details = kg_arena_alloc(a, l->n * sizeof *details);
        }
        reasons[out->n] = r.reason && r.reason[0] ? r.reason : "unknown forbidden reason";
        details[out->n] = r.detail ? r.detail : "";
        out->n++;
    }
    out->allowed = out->n == 0;
    out->reasons = reasons;
    out->details = details;
}

char *ps_forbidden_reason(kg_arena *a, const ps_agg *r)
{
    ps_strs l = {(const char **)r->reasons, r->n, r->n};
    return ps_join(a, &l, ", ");
}

char *ps_forbidden_detail(kg_arena *a, const ps_agg *r)
{
    ps_strs l = {0};
    for (size_t i = 0; i < r->n; i++)
        ps_strs_add(a, &l,
                    r->details[i][0] ? kg_arena_sprintf(a, "%s (%s)", r->reasons[i], r->details[i]) : r->reasons[i]);
    return ps_join(a, &l, ", ");
}
