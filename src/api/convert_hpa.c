/* autoscaling/v1 HorizontalPodAutoscaler <-> autoscaling/v2 (the storage version), as upstream's
 * pkg/apis/autoscaling/v1/conversion.go does through the internal type.
 *
 * v1 holds one metric: spec.targetCPUUtilizationPercentage is the v2 metric {type: Resource, resource: {name: cpu,
 * target: {type: Utilization, averageUtilization}}} and status.currentCPUUtilizationPercentage its current
 * averageUtilization. What v1 cannot hold travels in annotations, as upstream writes them:
 *
 *   autoscaling.alpha.kubernetes.io/metrics          the other spec metrics, in v1's MetricSpec shape
 *                                                    (targetAverageUtilization, targetAverageValue, metricName, ...)
 *   autoscaling.alpha.kubernetes.io/current-metrics  every status metric, in v1's MetricStatus shape
 *   autoscaling.alpha.kubernetes.io/conditions       status.conditions
 *   autoscaling.alpha.kubernetes.io/behavior         spec.behavior, marshalled from the internal Go type (field
 *                                                    names as in Go: ScaleUp, StabilizationWindowSeconds, ...)
 *
 * Converting v1 to v2 reads them back (other metrics first, then the CPU one) and drops them, so they are never
 * stored; converting v2 to v1 drops any stale copies before writing fresh ones. */
#include <string.h>
#include <strings.h>

#include "api/versions.h"

#define ANN_METRICS "autoscaling.alpha.kubernetes.io/metrics"
#define ANN_CURRENT "autoscaling.alpha.kubernetes.io/current-metrics"
#define ANN_CONDITIONS "autoscaling.alpha.kubernetes.io/conditions"
#define ANN_BEHAVIOR "autoscaling.alpha.kubernetes.io/behavior"

static kg_json *sref(kg_arena *a, const char *s)
{
    return kg_json_new_str_ref(a, s, strlen(s));
}

static bool is_obj(const kg_json *v)
{
    return v && v->type == KG_JSON_OBJECT;
}
static bool is_arr(const kg_json *v)
{
    return v && v->type == KG_JSON_ARRAY;
}

/* out[okey] = clone(in[ikey]) when present and not null */
static void cp(kg_arena *a, kg_json *out, const char *okey, const kg_json *in, const char *ikey)
{
    kg_json *v = is_obj(in) ? kg_json_get(in, ikey) : NULL;
    if (v && v->type != KG_JSON_NULL)
        kg_json_set(a, out, okey, kg_json_clone(a, v));
}

/* a resource.Quantity that is not a pointer in Go: "0" when unset */
static void qty(kg_arena *a, kg_json *out, const char *okey, const kg_json *in, const char *ikey)
{
    cp(a, out, okey, in, ikey);
    if (!kg_json_get(out, okey))
        kg_json_set(a, out, okey, sref(a, "0"));
}

static const char *str_of(const kg_json *o, const char *k)
{
    const char *s = is_obj(o) ? kg_json_get_str(o, k) : NULL;
    return s ? s : "";
}

static kg_json *head(kg_arena *a, const kg_json *in, const char *api_version)
{
    kg_json *out = kg_json_new_object(a);
    kg_json_set(a, out, "apiVersion", sref(a, api_version));
    kg_json_set(a, out, "kind", sref(a, "HorizontalPodAutoscaler"));
    kg_json *md = kg_json_get(in, "metadata");
    if (is_obj(md))
        kg_json_set(a, out, "metadata", kg_json_clone(a, md));
    return out;
}

/* the round-trip annotations removed (annotations dropped when none is left) */
static void drop_round_trip(kg_json *obj)
{
    kg_json *md = kg_json_get(obj, "metadata");
    kg_json *ann = is_obj(md) ? kg_json_get(md, "annotations") : NULL;
    if (!is_obj(ann))
        return;
    kg_json_del(ann, ANN_METRICS);
    kg_json_del(ann, ANN_CURRENT);
    kg_json_del(ann, ANN_CONDITIONS);
    kg_json_del(ann, ANN_BEHAVIOR);
    if (!ann->len)
        kg_json_del(md, "annotations");
}

