/* Event validation (upstream pkg/apis/core/validation/events.go), for core/v1 and events.k8s.io/v1 alike: both
 * are validated as the internal (core-shaped) object, with the field names of upstream's messages — the internal
 * ones (involvedObject, message, reportingController), except that core/v1 requests name the reporting field
 * reportingComponent. Requests through events.k8s.io/v1 get the strict checks on top (eventTime required, type
 * Normal or Warning, the deprecated fields unset, series well-formed; and on update most fields immutable). */
#include <stdio.h>
#include <string.h>

#include "api/validation.h"
#include "api/versions.h"
#include "meta/names.h"

#define REPORTING_INSTANCE_LIMIT 128
#define ACTION_LIMIT 128
#define REASON_LIMIT 128
#define NOTE_LIMIT 1024

static size_t slen(const char *s)
{
    return s ? strlen(s) : 0;
}

static bool unset(const kg_json *v)
{
    return !v || v->type == KG_JSON_NULL || (v->type == KG_JSON_STRING && v->len == 0);
}

static void too_long(kg_arena *a, kg_field_errors *errs, const char *field, int limit)
{
    kg_field_invalid(a, errs, field, "", kg_arena_sprintf(a, "can have at most %d characters", limit));
}

/* legacyValidateEvent */
static void validate_legacy(kg_arena *a, const kg_json *ev, bool core_request, kg_field_errors *errs)
{
    const char *ns = kg_json_path_str(ev, "metadata.namespace");
    const char *ions = kg_json_path_str(ev, "involvedObject.namespace");
    ns = ns ? ns : "";
    ions = ions ? ions : "";
    if (unset(kg_json_get(ev, "eventTime"))) {
        bool ok = ions[0] ? !strcmp(ns, ions) : (!ns[0] || !strcmp(ns, "default"));
        if (!ok)
            kg_field_invalid(a, errs, "involvedObject.namespace", ions, "does not match event.namespace");
    } else {
        const char *rc_field = core_request ? "reportingComponent" : "reportingController";
        if (!ions[0] && strcmp(ns, "default") && strcmp(ns, "kube-system"))
            kg_field_invalid(a, errs, "involvedObject.namespace", ions, "does not match event.namespace");
        const char *rc = kg_json_get_str(ev, "reportingComponent");
        if (!slen(rc))
            kg_field_required(a, errs, rc_field, "");
        kg_name_errs ne;
        if (!kg_is_qualified_name(rc ? rc : "", &ne))
            for (size_t i = 0; i < ne.n; i++) /* one error per message, as ValidateQualifiedName */
                kg_field_invalid(a, errs, rc_field, rc ? rc : "", ne.msg[i]);
        const char *ri = kg_json_get_str(ev, "reportingInstance");
        if (!slen(ri))
            kg_field_required(a, errs, "reportingInstance", "");
        if (slen(ri) > REPORTING_INSTANCE_LIMIT)
            too_long(a, errs, "reportingInstance", REPORTING_INSTANCE_LIMIT);
        const char *action = kg_json_get_str(ev, "action");
        if (!slen(action))
            kg_field_required(a, errs, "action", "");
        if (slen(action) > ACTION_LIMIT)
            too_long(a, errs, "action", ACTION_LIMIT);
        const char *reason = kg_json_get_str(ev, "reason");
        if (!slen(reason))
            kg_field_required(a, errs, "reason", "");
        if (slen(reason) > REASON_LIMIT)
            too_long(a, errs, "reason", REASON_LIMIT);
        if (slen(kg_json_get_str(ev, "message")) > NOTE_LIMIT)
            too_long(a, errs, "message", NOTE_LIMIT);
    }
    kg_name_errs ne;
    if (!kg_is_dns1123_subdomain(ns, &ne))
        for (size_t i = 0; i < ne.n; i++)
            kg_field_invalid(a, errs, "namespace", ns, ne.msg[i]);
}

/* validateV1EventSeries */
static void validate_series(kg_arena *a, const kg_json *ev, kg_field_errors *errs)
{
    const kg_json *series = kg_json_get(ev, "series");
    if (!series || series->type != KG_JSON_OBJECT)
        return;
    const kg_json *count = kg_json_get(series, "count");
    if (!count || count->type != KG_JSON_INT || count->u.i < 2)
        kg_field_invalid(a, errs, "series.count", "", "should be at least 2");
    if (unset(kg_json_get(series, "lastObservedTime")))
        kg_field_required(a, errs, "series.lastObservedTime", "");
}

static void immutable(kg_arena *a, const kg_json *ev, const kg_json *old, const char *field, const char *path,
                      kg_field_errors *errs)
{
    const kg_json *n = kg_json_get(ev, field), *o = kg_json_get(old, field);
    bool same = (unset(n) && unset(o)) || (n && o && kg_json_equal(n, o));
    if (!same)
        kg_field_invalid_raw(a, errs, path, n ? kg_json_to_string(a, n, 0, NULL) : "null", "field is immutable");
}

void kg_api_validate_event(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                           kg_field_errors *errs)
{
    bool core_request = !r->group[0];
    /* the internal object is core-shaped */
    const kg_json *ev = core_request ? obj : kg_convert_event_events_to_core(a, obj);
    const kg_json *oev = !old || core_request ? old : kg_convert_event_events_to_core(a, old);
    validate_legacy(a, ev, core_request, errs);
    if (core_request)
        return;
    if (!old) {
        validate_series(a, ev, errs);
        if (unset(kg_json_get(ev, "eventTime")))
            kg_field_required(a, errs, "eventTime", "");
        const char *type = kg_json_get_str(ev, "type");
        if (!type || (strcmp(type, "Normal") && strcmp(type, "Warning")))
            kg_field_invalid(a, errs, "type", "", kg_arena_sprintf(a, "has invalid value: %s", type ? type : ""));
        if (!unset(kg_json_get(ev, "firstTimestamp")))
            kg_field_invalid(a, errs, "deprecatedFirstTimestamp", "", "needs to be unset");
        if (!unset(kg_json_get(ev, "lastTimestamp")))
            kg_field_invalid(a, errs, "deprecatedLastTimestamp", "", "needs to be unset");
        const kg_json *count = kg_json_get(ev, "count");
        if (count && count->type == KG_JSON_INT && count->u.i != 0)
            kg_field_invalid(a, errs, "deprecatedCount", "", "needs to be unset");
        const kg_json *src = kg_json_get(ev, "source");
        if (src && (slen(kg_json_get_str(src, "component")) || slen(kg_json_get_str(src, "host"))))
            kg_field_invalid(a, errs, "deprecatedSource", "", "needs to be unset");
        return;
    }
    /* ValidateEventUpdate */
    if (!kg_json_equal(kg_json_get(ev, "series"), kg_json_get(oev, "series")))
        validate_series(a, ev, errs);
    static const char *const fixed[] = {
        "involvedObject", "reason",    "message", "source",  "firstTimestamp",     "lastTimestamp",    "count",
        "type",           "eventTime", "action",  "related", "reportingComponent", "reportingInstance"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        immutable(a, ev, oev, fixed[i], !strcmp(fixed[i], "reportingComponent") ? "reportingController" : fixed[i],
                  errs);
}
