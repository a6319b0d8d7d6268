/* core/v1 Event <-> events.k8s.io/v1 Event (upstream pkg/apis/events/v1/conversion.go through the internal type).
 *
 *   events.k8s.io/v1            core/v1
 *   regarding                   involvedObject
 *   note                        message
 *   reportingController         reportingComponent
 *   deprecatedSource            source
 *   deprecatedFirstTimestamp    firstTimestamp
 *   deprecatedLastTimestamp     lastTimestamp
 *   deprecatedCount             count
 *   eventTime, series, related, action, reason, type, reportingInstance: same names
 *
 * Members come out in the order the Go types serialize them; the struct-valued references (regarding /
 * involvedObject, deprecatedSource / source) and the timestamps are always present, as encoding/json writes
 * them (a zero metav1.Time is null). */
#include <string.h>

#include "api/versions.h"

typedef struct {
    const char *events, *core;
    int always; /* 1: {} when absent, 2: null when absent, 0: omitted when absent */
} field_map;

/* in events.k8s.io/v1 order */
static const field_map events_order[] = {
    {"eventTime", "eventTime", 2},
    {"series", "series", 0},
    {"reportingController", "reportingComponent", 0},
    {"reportingInstance", "reportingInstance", 0},
    {"action", "action", 0},
    {"reason", "reason", 0},
    {"regarding", "involvedObject", 1},
    {"related", "related", 0},
    {"note", "message", 0},
    {"type", "type", 0},
    {"deprecatedSource", "source", 1},
    {"deprecatedFirstTimestamp", "firstTimestamp", 2},
    {"deprecatedLastTimestamp", "lastTimestamp", 2},
    {"deprecatedCount", "count", 0},
};

/* in core/v1 order (indexes into events_order) */
static const int core_order[] = {6, 5, 8, 10, 11, 12, 13, 9, 0, 1, 4, 7, 2, 3};

static kg_json *head(kg_arena *a, const kg_json *in, const char *api_version)
{
    kg_json *out = kg_json_new_object(a);
    kg_json_set(a, out, "apiVersion", kg_json_new_str_ref(a, api_version, strlen(api_version)));
    kg_json_set(a, out, "kind", kg_json_new_str_ref(a, "Event", 5));
    kg_json *md = kg_json_get(in, "metadata");
    if (md)
        kg_json_set(a, out, "metadata", kg_json_clone(a, md));
    return out;
}

static void put(kg_arena *a, kg_json *out, const char *key, const kg_json *v, int always)
{
    if (v && !(always == 2 && v->type == KG_JSON_STRING && v->len == 0)) {
        /* a zero-valued count is omitted (omitempty int32) */
        if (always == 0 && v->type == KG_JSON_INT && v->u.i == 0 &&
            (!strcmp(key, "count") || !strcmp(key, "deprecatedCount")))
            return;
        kg_json_set(a, out, key, kg_json_clone(a, v));
    } else if (always == 1)
        kg_json_set(a, out, key, kg_json_new_object(a));
    else if (always == 2)
        kg_json_set(a, out, key, kg_json_new_null(a));
}

kg_json *kg_convert_event_events_to_core(kg_arena *a, const kg_json *in)
{
    kg_json *out = head(a, in, "v1");
    for (size_t i = 0; i < sizeof core_order / sizeof core_order[0]; i++) {
        const field_map *f = &events_order[core_order[i]];
        put(a, out, f->core, kg_json_get(in, f->events), f->always);
    }
    return out;
}

kg_json *kg_convert_event_core_to_events(kg_arena *a, const kg_json *in)
{
    kg_json *out = head(a, in, "events.k8s.io/v1");
    for (size_t i = 0; i < sizeof events_order / sizeof events_order[0]; i++) {
        const field_map *f = &events_order[i];
        put(a, out, f->events, kg_json_get(in, f->core), f->always);
    }
    return out;
}
