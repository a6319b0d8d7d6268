#include "server/selectors.h"

#include <string.h>

#include "api/dynamic.h"

/* Field labels each resource supports besides metadata.name / metadata.namespace (AddFieldLabelConversionFunc
 * registrations in pkg/apis/<group>/v1/conversion.go). */
static const char *const pod_fields[] = {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                                         "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                                         "status.podIP", "status.podIPs", "status.nominatedNodeName", NULL};
static const char *const event_fields[] = {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                                           "involvedObject.uid", "involvedObject.apiVersion",
                                           "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
                                           "reportingComponent", "source", "type", NULL};
/* events.k8s.io/v1 (pkg/apis/events/v1 field label conversions: the core fields under their events.k8s.io names;
 * matched on the converted object, api/versions.h) */
static const char *const events_fields[] = {"regarding.kind", "regarding.namespace", "regarding.name",
                                            "regarding.uid", "regarding.apiVersion", "regarding.resourceVersion",
                                            "regarding.fieldPath", "reason", "reportingController", "type", NULL};
static const char *const secret_fields[] = {"type", NULL};
static const char *const node_fields[] = {"spec.unschedulable", NULL};
static const char *const ns_fields[] = {"status.phase", NULL};
static const char *const rs_fields[] = {"status.replicas", NULL};
static const char *const job_fields[] = {"status.successful", NULL};
static const char *const csr_fields[] = {"spec.signerName", NULL};

static const char *const *extra_fields(const kg_resource *r)
{
    if (!r->group[0]) {
        if (!strcmp(r->plural, "pods"))
            return pod_fields;
        if (!strcmp(r->plural, "events"))
            return event_fields;
        if (!strcmp(r->plural, "secrets"))
            return secret_fields;
        if (!strcmp(r->plural, "nodes"))
            return node_fields;
        if (!strcmp(r->plural, "namespaces"))
            return ns_fields;
        if (!strcmp(r->plural, "replicationcontrollers"))
            return rs_fields;
    }
    if (!strcmp(r->group, "events.k8s.io") && !strcmp(r->plural, "events"))
        return events_fields;
    if (!strcmp(r->plural, "replicasets"))
        return rs_fields;
    if (!strcmp(r->plural, "jobs"))
        return job_fields;
    if (!strcmp(r->plural, "certificatesigningrequests"))
        return csr_fields;
    return NULL;
}

static bool field_supported(const kg_resource *r, const char *f)
{
    if (!strcmp(f, "metadata.name") || !strcmp(f, "metadata.namespace"))
        return true;
    const kg_dynamic_info *info = r->ext ? kg_dynamic_info_of(r) : NULL; /* a CRD's selectableFields */
    for (size_t i = 0; info && i < info->nselectable; i++)
        if (!strcmp(info->selectable[i], f))
            return true;
    const char *const *ex = extra_fields(r);
    for (; ex && *ex; ex++)
        if (!strcmp(*ex, f))
            return true;
    return false;
}

bool kg_selectors_parse(kg_arena *a, const char *label_sel, const char *field_sel, const kg_resource *r,
                        kg_selectors *out, kg_error *err)
{
    memset(out, 0, sizeof *out);
    out->arena = a;
    if (!kg_labels_parse(a, label_sel ? label_sel : "", &out->labels, err))
        return false;
    if (!kg_fields_parse(a, field_sel ? field_sel : "", &out->fields, err))
        return false;
    for (size_t i = 0; i < out->fields.n; i++)
        if (!field_supported(r, out->fields.reqs[i].field))
            return kg_err_set(err, KG_EINVAL, "field label not supported: %s", out->fields.reqs[i].field);
    out->empty = kg_labels_empty(&out->labels) && kg_fields_empty(&out->fields);
    return true;
}

bool kg_selectors_match(const kg_selectors *s, const kg_json *obj)
{
    if (s->empty)
        return true;
    if (!kg_labels_matches_object(&s->labels, obj))
        return false;
    if (!kg_fields_empty(&s->fields) && !kg_fields_matches_object(s->arena, &s->fields, obj))
        return false;
    return true;
}