static void annotate(kg_arena *a, kg_json *obj, const char *key, const kg_json *v)
{
    kg_json *md = kg_json_get_or_add_object(a, obj, "metadata");
    kg_json *ann = kg_json_get_or_add_object(a, md, "annotations");
    kg_json_set(a, ann, key, kg_json_new_str(a, kg_json_to_string(a, v, KG_JSON_WRITE_NO_ESCAPE_HTML, NULL)));
}

/* the JSON an annotation holds, NULL when absent or not JSON */
static kg_json *annotation_json(kg_arena *a, const kg_json *obj, const char *key)
{
    kg_json *ann = kg_json_path(obj, "metadata.annotations");
    const char *s = is_obj(ann) ? kg_json_get_str(ann, key) : NULL;
    if (!s)
        return NULL;
    kg_error err;
    return kg_json_parse(a, s, strlen(s), &err);
}

static bool is_cpu_resource(const kg_json *m)
{
    return !strcmp(str_of(m, "type"), "Resource") && is_obj(kg_json_get(m, "resource")) &&
           !strcmp(str_of(kg_json_get(m, "resource"), "name"), "cpu");
}

/* ---- metric specs: v2 <-> v1 (the annotation shape) ---- */

static kg_json *cross_ref(kg_arena *a, const kg_json *in)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "kind", kg_json_new_str(a, str_of(in, "kind")));
    kg_json_set(a, o, "name", kg_json_new_str(a, str_of(in, "name")));
    cp(a, o, "apiVersion", in, "apiVersion");
    return o;
}

static kg_json *metric_spec_to_v1(kg_arena *a, const kg_json *m)
{
    kg_json *o = kg_json_new_object(a);
    const char *type = str_of(m, "type");
    kg_json_set(a, o, "type", kg_json_new_str(a, type));
    if (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource")) {
        const char *key = type[0] == 'R' ? "resource" : "containerResource";
        kg_json *in = kg_json_get(m, key), *t = is_obj(in) ? kg_json_get(in, "target") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "name", kg_json_new_str(a, str_of(in, "name")));
        cp(a, r, "targetAverageUtilization", t, "averageUtilization");
        cp(a, r, "targetAverageValue", t, "averageValue");
        if (type[0] == 'C')
            kg_json_set(a, r, "container", kg_json_new_str(a, str_of(in, "container")));
        kg_json_set(a, o, key, r);
    } else if (!strcmp(type, "Pods")) {
        kg_json *in = kg_json_get(m, "pods");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL, *t = is_obj(in) ? kg_json_get(in, "target") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        qty(a, r, "targetAverageValue", t, "averageValue");
        cp(a, r, "selector", mi, "selector");
        kg_json_set(a, o, "pods", r);
    } else if (!strcmp(type, "Object")) {
        kg_json *in = kg_json_get(m, "object");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL, *t = is_obj(in) ? kg_json_get(in, "target") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "target", cross_ref(a, is_obj(in) ? kg_json_get(in, "describedObject") : NULL));
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        qty(a, r, "targetValue", t, "value");
        cp(a, r, "selector", mi, "selector");
        cp(a, r, "averageValue", t, "averageValue");
        kg_json_set(a, o, "object", r);
    } else if (!strcmp(type, "External")) {
        kg_json *in = kg_json_get(m, "external");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL, *t = is_obj(in) ? kg_json_get(in, "target") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        cp(a, r, "metricSelector", mi, "selector");
        cp(a, r, "targetValue", t, "value");
        cp(a, r, "targetAverageValue", t, "averageValue");
        kg_json_set(a, o, "external", r);
    }
    return o;
}

static kg_json *metric_id(kg_arena *a, const kg_json *in, const char *name_key, const char *selector_key)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "name", kg_json_new_str(a, str_of(in, name_key)));
    cp(a, o, "selector", in, selector_key);
    return o;
}

