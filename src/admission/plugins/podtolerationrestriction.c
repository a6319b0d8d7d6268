/* PodTolerationRestriction (plugin/pkg/admission/podtolerationrestriction), mutating + validating, CREATE/UPDATE of
 * pods: on CREATE the namespace's default tolerations (annotation scheduler.alpha.kubernetes.io/defaultTolerations,
 * else the configured cluster `default`) are merged into the pod's; non-BestEffort pods also tolerate
 * node.kubernetes.io/memory-pressure:NoSchedule; then every toleration must be covered by the namespace whitelist
 * (annotation scheduler.alpha.kubernetes.io/tolerationsWhitelist, else the cluster `whitelist`).
 *
 * Configuration (AdmissionConfiguration entry):
 *   apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1   (or /v1)
 *   kind: Configuration
 *   default: [<toleration>...]
 *   whitelist: [<toleration>...]
 * checked at start-up (`invalid config: [...]`, unknown fields are errors). */
#include <stdlib.h>
#include <string.h>

#include "admission/plugins/plugin_util.h"
#include "admission/registry.h"
#include "meta/names.h"
#include "meta/quantity.h"

#define ANN_DEFAULT "scheduler.alpha.kubernetes.io/defaultTolerations"
#define ANN_WHITELIST "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
#define API_GROUP "podtolerationrestriction.admission.k8s.io/"

typedef struct ptr_state {
    kg_arena arena;
    const kg_json *def;       /* array or NULL */
    const kg_json *whitelist; /* array or NULL */
} ptr_state;

static void destroy(void *state)
{
    ptr_state *st = state;
    if (st) {
        kg_arena_free(&st->arena);
        free(st);
    }
}

/* core validation.ValidateTolerations, the checks that matter for a whitelist/default entry */
static void validate_tolerations(kg_arena *ar, const kg_json *ts, const char *path, kg_field_errors *errs)
{
    static const char *const ops[] = {"Equal", "Exists"};
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
    for (size_t i = 0; i < ts->len; i++) {
        const kg_json *t = kg_json_at(ts, i);
        const char *p = kg_arena_sprintf(ar, "%s[%zu]", path, i);
        if (!kg_json_is(t, KG_JSON_OBJECT)) {
            kg_field_invalid(ar, errs, p, "", "must be an object");
            continue;
        }
        const char *key = kg_admission_pu_str(t, "key"), *op = kg_admission_pu_str(t, "operator");
        const char *val = kg_admission_pu_str(t, "value"), *eff = kg_admission_pu_str(t, "effect");
        kg_name_errs ne = {0};
        if (key[0] && !kg_is_qualified_name(key, &ne))
            kg_field_invalid(ar, errs, kg_arena_sprintf(ar, "%s.key", p), key, kg_name_errs_join(ar, &ne, "; "));
        if (!key[0] && strcmp(op, "Exists") != 0)
            kg_field_invalid(ar, errs, kg_arena_sprintf(ar, "%s.operator", p), op,
                             "operator must be Exists when `key` is empty, which means \"match all values and all "
                             "keys\"");
        if (kg_json_get(t, "tolerationSeconds") && !kg_json_is(kg_json_get(t, "tolerationSeconds"), KG_JSON_NULL) &&
            strcmp(eff, "NoExecute") != 0)
            kg_field_invalid(ar, errs, kg_arena_sprintf(ar, "%s.effect", p), eff,
                             "effect must be 'NoExecute' when `tolerationSeconds` is set");
        if (!op[0] || strcmp(op, "Equal") == 0) {
            kg_name_errs ve = {0};
            if (!kg_is_valid_label_value(val, &ve))
                kg_field_invalid(ar, errs, kg_arena_sprintf(ar, "%s.operator", p), val,
                                 kg_name_errs_join(ar, &ve, ";"));
        } else if (strcmp(op, "Exists") == 0) {
            if (val[0])
                kg_field_invalid(ar, errs, kg_arena_sprintf(ar, "%s.operator", p), val,
                                 "value must be empty when `operator` is 'Exists'");
        } else {
            kg_field_not_supported(ar, errs, kg_arena_sprintf(ar, "%s.operator", p), op, ops, 2);
        }
        if (eff[0] && strcmp(eff, effects[0]) && strcmp(eff, effects[1]) && strcmp(eff, effects[2]))
            kg_field_not_supported(ar, errs, kg_arena_sprintf(ar, "%s.effect", p), eff, effects, 3);
    }
}

