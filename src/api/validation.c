#include "api/validation.h"

#include "api/validation_internal.h"

#include <stdio.h>
#include <string.h>

#include "meta/names.h"

static bool is(const kg_resource *r, const char *group, const char *plural)
{
    return !strcmp(r->group, group) && !strcmp(r->plural, plural);
}

static kg_name_validator name_validator(const kg_resource *r, bool update)
{
    /* ValidateStatefulSetName: a DNS label since v1.27 (pods' hostnames derive from it); an update does not
     * revalidate the name, so older subdomain names can still be updated and deleted */
    if (is(r, "", "namespaces") || (is(r, "apps", "statefulsets") && !update))
        return kg_name_is_dns_label;
    if (is(r, "", "services"))
        return kg_name_is_dns1035_label;
    /* ValidateCertificateRequestName: "We don't care what you call your certificate requests" (only the path
     * segment rules every name obeys) */
    if (!strcmp(r->group, "rbac.authorization.k8s.io") || is(r, "certificates.k8s.io", "certificatesigningrequests"))
        return kg_name_is_path_segment;
    return kg_name_is_dns_subdomain;
}

static void validate_container(kg_arena *a, const kg_json *c, const char *path, bool need_image, kg_field_errors *errs)
{
    const char *name = kg_json_get_str(c, "name");
    if (!name || !name[0]) {
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.name", path), NULL);
    } else {
        kg_name_errs ne = {0};
        if (!kg_is_dns1123_label(name, &ne))
            kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s.name", path), name, kg_name_errs_join(a, &ne, ", "));
    }
    const char *image = kg_json_get_str(c, "image");
    if (need_image && (!image || !image[0]))
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.image", path), NULL);
    kg_json *ports = kg_json_get(c, "ports");
    if (ports && ports->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < ports->len; i++) {
            kg_json *p = kg_json_get(ports->u.items[i], "containerPort");
            char *pp = kg_arena_sprintf(a, "%s.ports[%u].containerPort", path, i);
            if (!p || p->type != KG_JSON_INT)
                kg_field_required(a, errs, pp, NULL);
            else if (!kg_is_valid_port_num(p->u.i, NULL))
                kg_field_invalid_int(a, errs, pp, p->u.i, KG_MSG_PORT_NUM);
            const char *proto = kg_json_get_str(ports->u.items[i], "protocol");
            if (proto && strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP")) {
                static const char *const valid[] = {"SCTP", "TCP", "UDP"};
                kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.ports[%u].protocol", path, i), proto, valid,
                                       3);
            }
        }
    const char *pol = kg_json_get_str(c, "imagePullPolicy");
    if (pol && strcmp(pol, "Always") && strcmp(pol, "IfNotPresent") && strcmp(pol, "Never")) {
        static const char *const valid[] = {"Always", "IfNotPresent", "Never"};
        kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.imagePullPolicy", path), pol, valid, 3);
    }
}

static void validate_containers(kg_arena *a, const kg_json *spec, const char *list, const char *path, bool required,
                                kg_field_errors *errs, const char **names, size_t *nnames)
{
    kg_json *cs = kg_json_get(spec, list);
    char *lp = kg_arena_sprintf(a, "%s.%s", path, list);
    if (!cs || cs->type != KG_JSON_ARRAY || !cs->len) {
        if (required)
            kg_field_required(a, errs, lp, NULL);
        return;
    }
    for (uint32_t i = 0; i < cs->len; i++) {
        char *cp = kg_arena_sprintf(a, "%s[%u]", lp, i);
        validate_container(a, cs->u.items[i], cp, true, errs);
        const char *n = kg_json_get_str(cs->u.items[i], "name");
        if (!n || !n[0])
            continue;
        for (size_t k = 0; k < *nnames; k++)
            if (!strcmp(names[k], n)) {
                kg_field_duplicate(a, errs, kg_arena_sprintf(a, "%s.name", cp), n);
                break;
            }
        if (*nnames < 256)
            names[(*nnames)++] = n;
    }
}