static kg_json *metric_spec_to_v2(kg_arena *a, const kg_json *m)
{
    kg_json *o = kg_json_new_object(a);
    const char *type = str_of(m, "type");
    kg_json_set(a, o, "type", kg_json_new_str(a, type));
    kg_json *t = kg_json_new_object(a);
    if (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource")) {
        const char *key = type[0] == 'R' ? "resource" : "containerResource";
        kg_json *in = kg_json_get(m, key);
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "name", kg_json_new_str(a, str_of(in, "name")));
        bool util = is_obj(in) && kg_json_get(in, "targetAverageUtilization");
        kg_json_set(a, t, "type", sref(a, util ? "Utilization" : "AverageValue"));
        cp(a, t, "averageValue", in, "targetAverageValue");
        cp(a, t, "averageUtilization", in, "targetAverageUtilization");
        kg_json_set(a, r, "target", t);
        if (type[0] == 'C')
            kg_json_set(a, r, "container", kg_json_new_str(a, str_of(in, "container")));
        kg_json_set(a, o, key, r);
    } else if (!strcmp(type, "Pods")) {
        kg_json *in = kg_json_get(m, "pods");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "selector"));
        kg_json_set(a, t, "type", sref(a, "AverageValue"));
        qty(a, t, "averageValue", in, "targetAverageValue");
        kg_json_set(a, r, "target", t);
        kg_json_set(a, o, "pods", r);
    } else if (!strcmp(type, "Object")) {
        kg_json *in = kg_json_get(m, "object");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "describedObject", cross_ref(a, is_obj(in) ? kg_json_get(in, "target") : NULL));
        bool avg = is_obj(in) && kg_json_get(in, "averageValue");
        kg_json_set(a, t, "type", sref(a, avg ? "AverageValue" : "Value"));
        qty(a, t, "value", in, "targetValue");
        cp(a, t, "averageValue", in, "averageValue");
        kg_json_set(a, r, "target", t);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "selector"));
        kg_json_set(a, o, "object", r);
    } else if (!strcmp(type, "External")) {
        kg_json *in = kg_json_get(m, "external");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "metricSelector"));
        bool avg = is_obj(in) && kg_json_get(in, "targetAverageValue");
        kg_json_set(a, t, "type", sref(a, avg ? "AverageValue" : "Value"));
        cp(a, t, "value", in, "targetValue");
        cp(a, t, "averageValue", in, "targetAverageValue");
        kg_json_set(a, r, "target", t);
        kg_json_set(a, o, "external", r);
    }
    return o;
}

/* ---- metric statuses ---- */

static kg_json *metric_status_to_v1(kg_arena *a, const kg_json *m)
{
    kg_json *o = kg_json_new_object(a);
    const char *type = str_of(m, "type");
    kg_json_set(a, o, "type", kg_json_new_str(a, type));
    if (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource")) {
        const char *key = type[0] == 'R' ? "resource" : "containerResource";
        kg_json *in = kg_json_get(m, key), *c = is_obj(in) ? kg_json_get(in, "current") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "name", kg_json_new_str(a, str_of(in, "name")));
        cp(a, r, "currentAverageUtilization", c, "averageUtilization");
        qty(a, r, "currentAverageValue", c, "averageValue");
        if (type[0] == 'C')
            kg_json_set(a, r, "container", kg_json_new_str(a, str_of(in, "container")));
        kg_json_set(a, o, key, r);
    } else if (!strcmp(type, "Pods")) {
        kg_json *in = kg_json_get(m, "pods");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL,
                *c = is_obj(in) ? kg_json_get(in, "current") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        qty(a, r, "currentAverageValue", c, "averageValue");
        cp(a, r, "selector", mi, "selector");
        kg_json_set(a, o, "pods", r);
    } else if (!strcmp(type, "Object")) {
        kg_json *in = kg_json_get(m, "object");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL,
                *c = is_obj(in) ? kg_json_get(in, "current") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "target", cross_ref(a, is_obj(in) ? kg_json_get(in, "describedObject") : NULL));
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        qty(a, r, "currentValue", c, "value");
        cp(a, r, "selector", mi, "selector");
        cp(a, r, "averageValue", c, "averageValue");
        kg_json_set(a, o, "object", r);
    } else if (!strcmp(type, "External")) {
        kg_json *in = kg_json_get(m, "external");
        kg_json *mi = is_obj(in) ? kg_json_get(in, "metric") : NULL,
                *c = is_obj(in) ? kg_json_get(in, "current") : NULL;
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metricName", kg_json_new_str(a, str_of(mi, "name")));
        cp(a, r, "metricSelector", mi, "selector");
        qty(a, r, "currentValue", c, "value");
        cp(a, r, "currentAverageValue", c, "averageValue");
        kg_json_set(a, o, "external", r);
    }
    return o;
}