/* Strict decoding of a []Toleration: objects with the five known fields of the right JSON types. */
static bool check_shapes(const char *list, const kg_json *ts, kg_error *err)
{
    static const char *const strs[] = {"key", "operator", "value", "effect"};
    for (size_t i = 0; i < ts->len; i++) {
        const kg_json *t = kg_json_at(ts, i);
        if (!kg_json_is(t, KG_JSON_OBJECT))
            return kg_err_set(err, KG_EINVAL, "%s[%zu]: expected a toleration object, got %s", list, i,
                              kg_json_type_name((kg_json_type)t->type));
        for (size_t m = 0; m < t->len; m++) {
            const char *f = t->u.members[m].key;
            const kg_json *v = t->u.members[m].val;
            bool known = false, ok = kg_json_is(v, KG_JSON_NULL);
            for (int j = 0; j < 4; j++)
                if (strcmp(f, strs[j]) == 0) {
                    known = true;
                    ok = ok || kg_json_is(v, KG_JSON_STRING);
                }
            if (strcmp(f, "tolerationSeconds") == 0) {
                known = true;
                ok = ok || kg_json_is(v, KG_JSON_INT);
            }
            if (!known)
                return kg_err_set(err, KG_EINVAL, "strict decoding error: unknown field \"%s[%zu].%s\"", list, i, f);
            if (!ok)
                return kg_err_set(err, KG_EINVAL, "%s[%zu].%s: expected %s, got %s", list, i, f,
                                  strcmp(f, "tolerationSeconds") == 0 ? "an integer" : "a string",
                                  kg_json_type_name((kg_json_type)v->type));
        }
    }
    return true;
}

static bool parse_config(ptr_state *st, const kg_json *config, kg_error *err)
{
    if (!config)
        return true;
    if (!kg_json_is(config, KG_JSON_OBJECT))
        return kg_err_set(err, KG_EINVAL, "expected a Configuration object, got %s",
                          kg_json_type_name((kg_json_type)config->type));
    const char *av = kg_json_get_str(config, "apiVersion"), *kind = kg_json_get_str(config, "kind");
    if (!av || (strcmp(av, API_GROUP "v1alpha1") != 0 && strcmp(av, API_GROUP "v1") != 0))
        return kg_err_set(err, KG_EINVAL, "apiVersion: unsupported value %s (want %sv1alpha1 or %sv1)",
                          av ? kg_admission_pu_quote(&st->arena, av) : "\"\"", API_GROUP, API_GROUP);
    if (!kind || strcmp(kind, "Configuration") != 0)
        return kg_err_set(err, KG_EINVAL, "kind: unsupported value %s (want \"Configuration\")",
                          kind ? kg_admission_pu_quote(&st->arena, kind) : "\"\"");
    for (size_t i = 0; i < config->len; i++) {
        const char *k = config->u.members[i].key;
        const kg_json *v = config->u.members[i].val;
        if (strcmp(k, "apiVersion") == 0 || strcmp(k, "kind") == 0)
            continue;
        if (strcmp(k, "default") != 0 && strcmp(k, "whitelist") != 0)
            return kg_err_set(err, KG_EINVAL, "strict decoding error: unknown field \"%s\"", k);
        if (kg_json_is(v, KG_JSON_NULL))
            continue;
        if (!kg_json_is(v, KG_JSON_ARRAY))
            return kg_err_set(err, KG_EINVAL, "%s: expected an array of tolerations, got %s", k,
                              kg_json_type_name((kg_json_type)v->type));
        if (!check_shapes(k, v, err))
            return false;
        if (strcmp(k, "default") == 0)
            st->def = kg_json_clone(&st->arena, v);
        else
            st->whitelist = kg_json_clone(&st->arena, v);
    }
    kg_field_errors errs = KG_FIELD_ERRORS_INIT;
    if (st->def)
        validate_tolerations(&st->arena, st->def, "podtolerationrestriction.default", &errs);
    if (st->whitelist)
        validate_tolerations(&st->arena, st->whitelist, "podtolerationrestriction.whitelist", &errs);
    if (errs.len) {
        /* fmt.Errorf("invalid config: %v", allErrs): Go prints the ErrorList as "[e1 e2]" */
        kg_buf b = KG_BUF_INIT;
        kg_buf_puts(&b, "invalid config: [");
        for (size_t i = 0; i < errs.len; i++) {
            if (i)
                kg_buf_putc(&b, ' ');
            kg_buf_puts(&b, kg_field_error_string(&st->arena, &errs.items[i]));
        }
        kg_buf_putc(&b, ']');
        kg_err_set(err, KG_EINVAL, "%s", kg_buf_cstr(&b));
        kg_buf_free(&b);
        return false;
    }
    return true;
}