static void validate_pod_spec(kg_arena *a, const kg_json *spec, const char *path, bool template_of_workload,
                              kg_field_errors *errs)
{
    if (!spec || spec->type != KG_JSON_OBJECT) {
        kg_field_required(a, errs, kg_arena_sprintf(a, "%s.containers", path), NULL);
        return;
    }
    const char *names[256];
    size_t nnames = 0;
    validate_containers(a, spec, "containers", path, true, errs, names, &nnames);
    validate_containers(a, spec, "initContainers", path, false, errs, names, &nnames);
    const char *rp = kg_json_get_str(spec, "restartPolicy");
    if (rp && strcmp(rp, "Always") && strcmp(rp, "OnFailure") && strcmp(rp, "Never")) {
        static const char *const valid[] = {"Always", "Never", "OnFailure"};
        kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.restartPolicy", path), rp, valid, 3);
    }
    const char *dp = kg_json_get_str(spec, "dnsPolicy");
    if (dp && strcmp(dp, "ClusterFirstWithHostNet") && strcmp(dp, "ClusterFirst") && strcmp(dp, "Default") &&
        strcmp(dp, "None")) {
        static const char *const valid[] = {"ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"};
        kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.dnsPolicy", path), dp, valid, 4);
    }
    kg_json *vols = kg_json_get(spec, "volumes");
    if (vols && vols->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < vols->len; i++) {
            const char *vn = kg_json_get_str(vols->u.items[i], "name");
            char *vp = kg_arena_sprintf(a, "%s.volumes[%u].name", path, i);
            kg_name_errs ne = {0};
            if (!vn || !vn[0])
                kg_field_required(a, errs, vp, NULL);
            else if (!kg_is_dns1123_label(vn, &ne))
                kg_field_invalid(a, errs, vp, vn, kg_name_errs_join(a, &ne, ", "));
        }
    kg_json *tgp = kg_json_get(spec, "terminationGracePeriodSeconds");
    if (tgp && tgp->type == KG_JSON_INT && tgp->u.i < 0 && !template_of_workload)
        kg_field_invalid_int(a, errs, kg_arena_sprintf(a, "%s.terminationGracePeriodSeconds", path), tgp->u.i,
                             "must be greater than or equal to 0");
}

static bool labels_match_selector(const kg_json *sel, const kg_json *labels)
{
    kg_json *ml = kg_json_get(sel, "matchLabels");
    if (ml && ml->type == KG_JSON_OBJECT)
        for (uint32_t i = 0; i < ml->len; i++) {
            kg_json *lv = kg_json_get(labels, ml->u.members[i].key);
            if (!lv || !kg_json_equal(lv, ml->u.members[i].val))
                return false;
        }
    kg_json *me = kg_json_get(sel, "matchExpressions");
    if (me && me->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < me->len; i++) {
            const char *key = kg_json_get_str(me->u.items[i], "key");
            const char *op = kg_json_get_str(me->u.items[i], "operator");
            kg_json *vals = kg_json_get(me->u.items[i], "values");
            if (!key || !op)
                return false;
            const char *lv = kg_json_get_str(labels, key);
            bool in = false;
            if (lv && vals && vals->type == KG_JSON_ARRAY)
                for (uint32_t k = 0; k < vals->len; k++)
                    if (vals->u.items[k]->type == KG_JSON_STRING && !strcmp(vals->u.items[k]->u.s, lv))
                        in = true;
            if ((!strcmp(op, "In") && !in) || (!strcmp(op, "NotIn") && in) || (!strcmp(op, "Exists") && !lv) ||
                (!strcmp(op, "DoesNotExist") && lv))
                return false;
        }
    return true;
}