static kg_json *metric_status_to_v2(kg_arena *a, const kg_json *m)
{
    kg_json *o = kg_json_new_object(a);
    const char *type = str_of(m, "type");
    kg_json_set(a, o, "type", kg_json_new_str(a, type));
    kg_json *c = kg_json_new_object(a);
    if (!strcmp(type, "Resource") || !strcmp(type, "ContainerResource")) {
        const char *key = type[0] == 'R' ? "resource" : "containerResource";
        kg_json *in = kg_json_get(m, key);
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "name", kg_json_new_str(a, str_of(in, "name")));
        qty(a, c, "averageValue", in, "currentAverageValue");
        cp(a, c, "averageUtilization", in, "currentAverageUtilization");
        kg_json_set(a, r, "current", c);
        if (type[0] == 'C')
            kg_json_set(a, r, "container", kg_json_new_str(a, str_of(in, "container")));
        kg_json_set(a, o, key, r);
    } else if (!strcmp(type, "Pods")) {
        kg_json *in = kg_json_get(m, "pods");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "selector"));
        qty(a, c, "averageValue", in, "currentAverageValue");
        kg_json_set(a, r, "current", c);
        kg_json_set(a, o, "pods", r);
    } else if (!strcmp(type, "Object")) {
        kg_json *in = kg_json_get(m, "object");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "selector"));
        qty(a, c, "value", in, "currentValue");
        cp(a, c, "averageValue", in, "averageValue");
        kg_json_set(a, r, "current", c);
        kg_json_set(a, r, "describedObject", cross_ref(a, is_obj(in) ? kg_json_get(in, "target") : NULL));
        kg_json_set(a, o, "object", r);
    } else if (!strcmp(type, "External")) {
        kg_json *in = kg_json_get(m, "external");
        kg_json *r = kg_json_new_object(a);
        kg_json_set(a, r, "metric", metric_id(a, in, "metricName", "metricSelector"));
        qty(a, c, "value", in, "currentValue");
        cp(a, c, "averageValue", in, "currentAverageValue");
        kg_json_set(a, r, "current", c);
        kg_json_set(a, o, "external", r);
    }
    return o;
}

/* ---- behavior: v2 JSON <-> the internal Go type's JSON (no json tags: Go field names) ---- */

static const char *const behavior_names[][2] = {
    {"scaleUp", "ScaleUp"},
    {"scaleDown", "ScaleDown"},
    {"stabilizationWindowSeconds", "StabilizationWindowSeconds"},
    {"selectPolicy", "SelectPolicy"},
    {"policies", "Policies"},
    {"tolerance", "Tolerance"},
    {"type", "Type"},
    {"value", "Value"},
    {"periodSeconds", "PeriodSeconds"},
};

static kg_json *scaling_rules_internal(kg_arena *a, const kg_json *in)
{
    if (!is_obj(in))
        return kg_json_new_null(a);
    kg_json *o = kg_json_new_object(a);
    static const char *const keys[] = {"stabilizationWindowSeconds", "selectPolicy", "policies", "tolerance"};
    for (size_t i = 0; i < 4; i++) {
        const char *gk = NULL;
        for (size_t k = 0; k < sizeof behavior_names / sizeof behavior_names[0]; k++)
            if (!strcmp(behavior_names[k][0], keys[i]))
                gk = behavior_names[k][1];
        kg_json *v = kg_json_get(in, keys[i]);
        if (!strcmp(keys[i], "policies") && is_arr(v)) {
            kg_json *arr = kg_json_new_array(a);
            for (uint32_t p = 0; p < v->len; p++) {
                kg_json *po = kg_json_new_object(a);
                cp(a, po, "Type", v->u.items[p], "type");
                cp(a, po, "Value", v->u.items[p], "value");
                cp(a, po, "PeriodSeconds", v->u.items[p], "periodSeconds");
                kg_json_array_append(a, arr, po);
            }
            kg_json_set(a, o, gk, arr);
        } else
            kg_json_set(a, o, gk, v ? kg_json_clone(a, v) : kg_json_new_null(a));
    }
    return o;
}

static kg_json *behavior_to_internal(kg_arena *a, const kg_json *b)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "ScaleUp", scaling_rules_internal(a, kg_json_get(b, "scaleUp")));
    kg_json_set(a, o, "ScaleDown", scaling_rules_internal(a, kg_json_get(b, "scaleDown")));
    return o;
}

