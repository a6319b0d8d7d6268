/* Service checks of upstream's ValidateService / ValidateServiceUpdate (pkg/apis/core/validation) that the base
 * validation does not make:
 *
 *   spec.ports[i].name       a DNS label, unique ("Duplicate value: \"http\"")
 *   spec.ports[i]            no two ports with the same protocol and port; upstream prints the key with Go's %#v:
 *                            core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, ...}
 *   spec.ports[i].nodePort   "may not be used when `type` is 'ClusterIP'"
 *   spec.clusterIPs[i]       on update, "may not change once set" (except to or from ExternalName, and between
 *                            headless Services), printed with the new list: []string{"10.0.0.9"} */
#include <string.h>

#include "api/validation_internal.h"
#include "base/buf.h"
#include "meta/names.h"

static uint32_t alen(const kg_json *v)
{
    return v && v->type == KG_JSON_ARRAY ? v->len : 0;
}

static void validate_ports(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    const kg_json *ports = kg_json_path(obj, "spec.ports");
    const char *type = kg_json_path_str(obj, "spec.type");
    for (uint32_t i = 0; i < alen(ports); i++) {
        const kg_json *p = ports->u.items[i];
        const char *name = kg_json_get_str(p, "name");
        if (name && name[0]) {
            char *np = kg_arena_sprintf(a, "spec.ports[%u].name", i);
            kg_name_errs ne = {0};
            if (!kg_is_dns1123_label(name, &ne))
                kg_field_invalid(a, errs, np, name, kg_name_errs_join(a, &ne, ", "));
            for (uint32_t k = 0; k < i; k++) {
                const char *other = kg_json_get_str(ports->u.items[k], "name");
                if (other && !strcmp(other, name)) {
                    kg_field_duplicate(a, errs, np, name);
                    break;
                }
            }
        }
    }
    /* duplicate (protocol, port) pairs; the protocol defaults to TCP before validation */
    for (uint32_t i = 0; i < alen(ports); i++) {
        const kg_json *p = ports->u.items[i], *port = kg_json_get(p, "port");
        const char *proto = kg_json_get_str(p, "protocol");
        int64_t pn = port && port->type == KG_JSON_INT ? port->u.i : 0;
        for (uint32_t k = 0; k < i; k++) {
            const kg_json *q = ports->u.items[k], *qport = kg_json_get(q, "port");
            const char *qproto = kg_json_get_str(q, "protocol");
            int64_t qn = qport && qport->type == KG_JSON_INT ? qport->u.i : 0;
            if (qn != pn || strcmp(qproto ? qproto : "TCP", proto ? proto : "TCP"))
                continue;
            kg_field_error *e = kg_field_duplicate(a, errs, kg_arena_sprintf(a, "spec.ports[%u]", i), "");
            e->bv_kind = KG_BV_RAW;
            e->bv_str = kg_arena_sprintf(a,
                                         "core.ServicePort{Name:\"\", Protocol:\"%s\", AppProtocol:(*string)(nil), "
                                         "Port:%lld, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, "
                                         "NodePort:0}",
                                         proto ? proto : "TCP", (long long)pn);
            break;
        }
    }
    if (!type || !strcmp(type, "ClusterIP"))
        for (uint32_t i = 0; i < alen(ports); i++) {
            const kg_json *np = kg_json_get(ports->u.items[i], "nodePort");
            if (np && np->type == KG_JSON_INT && np->u.i != 0)
                kg_field_forbidden(a, errs, kg_arena_sprintf(a, "spec.ports[%u].nodePort", i),
                                   "may not be used when `type` is 'ClusterIP'");
        }
}

static bool headless(const kg_json *svc)
{
    const char *ip = kg_json_path_str(svc, "spec.clusterIP");
    return ip && !strcmp(ip, "None");
}

static const char *ip_at(const kg_json *ips, uint32_t i)
{
    const kg_json *v = i < alen(ips) ? ips->u.items[i] : NULL;
    return v && v->type == KG_JSON_STRING ? v->u.s : "";
}

/* Go's %#v of the new spec.clusterIPs. */
static char *ips_gostring(kg_arena *a, const kg_json *ips)
{
    if (!ips || ips->type != KG_JSON_ARRAY)
        return kg_arena_strdup(a, "[]string(nil)");
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "[]string{");
    for (uint32_t i = 0; i < ips->len; i++)
        kg_buf_printf(&b, "%s\"%s\"", i ? ", " : "", ip_at(ips, i));
    kg_buf_putc(&b, '}');
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* validateUpgradeDowngradeClusterIPs */
static void validate_cluster_ips_update(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    const char *nt = kg_json_path_str(obj, "spec.type"), *ot = kg_json_path_str(old, "spec.type");
    if ((nt && !strcmp(nt, "ExternalName")) || (ot && !strcmp(ot, "ExternalName")))
        return;
    if (headless(obj) && headless(old))
        return;
    const kg_json *nips = kg_json_path(obj, "spec.clusterIPs"), *oips = kg_json_path(old, "spec.clusterIPs");
    uint32_t nn = alen(nips), on = alen(oips);
    if (nn == on) {
        for (uint32_t i = 0; i < on; i++)
            if (strcmp(ip_at(oips, i), ip_at(nips, i)))
                kg_field_invalid_raw(a, errs, kg_arena_sprintf(a, "spec.clusterIPs[%u]", i), ips_gostring(a, nips),
                                     "may not change once set");
    } else if ((on > nn && (nn == 0 || strcmp(ip_at(oips, 0), ip_at(nips, 0)))) ||
               (on < nn && on > 0 && strcmp(ip_at(oips, 0), ip_at(nips, 0)))) {
        kg_field_invalid_raw(a, errs, "spec.clusterIPs[0]", ips_gostring(a, nips), "may not change once set");
    }
}

void kg_api_validate_service(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    if (old)
        validate_cluster_ips_update(a, obj, old, errs);
    validate_ports(a, obj, errs);
}