static void validate_workload(kg_arena *a, const kg_resource *r, const kg_json *obj, kg_field_errors *errs)
{
    const kg_json *spec = kg_json_get(obj, "spec");
    kg_json *rep = kg_json_get(spec, "replicas");
    if (rep && rep->type == KG_JSON_INT && rep->u.i < 0)
        kg_field_invalid_int(a, errs, "spec.replicas", rep->u.i, "must be greater than or equal to 0");
    const kg_json *tmpl = kg_json_get(spec, "template");
    if (is(r, "batch", "cronjobs"))
        tmpl = kg_json_path(spec, "jobTemplate.spec.template");
    const char *tpath = is(r, "batch", "cronjobs") ? "spec.jobTemplate.spec.template" : "spec.template";
    kg_json *sel = kg_json_get(spec, "selector");
    bool needs_selector = !strcmp(r->group, "apps");
    if (needs_selector) {
        if (!sel || sel->type != KG_JSON_OBJECT || (!kg_json_get(sel, "matchLabels") && !kg_json_get(sel, "matchExpressions")))
            kg_field_required(a, errs, "spec.selector", NULL);
        else if (!labels_match_selector(sel, kg_json_path(tmpl, "metadata.labels")))
            kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "%s.metadata.labels", tpath),
                                 kg_api_go_string_map(a, kg_json_path(tmpl, "metadata.labels")),
                                 "`selector` does not match template `labels`");
    }
    validate_pod_spec(a, kg_json_get(tmpl, "spec"), kg_arena_sprintf(a, "%s.spec", tpath), true, errs);
    if (is(r, "apps", "deployments") || is(r, "apps", "replicasets") || is(r, "apps", "statefulsets") ||
        is(r, "apps", "daemonsets")) {
        const char *rp = kg_json_path_str(tmpl, "spec.restartPolicy");
        if (rp && strcmp(rp, "Always")) {
            static const char *const valid[] = {"Always"};
            kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.spec.restartPolicy", tpath), rp, valid, 1);
        }
    }
    if (is(r, "batch", "jobs") || is(r, "batch", "cronjobs")) {
        const char *rp = kg_json_path_str(tmpl, "spec.restartPolicy");
        if (!rp || (strcmp(rp, "OnFailure") && strcmp(rp, "Never"))) {
            static const char *const valid[] = {"OnFailure", "Never"};
            kg_field_not_supported(a, errs, kg_arena_sprintf(a, "%s.spec.restartPolicy", tpath), rp ? rp : "",
                                   valid, 2);
        }
    }
    if (is(r, "batch", "cronjobs")) {
        const char *sch = kg_json_get_str(spec, "schedule");
        if (!sch || !sch[0])
            kg_field_required(a, errs, "spec.schedule", NULL);
    }
}

/* Pod updates may change only images, activeDeadlineSeconds, tolerations additions and terminationGracePeriod. */
static void validate_pod_update(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_json *ns = kg_json_clone(a, kg_json_get(obj, "spec"));
    const kg_json *os = kg_json_get(old, "spec");
    if (!ns || !os)
        return;
    static const char *const lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2; l++) {
        kg_json *nc = kg_json_get(ns, lists[l]), *oc = kg_json_get(os, lists[l]);
        if (nc && oc && nc->type == KG_JSON_ARRAY && oc->type == KG_JSON_ARRAY && nc->len == oc->len)
            for (uint32_t i = 0; i < nc->len; i++) {
                kg_json *oi = kg_json_get(oc->u.items[i], "image");
                if (oi && nc->u.items[i]->type == KG_JSON_OBJECT)
                    kg_json_set(a, nc->u.items[i], "image", oi);
            }
    }
    static const char *const mutable_fields[] = {"activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds",
                                                 "ephemeralContainers", "nodeName", "schedulingGates"};
    for (size_t i = 0; i < sizeof mutable_fields / sizeof mutable_fields[0]; i++) {
        kg_json *ov = kg_json_get(os, mutable_fields[i]);
        if (ov)
            kg_json_set(a, ns, mutable_fields[i], ov);
        else
            kg_json_del(ns, mutable_fields[i]);
    }
    if (!kg_json_equal(ns, os))
        kg_field_forbidden(a, errs, "spec",
                           "pod updates may not change fields other than `spec.containers[*].image`,"
                           "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                           "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
                           "set to 1 if it was previously negative)");
}