/* Go's json.Unmarshal matches field names case-insensitively: accept both spellings; nulls are unset */
static kg_json *behavior_from_internal(kg_arena *a, const kg_json *in)
{
    if (in->type == KG_JSON_ARRAY) {
        kg_json *arr = kg_json_new_array(a);
        for (uint32_t i = 0; i < in->len; i++)
            kg_json_array_append(a, arr, behavior_from_internal(a, in->u.items[i]));
        return arr;
    }
    if (in->type != KG_JSON_OBJECT)
        return kg_json_clone(a, in);
    kg_json *o = kg_json_new_object(a);
    for (uint32_t i = 0; i < in->len; i++) {
        const char *k = in->u.members[i].key;
        const kg_json *v = in->u.members[i].val;
        if (v->type == KG_JSON_NULL)
            continue;
        const char *name = NULL;
        for (size_t n = 0; n < sizeof behavior_names / sizeof behavior_names[0]; n++)
            if (!strcasecmp(behavior_names[n][0], k))
                name = behavior_names[n][0];
        if (name)
            kg_json_set(a, o, name, behavior_from_internal(a, v));
    }
    return o;
}

/* ---- the objects ---- */

kg_json *kg_convert_hpa_v2_to_v1(kg_arena *a, const kg_json *in)
{
    kg_json *out = head(a, in, "autoscaling/v1");
    drop_round_trip(out);
    kg_json *spec = kg_json_get(in, "spec"), *status = kg_json_get(in, "status");
    kg_json *metrics = is_obj(spec) ? kg_json_get(spec, "metrics") : NULL;
    kg_json *os = kg_json_new_object(a);
    cp(a, os, "scaleTargetRef", spec, "scaleTargetRef");
    cp(a, os, "minReplicas", spec, "minReplicas");
    cp(a, os, "maxReplicas", spec, "maxReplicas");
    kg_json *others = kg_json_new_array(a);
    bool cpu_seen = false;
    for (uint32_t i = 0; is_arr(metrics) && i < metrics->len; i++) {
        const kg_json *m = metrics->u.items[i];
        kg_json *t = is_cpu_resource(m) ? kg_json_path(m, "resource.target") : NULL;
        bool util = is_obj(t) && kg_json_get(t, "averageUtilization");
        if (is_cpu_resource(m) && !cpu_seen) {
            cpu_seen = true; /* the first CPU metric names the v1 target */
            if (util)
                cp(a, os, "targetCPUUtilizationPercentage", t, "averageUtilization");
        }
        if (util)
            continue;
        kg_json_array_append(a, others, metric_spec_to_v1(a, m));
    }
    kg_json_set(a, out, "spec", os);

    kg_json *ost = kg_json_new_object(a);
    cp(a, ost, "observedGeneration", status, "observedGeneration");
    cp(a, ost, "lastScaleTime", status, "lastScaleTime");
    kg_json_set(a, ost, "currentReplicas", kg_json_new_int(a, 0));
    cp(a, ost, "currentReplicas", status, "currentReplicas");
    kg_json_set(a, ost, "desiredReplicas", kg_json_new_int(a, 0));
    cp(a, ost, "desiredReplicas", status, "desiredReplicas");
    kg_json *cur = is_obj(status) ? kg_json_get(status, "currentMetrics") : NULL;
    kg_json *cur_v1 = kg_json_new_array(a);
    for (uint32_t i = 0; is_arr(cur) && i < cur->len; i++) {
        const kg_json *m = cur->u.items[i];
        if (is_cpu_resource(m))
            cp(a, ost, "currentCPUUtilizationPercentage", kg_json_path(m, "resource.current"), "averageUtilization");
        kg_json_array_append(a, cur_v1, metric_status_to_v1(a, m));
    }
    kg_json_set(a, out, "status", ost);

    if (others->len)
        annotate(a, out, ANN_METRICS, others);
    if (cur_v1->len)
        annotate(a, out, ANN_CURRENT, cur_v1);
    kg_json *behavior = is_obj(spec) ? kg_json_get(spec, "behavior") : NULL;
    if (is_obj(behavior))
        annotate(a, out, ANN_BEHAVIOR, behavior_to_internal(a, behavior));
    kg_json *conds = is_obj(status) ? kg_json_get(status, "conditions") : NULL;
    if (is_arr(conds) && conds->len)
        annotate(a, out, ANN_CONDITIONS, conds);
    return out;
}