static bool init(const kg_json *config, const kg_admission_services *svc, void **state, kg_error *err)
{
    ptr_state *st = calloc(1, sizeof *st);
    if (!st)
        return kg_err_set(err, KG_EINTERNAL, "out of memory");
    kg_arena_init(&st->arena, 0);
    if (!parse_config(st, config, err)) {
        destroy(st);
        return false;
    }
    *state = st;
    return true;
}

static bool ignore(const kg_admission_attributes *a)
{
    return !kg_admission_pu_is(a, "", "pods") || !kg_admission_pu_obj_kind(a->object, "Pod");
}

/* extractNSTolerations: *out NULL = annotation absent (fall back to the cluster list) */
static kg_status *ns_tolerations(const kg_admission_attributes *a, const kg_json *ns, const char *key,
                                 const kg_json **out)
{
    *out = NULL;
    const kg_json *anns = kg_json_path(ns, "metadata.annotations");
    const kg_json *v = kg_json_is(anns, KG_JSON_OBJECT) ? kg_json_get(anns, key) : NULL;
    if (!kg_json_is(v, KG_JSON_STRING))
        return NULL;
    kg_arena *ar = a->arena;
    if (v->len == 0) {
        *out = kg_json_new_array(ar);
        return NULL;
    }
    KG_ERROR_DECL(e);
    kg_json *ts = kg_json_parse(ar, v->u.s, v->len, &e);
    if (!ts)
        return kg_status_new(ar, 500, KG_REASON_UNKNOWN, e.msg);
    if (kg_json_is(ts, KG_JSON_NULL)) {
        *out = kg_json_new_array(ar);
        return NULL;
    }
    if (!kg_json_is(ts, KG_JSON_ARRAY))
        return kg_admission_pu_plain(ar, "json: cannot unmarshal %s into Go value of type []v1.Toleration",
                                     kg_json_type_name((kg_json_type)ts->type));
    for (size_t i = 0; i < ts->len; i++)
        if (!kg_json_is(kg_json_at(ts, i), KG_JSON_OBJECT))
            return kg_admission_pu_plain(ar, "json: cannot unmarshal %s into Go value of type v1.Toleration",
                                         kg_json_type_name((kg_json_type)kg_json_at(ts, i)->type));
    *out = ts;
    return NULL;
}

/* qos.GetPodQOS(pod) == BestEffort: no container has a non-zero cpu/memory request or limit */
static bool best_effort(const kg_json *pod)
{
    const char *qos = kg_json_path_str(pod, "status.qosClass");
    if (qos && qos[0])
        return strcmp(qos, "BestEffort") == 0;
    static const char *const lists[] = {"containers", "initContainers"};
    static const char *const kinds[] = {"requests", "limits"};
    static const char *const res[] = {"cpu", "memory"};
    for (int l = 0; l < 2; l++) {
        const kg_json *cs = kg_json_get(kg_json_get(pod, "spec"), lists[l]);
        for (size_t i = 0; kg_json_is(cs, KG_JSON_ARRAY) && i < cs->len; i++) {
            const kg_json *r = kg_json_get(kg_json_at(cs, i), "resources");
            for (int k = 0; k < 2; k++) {
                const kg_json *m = kg_json_is(r, KG_JSON_OBJECT) ? kg_json_get(r, kinds[k]) : NULL;
                for (int j = 0; j < 2; j++) {
                    const kg_json *q = kg_json_is(m, KG_JSON_OBJECT) ? kg_json_get(m, res[j]) : NULL;
                    kg_quantity qq;
                    if (q && kg_quantity_from_json(q, &qq, NULL) && kg_quantity_sign(&qq) > 0)
                        return false;
                }
            }
        }
    }
    return true;
}