void kg_api_validate(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_validate_object_meta(a, kg_json_get(obj, "metadata"), r->namespaced, name_validator(r, old != NULL), "metadata",
                            errs);
    if (!strcmp(r->plural, "events") && (!r->group[0] || !strcmp(r->group, "events.k8s.io")))
        kg_api_validate_event(a, r, obj, old, errs);
    if (is(r, "", "pods")) {
        validate_pod_spec(a, kg_json_get(obj, "spec"), "spec", false, errs);
        if (old)
            validate_pod_update(a, obj, old, errs);
    } else if (!strcmp(r->group, "apps") || !strcmp(r->group, "batch") || is(r, "", "replicationcontrollers")) {
        if (is(r, "", "replicationcontrollers")) {
            kg_json *rep = kg_json_path(obj, "spec.replicas");
            if (rep && rep->type == KG_JSON_INT && rep->u.i < 0)
                kg_field_invalid_int(a, errs, "spec.replicas", rep->u.i, "must be greater than or equal to 0");
            validate_pod_spec(a, kg_json_path(obj, "spec.template.spec"), "spec.template.spec", true, errs);
        } else {
            validate_workload(a, r, obj, errs);
        }
    } else if (is(r, "", "services")) {
        const char *type = kg_json_path_str(obj, "spec.type");
        kg_json *ports = kg_json_path(obj, "spec.ports");
        if ((!type || strcmp(type, "ExternalName")) && (!ports || ports->type != KG_JSON_ARRAY || !ports->len))
            kg_field_required(a, errs, "spec.ports", NULL);
        if (ports && ports->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < ports->len; i++) {
                kg_json *p = kg_json_get(ports->u.items[i], "port");
                char *pp = kg_arena_sprintf(a, "spec.ports[%u].port", i);
                if (!p || p->type != KG_JSON_INT)
                    kg_field_required(a, errs, pp, NULL);
                else if (!kg_is_valid_port_num(p->u.i, NULL))
                    kg_field_invalid_int(a, errs, pp, p->u.i, KG_MSG_PORT_NUM);
                if (ports->len > 1 && !kg_json_get_str(ports->u.items[i], "name"))
                    kg_field_required(a, errs, kg_arena_sprintf(a, "spec.ports[%u].name", i), NULL);
            }
        if (type && strcmp(type, "ClusterIP") && strcmp(type, "NodePort") && strcmp(type, "LoadBalancer") &&
            strcmp(type, "ExternalName")) {
            static const char *const valid[] = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"};
            kg_field_not_supported(a, errs, "spec.type", type, valid, 4);
        }
    } else if (is(r, "", "configmaps") || is(r, "", "secrets")) {
        static const char *const maps[] = {"data", "binaryData", "stringData"};
        size_t total = 0; /* bytes of data, as upstream counts them after decoding (MaxSecretSize) */
        bool secret = is(r, "", "secrets");
        for (int m = 0; m < 3; m++) {
            kg_json *d = kg_json_get(obj, maps[m]);
            if (!d || d->type != KG_JSON_OBJECT)
                continue;
            for (uint32_t i = 0; i < d->len; i++) {
                const kg_json *v = d->u.members[i].val;
                if (v && v->type == KG_JSON_STRING) {
                    size_t n = v->len;
                    bool b64 = m == 1 || (secret && m == 0); /* binaryData, Secret data: base64 on the wire */
                    if (b64) {
                        size_t pad = (n > 0 && v->u.s[n - 1] == '=') + (n > 1 && v->u.s[n - 2] == '=');
                        size_t full = n / 4 * 3;
                        n = full >= pad ? full - pad : 0;
                    }
                    total += n;
                }
                const char *k = d->u.members[i].key;
                bool ok = k[0] != 0 && strlen(k) <= 253 && strcmp(k, ".") && strcmp(k, "..") && strncmp(k, "..", 2);
                for (const char *p = k; *p && ok; p++)
                    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                          *p == '-' || *p == '_' || *p == '.'))
                        ok = false;
                if (!ok)
                    kg_field_invalid(a, errs, kg_arena_sprintf(a, "%s[%s]", maps[m], k), k,
                                     "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
                                     "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation "
                                     "is '[-._a-zA-Z0-9]+')");
            }
        }
        /* api.MaxSecretSize (1 MiB); ConfigMap reports it on the whole object (field.NewPath("") prints "[]") */
        if (total > 1024 * 1024)
            kg_field_too_long(a, errs, secret ? "data" : "[]", 1024 * 1024);
    }
    kg_api_validate_semantic(a, r, obj, old, errs);
}