kg_json *kg_convert_hpa_v1_to_v2(kg_arena *a, const kg_json *in)
{
    kg_json *out = head(a, in, "autoscaling/v2");
    kg_json *spec = kg_json_get(in, "spec"), *status = kg_json_get(in, "status");
    kg_json *os = kg_json_new_object(a);
    cp(a, os, "scaleTargetRef", spec, "scaleTargetRef");
    cp(a, os, "minReplicas", spec, "minReplicas");
    cp(a, os, "maxReplicas", spec, "maxReplicas");
    kg_json *metrics = kg_json_new_array(a);
    kg_json *others = annotation_json(a, in, ANN_METRICS);
    for (uint32_t i = 0; is_arr(others) && i < others->len; i++)
        kg_json_array_append(a, metrics, metric_spec_to_v2(a, others->u.items[i]));
    kg_json *cpu = is_obj(spec) ? kg_json_get(spec, "targetCPUUtilizationPercentage") : NULL;
    if (cpu && cpu->type != KG_JSON_NULL) {
        kg_json *m = kg_json_new_object(a), *r = kg_json_new_object(a), *t = kg_json_new_object(a);
        kg_json_set(a, m, "type", sref(a, "Resource"));
        kg_json_set(a, r, "name", sref(a, "cpu"));
        kg_json_set(a, t, "type", sref(a, "Utilization"));
        kg_json_set(a, t, "averageUtilization", kg_json_clone(a, cpu));
        kg_json_set(a, r, "target", t);
        kg_json_set(a, m, "resource", r);
        kg_json_array_append(a, metrics, m);
    }
    if (metrics->len)
        kg_json_set(a, os, "metrics", metrics);
    kg_json *behavior = annotation_json(a, in, ANN_BEHAVIOR);
    if (is_obj(behavior))
        kg_json_set(a, os, "behavior", behavior_from_internal(a, behavior));
    kg_json_set(a, out, "spec", os);

    if (is_obj(status)) {
        kg_json *ost = kg_json_new_object(a);
        cp(a, ost, "observedGeneration", status, "observedGeneration");
        cp(a, ost, "lastScaleTime", status, "lastScaleTime");
        kg_json *cr = kg_json_get(status, "currentReplicas");
        if (cr && !(cr->type == KG_JSON_INT && cr->u.i == 0)) /* omitempty in v2 */
            cp(a, ost, "currentReplicas", status, "currentReplicas");
        kg_json_set(a, ost, "desiredReplicas", kg_json_new_int(a, 0));
        cp(a, ost, "desiredReplicas", status, "desiredReplicas");
        kg_json *cur = kg_json_new_array(a);
        kg_json *cur_ann = annotation_json(a, in, ANN_CURRENT);
        if (is_arr(cur_ann)) { /* the annotation has more than the CPU percentage: it wins */
            for (uint32_t i = 0; i < cur_ann->len; i++)
                kg_json_array_append(a, cur, metric_status_to_v2(a, cur_ann->u.items[i]));
        } else {
            kg_json *pct = kg_json_get(status, "currentCPUUtilizationPercentage");
            if (pct && pct->type != KG_JSON_NULL) {
                kg_json *m = kg_json_new_object(a), *r = kg_json_new_object(a), *c = kg_json_new_object(a);
                kg_json_set(a, m, "type", sref(a, "Resource"));
                kg_json_set(a, r, "name", sref(a, "cpu"));
                kg_json_set(a, c, "averageUtilization", kg_json_clone(a, pct));
                kg_json_set(a, r, "current", c);
                kg_json_set(a, m, "resource", r);
                kg_json_array_append(a, cur, m);
            }
        }
        if (cur->len)
            kg_json_set(a, ost, "currentMetrics", cur);
        kg_json *conds = annotation_json(a, in, ANN_CONDITIONS);
        if (is_arr(conds) && conds->len)
            kg_json_set(a, ost, "conditions", conds);
        kg_json_set(a, out, "status", ost);
    }
    drop_round_trip(out);
    return out;
}