static kg_status *check(const ptr_state *st, const kg_admission_attributes *a, const kg_json *ns)
{
    const kg_json *tols = kg_json_path(a->object, "spec.tolerations");
    if (!kg_json_is(tols, KG_JSON_ARRAY) || tols->len == 0)
        return NULL;
    const kg_json *wl;
    kg_status *err = ns_tolerations(a, ns, ANN_WHITELIST, &wl);
    if (err)
        return err;
    const char *scope = "namespace";
    if (!wl) {
        wl = st->whitelist;
        scope = "cluster";
    }
    if (!wl || wl->len == 0)
        return NULL;
    /* VerifyAgainstWhitelist */
    for (size_t i = 0; i < tols->len; i++) {
        bool ok = false;
        for (size_t j = 0; j < wl->len && !ok; j++)
            ok = kg_admission_pu_tol_superset(kg_json_at(wl, j), kg_json_at(tols, i));
        if (!ok)
            return kg_admission_pu_plain(a->arena,
                                         "pod tolerations (possibly merged with namespace default tolerations) "
                                         "conflict with its %s whitelist",
                                         scope);
    }
    return NULL;
}

static const kg_json *get_ns(const kg_admission_attributes *a, const kg_admission_services *svc, kg_status **err)
{
    if (!kg_admission_wait_ready(svc, "namespaces")) {
        *err = kg_admission_forbidden(a, "not yet ready to handle request");
        return NULL;
    }
    return kg_admission_pu_get_namespace(svc, a->arena, a->ns, err);
}

static kg_status *admit(void *state, kg_admission_attributes *a, const kg_admission_services *svc)
{
    const ptr_state *st = state;
    if (ignore(a))
        return NULL;
    kg_status *err = NULL;
    const kg_json *ns = get_ns(a, svc, &err);
    if (!ns)
        return err;
    kg_arena *ar = a->arena;
    kg_json *extra = kg_json_new_array(ar);
    if (a->operation == KG_ADMISSION_CREATE) {
        const kg_json *def;
        if ((err = ns_tolerations(a, ns, ANN_DEFAULT, &def)))
            return err;
        if (!def)
            def = st->def;
        for (size_t i = 0; def && i < def->len; i++)
            kg_json_array_append(ar, extra, kg_json_clone(ar, kg_json_at(def, i)));
    }
    if (!best_effort(a->object))
        kg_json_array_append(
            ar, extra,
            kg_admission_pu_toleration(ar, "node.kubernetes.io/memory-pressure", "Exists", "NoSchedule", -1));
    if (extra->len) {
        kg_json *spec = kg_json_get_or_add_object(ar, a->object, "spec");
        kg_json_set(ar, spec, "tolerations",
                    kg_admission_pu_merge_tolerations(ar, kg_json_get(spec, "tolerations"), extra));
    }
    return check(st, a, ns);
}

static kg_status *validate(void *state, const kg_admission_attributes *a, const kg_admission_services *svc)
{
    if (ignore(a))
        return NULL;
    const kg_json *tols = kg_json_path(a->object, "spec.tolerations");
    if (!kg_json_is(tols, KG_JSON_ARRAY) || tols->len == 0)
        return NULL;
    kg_status *err = NULL;
    const kg_json *ns = get_ns(a, svc, &err);
    if (!ns)
        return err;
    return check(state, a, ns);
}

const kg_admission_plugin kg_admission_plugin_pod_toleration_restriction = {
    .name = "PodTolerationRestriction",
    .handles = KG_ADMISSION_CREATE | KG_ADMISSION_UPDATE,
    .init = init,
    .admit = admit,
    .validate = validate,
    .destroy = destroy,
};
