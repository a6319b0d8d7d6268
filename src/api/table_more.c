/* Server-side printers for the kinds table.c does not cover, with upstream's columns and cell formats
 * (kubernetes pkg/printers/internalversion/printers.go, v1.33): core Events (and events.k8s.io Events, the same
 * printer over the same store), Endpoints, PersistentVolumes and claims, Ingresses and IngressClasses,
 * RuntimeClasses, CertificateSigningRequests, the admission webhook configurations, Validating/Mutating admission
 * policies and their bindings, RoleBindings and ClusterRoleBindings.
 *
 * The server always prints the wide columns (priority 1); kubectl drops them unless -o wide. Kinds without a
 * printer upstream (Roles, ClusterRoles, LimitRanges, CustomResourceDefinitions) get the default table
 * convertor's Name / Created At in table.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/table.h"
#include "api/table_internal.h"
#include "base/buf.h"
#include "meta/labels.h"
#include "meta/quantity.h"

typedef kg_table_col col;

static const col NAME = {"Name", "string", "name", "Name must be unique within a namespace.", 0};
static const col AGE = {"Age", "string", "",
                        "CreationTimestamp is a timestamp representing the server time when this object was created.",
                        0};

/* ---- shared formatters (declared in table_internal.h) ---- */

int64_t kg_table_time(const char *ts)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!ts || !ts[0] || !strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm))
        return -1;
    return (int64_t)timegm(&tm);
}

char *kg_table_since(kg_arena *a, const char *ts, int64_t now)
{
    int64_t t = kg_table_time(ts);
    return t < 0 ? kg_arena_strdup(a, "<unknown>") : kg_api_human_duration(a, now - t);
}

char *kg_table_format_labels(kg_arena *a, const kg_json *labels)
{
    kg_label_selector sel;
    kg_labels_from_set(a, labels, &sel);
    char *s = kg_labels_string(a, &sel);
    return s[0] ? s : kg_arena_strdup(a, "<none>");
}

char *kg_table_selector(kg_arena *a, const kg_json *sel)
{
    kg_label_selector ls;
    kg_error err;
    if (!kg_label_selector_from_json(a, sel, &ls, &err))
        return kg_arena_strdup(a, "<error>");
    return kg_labels_string(a, &ls);
}

char *kg_table_format_selector(kg_arena *a, const kg_json *sel)
{
    char *s = kg_table_selector(a, sel);
    return s[0] ? s : kg_arena_strdup(a, "<none>");
}

/* ---- cell helpers ---- */

static kg_json *cell(kg_arena *a, const char *s)
{
    return kg_json_new_str(a, s ? s : "");
}

static void add(kg_arena *a, kg_json *cells, const char *s)
{
    kg_json_array_append(a, cells, cell(a, s));
}

static void add_int(kg_arena *a, kg_json *cells, int64_t v)
{
    kg_json_array_append(a, cells, kg_json_new_int(a, v));
}

static int64_t geti(const kg_json *o, const char *path)
{
    const kg_json *v = kg_json_path(o, path);
    return v && v->type == KG_JSON_INT ? v->u.i : 0;
}

static uint32_t alen(const kg_json *v)
{
    return v && v->type == KG_JSON_ARRAY ? v->len : 0;
}

static const char *nonempty(const char *s)
{
    return s && s[0] ? s : NULL;
}

static char *lower(kg_arena *a, const char *s)
{
    char *l = kg_arena_strdup(a, s ? s : "");
    for (char *p = l; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return l;
}

/* resource.Quantity.String() of a JSON quantity ("0" when absent, as Go's zero Quantity). */
static char *quantity(kg_arena *a, const kg_json *v)
{
    kg_quantity q;
    kg_error err;
    if (v && v->type == KG_JSON_STRING && kg_quantity_parse(v->u.s, v->len, &q, &err))
        return kg_quantity_string(a, &q);
    if (v && v->type == KG_JSON_INT)
        return kg_arena_sprintf(a, "%lld", (long long)v->u.i);
    return kg_arena_strdup(a, "0");
}

/* ---- Events (core/v1 and events.k8s.io/v1 share the printer) ---- */

static const col C_LASTSEEN = {"Last Seen", "string", "",
                               "The time at which the most recent occurrence of this event was recorded.", 0};
static const col C_ETYPE = {"Type", "string", "",
                            "Type of this event (Normal, Warning), new types could be added in the future", 0};
static const col C_REASON = {"Reason", "string", "",
                             "This should be a short, machine understandable string that gives the reason for the "
                             "transition into the object's current status.",
                             0};
static const col C_OBJECT = {"Object", "string", "", "The object that this event is about.", 0};
static const col C_SUBOBJECT = {
    "Subobject", "string", "",
    "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go "
    "field access statement, such as desiredState.manifest.containers[2].",
    1};
static const col C_SOURCE = {"Source", "string", "",
                             "The component reporting this event. Should be a short machine understandable string.", 1};
static const col C_MESSAGE = {"Message", "string", "", "A human-readable description of the status of this operation.",
                              0};
static const col C_FIRSTSEEN = {
    "First Seen", "string", "",
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1};
static const col C_COUNT = {"Count", "string", "", "The number of times this event has occurred.", 1};
static const col C_ENAME = {"Name", "string", "name", "Name must be unique within a namespace.", 1};

static char *trim_space(kg_arena *a, const char *s)
{
    if (!s)
        return kg_arena_strdup(a, "");
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return kg_arena_strndup(a, s, n);
}

static void event_cells(kg_arena *a, bool events_api, const kg_json *o, kg_json *cells, int64_t now)
{
    /* events.k8s.io/v1 names the core fields differently (the conversion upstream applies before printing) */
    const char *reg = events_api ? "regarding" : "involvedObject";
    const char *first = kg_json_get_str(o, events_api ? "deprecatedFirstTimestamp" : "firstTimestamp");
    const char *last = kg_json_get_str(o, events_api ? "deprecatedLastTimestamp" : "lastTimestamp");
    const kg_json *src = kg_json_get(o, events_api ? "deprecatedSource" : "source");
    int64_t count = geti(o, events_api ? "deprecatedCount" : "count");
    const char *msg = kg_json_get_str(o, events_api ? "note" : "message");

    char *first_s = kg_table_time(first) >= 0 ? kg_table_since(a, first, now)
                                              : kg_table_since(a, kg_json_get_str(o, "eventTime"), now);
    char *last_s = kg_table_time(last) >= 0 ? kg_table_since(a, last, now) : first_s;
    const kg_json *series = kg_json_get(o, "series");
    if (series && series->type == KG_JSON_OBJECT) {
        last_s = kg_table_since(a, kg_json_get_str(series, "lastObservedTime"), now);
        count = geti(series, "count");
    } else if (count == 0) {
        count = 1; /* singleton events carry no count in the new API */
    }
    const char *kind = kg_json_path_str(o, kg_arena_sprintf(a, "%s.kind", reg));
    const char *oname = kg_json_path_str(o, kg_arena_sprintf(a, "%s.name", reg));
    char *target = nonempty(oname) ? kg_arena_sprintf(a, "%s/%s", lower(a, kind), oname) : lower(a, kind);
    const char *component = nonempty(kg_json_get_str(src, "component"));
    if (!component)
        component = kg_json_get_str(o, "reportingController");
    if (!component)
        component = kg_json_get_str(o, "reportingComponent"); /* events.k8s.io's name for it */
    const char *host = nonempty(kg_json_get_str(src, "host"));
    if (!host)
        host = kg_json_get_str(o, "reportingInstance");
    const char *source =
        nonempty(host) ? kg_arena_sprintf(a, "%s, %s", component ? component : "", host) : (component ? component : "");

    add(a, cells, last_s);
    add(a, cells, kg_json_get_str(o, "type"));
    add(a, cells, kg_json_get_str(o, "reason"));
    add(a, cells, target);
    add(a, cells, kg_json_path_str(o, kg_arena_sprintf(a, "%s.fieldPath", reg)));
    add(a, cells, source);
    add(a, cells, trim_space(a, msg));
    add(a, cells, first_s);
    add_int(a, cells, count);
    add(a, cells, kg_json_path_str(o, "metadata.name"));
}

/* ---- Endpoints: formatEndpoints, at most 3 then " + N more..." ---- */

static const col C_ENDPOINTS = {"Endpoints", "string", "", "The set of all endpoints is the union of all subsets.", 0};

static char *format_endpoints(kg_arena *a, const kg_json *o)
{
    const kg_json *subsets = kg_json_get(o, "subsets");
    if (!alen(subsets))
        return kg_arena_strdup(a, "<none>");
    kg_buf b = KG_BUF_INIT;
    uint32_t listed = 0, count = 0;
    bool more = false;
    for (uint32_t i = 0; i < subsets->len; i++) {
        const kg_json *ss = subsets->u.items[i], *addrs = kg_json_get(ss, "addresses"),
                      *ports = kg_json_get(ss, "ports");
        uint32_t np = alen(ports) ? alen(ports) : 1;
        for (uint32_t p = 0; p < np; p++) {
            count += alen(addrs);
            for (uint32_t k = 0; k < alen(addrs); k++) {
                if (listed == 3) {
                    more = true;
                    break;
                }
                const char *ip = kg_json_get_str(addrs->u.items[k], "ip");
                ip = ip ? ip : "";
                kg_buf_puts(&b, listed++ ? "," : "");
                if (!alen(ports))
                    kg_buf_puts(&b, ip);
                else if (strchr(ip, ':')) /* net.JoinHostPort brackets IPv6 */
                    kg_buf_printf(&b, "[%s]:%lld", ip, (long long)geti(ports->u.items[p], "port"));
                else
                    kg_buf_printf(&b, "%s:%lld", ip, (long long)geti(ports->u.items[p], "port"));
            }
        }
    }
    if (more)
        kg_buf_printf(&b, " + %u more...", count - 3);
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* ---- PersistentVolumes and claims ---- */

static const col C_CAPACITY = {"Capacity", "string", "",
                               "capacity is the description of the persistent volume's resources and capacity.", 0};
static const col C_ACCESS = {"Access Modes", "string", "", "accessModes contains all ways the volume can be mounted.",
                             0};
static const col C_RECLAIM = {
    "Reclaim Policy", "string", "",
    "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.", 0};
static const col C_PVSTATUS = {
    "Status", "string", "", "phase indicates if a volume is available, bound to a claim, or released by a claim.", 0};
static const col C_CLAIM = {
    "Claim", "string", "",
    "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.", 0};
static const col C_PVSC = {"StorageClass", "string", "", "StorageClass of the pv", 0};
static const col C_PVVAC = {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0};
static const col C_PVREASON = {"Reason", "string", "",
                               "reason is a brief CamelCase string that describes any failure and is meant for machine "
                               "parsing and tidy display in the CLI.",
                               0};
static const col C_VOLMODE = {"VolumeMode", "string", "",
                              "volumeMode defines if a volume is intended to be used with a formatted filesystem or to "
                              "remain in raw block state.",
                              1};
static const col C_PVCSTATUS = {"Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.",
                                0};
static const col C_VOLUME = {"Volume", "string", "",
                             "volumeName is the binding reference to the PersistentVolume backing this claim.", 0};
static const col C_PVCCAP = {"Capacity", "string", "",
                             "capacity represents the actual resources of the underlying volume.", 0};
static const col C_PVCACCESS = {"Access Modes", "string", "",
                                "accessModes contains the actual access modes the volume backing the PVC has.", 0};
static const col C_PVCSC = {"StorageClass", "string", "", "StorageClass of the pvc", 0};
static const col C_PVCVAC = {"VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0};

/* helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once. */
static char *access_modes(kg_arena *a, const kg_json *modes)
{
    static const char *const names[][2] = {
        {"ReadWriteOnce", "RWO"}, {"ReadOnlyMany", "ROX"}, {"ReadWriteMany", "RWX"}, {"ReadWriteOncePod", "RWOP"}};
    kg_buf b = KG_BUF_INIT;
    for (int k = 0; k < 4; k++)
        for (uint32_t i = 0; i < alen(modes); i++)
            if (modes->u.items[i]->type == KG_JSON_STRING && !strcmp(modes->u.items[i]->u.s, names[k][0])) {
                kg_buf_printf(&b, "%s%s", b.len ? "," : "", names[k][1]);
                break;
            }
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName. */
static const char *storage_class(const kg_json *o)
{
    const kg_json *ann = kg_json_path(o, "metadata.annotations");
    const char *beta = kg_json_get_str(ann, "volume.beta.kubernetes.io/storage-class");
    if (beta)
        return beta;
    return kg_json_path_str(o, "spec.storageClassName");
}

static const char *phase_or_terminating(const kg_json *o)
{
    if (kg_json_path(o, "metadata.deletionTimestamp"))
        return "Terminating";
    return kg_json_path_str(o, "status.phase");
}

static const char *or_unset(const char *s)
{
    return s ? s : "<unset>";
}

static void pv_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const kg_json *ref = kg_json_path(o, "spec.claimRef");
    char *claim =
        ref && ref->type == KG_JSON_OBJECT
            ? kg_arena_sprintf(a, "%s/%s", kg_json_get_str(ref, "namespace") ? kg_json_get_str(ref, "namespace") : "",
                               kg_json_get_str(ref, "name") ? kg_json_get_str(ref, "name") : "")
            : "";
    add(a, cells, quantity(a, kg_json_path(o, "spec.capacity.storage")));
    add(a, cells, access_modes(a, kg_json_path(o, "spec.accessModes")));
    add(a, cells, kg_json_path_str(o, "spec.persistentVolumeReclaimPolicy"));
    add(a, cells, phase_or_terminating(o));
    add(a, cells, claim);
    add(a, cells, storage_class(o));
    add(a, cells, or_unset(kg_json_path_str(o, "spec.volumeAttributesClassName")));
    add(a, cells, kg_json_path_str(o, "status.reason"));
    add(a, cells, age);
    add(a, cells, or_unset(kg_json_path_str(o, "spec.volumeMode")));
}

static void pvc_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const char *vol = kg_json_path_str(o, "spec.volumeName");
    bool bound = nonempty(vol) != NULL;
    add(a, cells, phase_or_terminating(o));
    add(a, cells, vol);
    add(a, cells, bound ? quantity(a, kg_json_path(o, "status.capacity.storage")) : "");
    add(a, cells, bound ? access_modes(a, kg_json_path(o, "status.accessModes")) : "");
    add(a, cells, storage_class(o));
    add(a, cells, or_unset(kg_json_path_str(o, "spec.volumeAttributesClassName")));
    add(a, cells, age);
    add(a, cells, or_unset(kg_json_path_str(o, "spec.volumeMode")));
}

/* ---- networking: Ingress, IngressClass ---- */

static const col C_CLASS = {
    "Class", "string", "", "The name of the IngressClass resource that should be used for additional configuration", 0};
static const col C_HOSTS = {"Hosts", "string", "",
                            "Hosts that incoming requests are matched against before the ingress rule", 0};
static const col C_ADDRESS = {"Address", "string", "",
                              "Address is a list containing ingress points for the load-balancer", 0};
static const col C_IPORTS = {"Ports", "string", "", "Ports of TLS configurations that open", 0};
static const col C_ICCONTROLLER = {"Controller", "string", "", "Controller that is responsible for handling this class",
                                   0};
static const col C_PARAMETERS = {"Parameters", "string", "", "A reference to a resource with additional parameters", 0};

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* ingressLoadBalancerStatusStringer (wide): the sorted set of IPs / hostnames. */
static char *lb_status(kg_arena *a, const kg_json *ing)
{
    uint32_t n = alen(ing), k = 0;
    const char **v = kg_arena_alloc(a, (n + 1) * sizeof *v);
    for (uint32_t i = 0; i < n; i++) {
        const char *s = nonempty(kg_json_get_str(ing->u.items[i], "ip"));
        if (!s)
            s = nonempty(kg_json_get_str(ing->u.items[i], "hostname"));
        if (!s)
            continue;
        bool dup = false;
        for (uint32_t j = 0; j < k && !dup; j++)
            dup = !strcmp(v[j], s);
        if (!dup)
            v[k++] = s;
    }
    qsort(v, k, sizeof *v, cmp_str);
    kg_buf b = KG_BUF_INIT;
    for (uint32_t i = 0; i < k; i++)
        kg_buf_printf(&b, "%s%s", i ? "," : "", v[i]);
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

static void ingress_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const char *cls = kg_json_path_str(o, "spec.ingressClassName");
    add(a, cells, cls ? cls : "<none>");
    /* formatHosts: the first 3 non-empty hosts, "*" when none */
    const kg_json *rules = kg_json_path(o, "spec.rules");
    kg_buf b = KG_BUF_INIT;
    uint32_t listed = 0;
    bool more = false;
    for (uint32_t i = 0; i < alen(rules); i++) {
        if (listed == 3)
            more = true;
        const char *h = nonempty(kg_json_get_str(rules->u.items[i], "host"));
        if (!more && h)
            kg_buf_printf(&b, "%s%s", listed++ ? "," : "", h);
    }
    if (!listed)
        kg_buf_puts(&b, "*");
    else if (more)
        kg_buf_printf(&b, " + %u more...", alen(rules) - 3);
    add(a, cells, kg_buf_cstr(&b));
    kg_buf_free(&b);
    add(a, cells, lb_status(a, kg_json_path(o, "status.loadBalancer.ingress")));
    add(a, cells, alen(kg_json_path(o, "spec.tls")) ? "80, 443" : "80");
    add(a, cells, age);
}

static void ingressclass_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const kg_json *p = kg_json_path(o, "spec.parameters");
    const char *params = "<none>";
    if (p && p->type == KG_JSON_OBJECT) {
        const char *kind = kg_json_get_str(p, "kind"), *group = kg_json_get_str(p, "apiGroup");
        const char *n = kg_json_get_str(p, "name");
        params = group ? kg_arena_sprintf(a, "%s.%s/%s", kind ? kind : "", group, n ? n : "")
                       : kg_arena_sprintf(a, "%s/%s", kind ? kind : "", n ? n : "");
    }
    add(a, cells, kg_json_path_str(o, "spec.controller"));
    add(a, cells, params);
    add(a, cells, age);
}

/* ---- certificates ---- */

static const col C_CSRAGE = {
    "Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.",
    0};
static const col C_SIGNER = {"SignerName", "string", "",
                             "signerName indicates the requested signer, and is a qualified name.", 0};
static const col C_REQUESTOR = {
    "Requestor", "string", "",
    "request contains an x509 certificate signing request encoded in a \"CERTIFICATE REQUEST\" PEM block.", 0};
static const col C_REQDUR = {"RequestedDuration", "string", "",
                             "expirationSeconds is the requested duration of validity of the issued certificate.", 0};
static const col C_CONDITION = {
    "Condition", "string", "",
    "conditions applied to the request. Known conditions are \"Approved\", \"Denied\", and \"Failed\".", 0};

static void csr_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    bool approved = false, denied = false, failed = false;
    const kg_json *conds = kg_json_path(o, "status.conditions");
    for (uint32_t i = 0; i < alen(conds); i++) {
        const char *t = kg_json_get_str(conds->u.items[i], "type");
        approved |= t && !strcmp(t, "Approved");
        denied |= t && !strcmp(t, "Denied");
        failed |= t && !strcmp(t, "Failed");
    }
    const char *cert = kg_json_path_str(o, "status.certificate");
    const char *status = kg_arena_sprintf(a, "%s%s%s",
                                          denied     ? "Denied"
                                          : approved ? "Approved"
                                                     : "Pending",
                                          failed ? ",Failed" : "", nonempty(cert) ? ",Issued" : "");
    const char *signer = nonempty(kg_json_path_str(o, "spec.signerName"));
    const kg_json *exp = kg_json_path(o, "spec.expirationSeconds");
    add(a, cells, age);
    add(a, cells, signer ? signer : "<none>");
    add(a, cells, kg_json_path_str(o, "spec.username"));
    add(a, cells, exp && exp->type == KG_JSON_INT ? kg_api_human_duration(a, exp->u.i) : "<none>");
    add(a, cells, status);
}

/* ---- admissionregistration ---- */

static const col C_WEBHOOKS = {"Webhooks", "integer", "",
                               "Webhooks indicates the number of webhooks registered in this configuration", 0};
static const col C_VALIDATIONS = {"Validations", "integer", "",
                                  "Validations indicates the number of validation rules defined in this configuration",
                                  0};
static const col C_MUTATIONS = {"Mutations", "integer", "",
                                "Mutation indicates the number of mutations rules defined in this configuration", 0};
static const col C_PARAMKIND = {"ParamKind", "string", "",
                                "ParamKind specifies the kind of resources used to parameterize this policy", 0};
static const col C_POLICYNAME = {"PolicyName", "string", "",
                                 "PolicyName indicates the policy definition which the policy binding binded to", 0};
static const col C_PARAMREF = {"ParamRef", "string", "",
                               "ParamRef indicates the param resource which sets the configration param", 0};

/* The gogo-protobuf String() of a metav1.LabelSelector, which the binding printer shows for a paramRef selector:
 * "&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}". */
static char *selector_proto_string(kg_arena *a, const kg_json *sel)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "&LabelSelector{MatchLabels:map[string]string{");
    const kg_json *ml = kg_json_get(sel, "matchLabels");
    uint32_t n = ml && ml->type == KG_JSON_OBJECT ? ml->len : 0;
    const char **keys = kg_arena_alloc(a, (n + 1) * sizeof *keys);
    for (uint32_t i = 0; i < n; i++)
        keys[i] = ml->u.members[i].key;
    qsort(keys, n, sizeof *keys, cmp_str);
    for (uint32_t i = 0; i < n; i++) {
        const char *v = kg_json_get_str(ml, keys[i]);
        kg_buf_printf(&b, "%s: %s,", keys[i], v ? v : "");
    }
    kg_buf_puts(&b, "},MatchExpressions:[]LabelSelectorRequirement{");
    const kg_json *me = kg_json_get(sel, "matchExpressions");
    for (uint32_t i = 0; i < alen(me); i++) {
        const char *k = kg_json_get_str(me->u.items[i], "key"), *op = kg_json_get_str(me->u.items[i], "operator");
        kg_buf_printf(&b, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:[", k ? k : "", op ? op : "");
        const kg_json *vals = kg_json_get(me->u.items[i], "values");
        for (uint32_t j = 0; j < alen(vals); j++)
            kg_buf_printf(&b, "%s%s", j ? " " : "",
                          vals->u.items[j]->type == KG_JSON_STRING ? vals->u.items[j]->u.s : "");
        kg_buf_puts(&b, "],},");
    }
    kg_buf_puts(&b, "},}");
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

static void policy_cells(kg_arena *a, const kg_json *o, const char *list, kg_json *cells, const char *age)
{
    const kg_json *pk = kg_json_path(o, "spec.paramKind");
    const char *av = kg_json_get_str(pk, "apiVersion"), *kind = kg_json_get_str(pk, "kind");
    add_int(a, cells, alen(kg_json_get(kg_json_get(o, "spec"), list)));
    add(a, cells,
        pk && pk->type == KG_JSON_OBJECT ? kg_arena_sprintf(a, "%s/%s", av ? av : "", kind ? kind : "") : "<unset>");
    add(a, cells, age);
}

static void binding_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const kg_json *pr = kg_json_path(o, "spec.paramRef");
    const char *param = "<unset>";
    if (pr && pr->type == KG_JSON_OBJECT) {
        const char *n = nonempty(kg_json_get_str(pr, "name")), *ns = nonempty(kg_json_get_str(pr, "namespace"));
        const kg_json *sel = kg_json_get(pr, "selector");
        if (n)
            param = kg_arena_sprintf(a, "%s/%s", ns ? ns : "*", n);
        else if (sel && sel->type == KG_JSON_OBJECT)
            param = selector_proto_string(a, sel);
    }
    add(a, cells, kg_json_path_str(o, "spec.policyName"));
    add(a, cells, param);
    add(a, cells, age);
}

/* ---- rbac bindings ---- */

static const col C_ROLE = {
    "Role", "string", "",
    "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.", 0};
static const col C_USERS = {"Users", "string", "", "Users in the roleBinding", 1};
static const col C_GROUPS = {"Groups", "string", "", "Groups in the roleBinding", 1};
static const col C_SAS = {"ServiceAccounts", "string", "", "ServiceAccounts in the roleBinding", 1};
static const col C_CUSERS = {"Users", "string", "", "Users in the clusterRoleBinding", 1};
static const col C_CGROUPS = {"Groups", "string", "", "Groups in the clusterRoleBinding", 1};
static const col C_CSAS = {"ServiceAccounts", "string", "", "ServiceAccounts in the clusterRoleBinding", 1};

static void binding_subject_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const char *kind = kg_json_path_str(o, "roleRef.kind"), *name = kg_json_path_str(o, "roleRef.name");
    add(a, cells, kg_arena_sprintf(a, "%s/%s", kind ? kind : "", name ? name : ""));
    add(a, cells, age);
    /* rbac.SubjectsStrings, each list joined by ", " */
    kg_buf users = KG_BUF_INIT, groups = KG_BUF_INIT, sas = KG_BUF_INIT;
    const kg_json *subjects = kg_json_get(o, "subjects");
    for (uint32_t i = 0; i < alen(subjects); i++) {
        const kg_json *s = subjects->u.items[i];
        const char *k = kg_json_get_str(s, "kind"), *n = kg_json_get_str(s, "name");
        const char *ns = nonempty(kg_json_get_str(s, "namespace"));
        n = n ? n : "";
        kg_buf *to = !k                             ? NULL
                     : !strcmp(k, "User")           ? &users
                     : !strcmp(k, "Group")          ? &groups
                     : !strcmp(k, "ServiceAccount") ? &sas
                                                    : NULL;
        if (!to)
            continue;
        kg_buf_puts(to, to->len ? ", " : "");
        if (to == &sas && ns)
            kg_buf_printf(to, "%s/%s", ns, n);
        else
            kg_buf_puts(to, n);
    }
    add(a, cells, kg_buf_cstr(&users));
    add(a, cells, kg_buf_cstr(&groups));
    add(a, cells, kg_buf_cstr(&sas));
    kg_buf_free(&users);
    kg_buf_free(&groups);
    kg_buf_free(&sas);
}

/* ---- node.k8s.io ---- */

static const col C_HANDLER = {"Handler", "string", "",
                              "handler specifies the underlying runtime and configuration that the CRI implementation "
                              "will use to handle pods of this class.",
                              0};

/* ---- the table ---- */

static const kg_table_printer printers[] = {
    {"",
     "events",
     {&C_LASTSEEN, &C_ETYPE, &C_REASON, &C_OBJECT, &C_SUBOBJECT, &C_SOURCE, &C_MESSAGE, &C_FIRSTSEEN, &C_COUNT,
      &C_ENAME}},
    {"events.k8s.io",
     "events",
     {&C_LASTSEEN, &C_ETYPE, &C_REASON, &C_OBJECT, &C_SUBOBJECT, &C_SOURCE, &C_MESSAGE, &C_FIRSTSEEN, &C_COUNT,
      &C_ENAME}},
    {"", "endpoints", {&NAME, &C_ENDPOINTS, &AGE}},
    {"",
     "persistentvolumes",
     {&NAME, &C_CAPACITY, &C_ACCESS, &C_RECLAIM, &C_PVSTATUS, &C_CLAIM, &C_PVSC, &C_PVVAC, &C_PVREASON, &AGE,
      &C_VOLMODE}},
    {"",
     "persistentvolumeclaims",
     {&NAME, &C_PVCSTATUS, &C_VOLUME, &C_PVCCAP, &C_PVCACCESS, &C_PVCSC, &C_PVCVAC, &AGE, &C_VOLMODE}},
    {"networking.k8s.io", "ingresses", {&NAME, &C_CLASS, &C_HOSTS, &C_ADDRESS, &C_IPORTS, &AGE}},
    {"networking.k8s.io", "ingressclasses", {&NAME, &C_ICCONTROLLER, &C_PARAMETERS, &AGE}},
    {"node.k8s.io", "runtimeclasses", {&NAME, &C_HANDLER, &AGE}},
    {"certificates.k8s.io",
     "certificatesigningrequests",
     {&NAME, &C_CSRAGE, &C_SIGNER, &C_REQUESTOR, &C_REQDUR, &C_CONDITION}},
    {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", {&NAME, &C_WEBHOOKS, &AGE}},
    {"admissionregistration.k8s.io", "validatingwebhookconfigurations", {&NAME, &C_WEBHOOKS, &AGE}},
    {"admissionregistration.k8s.io", "validatingadmissionpolicies", {&NAME, &C_VALIDATIONS, &C_PARAMKIND, &AGE}},
    {"admissionregistration.k8s.io", "validatingadmissionpolicybindings", {&NAME, &C_POLICYNAME, &C_PARAMREF, &AGE}},
    {"admissionregistration.k8s.io", "mutatingadmissionpolicies", {&NAME, &C_MUTATIONS, &C_PARAMKIND, &AGE}},
    {"admissionregistration.k8s.io", "mutatingadmissionpolicybindings", {&NAME, &C_POLICYNAME, &C_PARAMREF, &AGE}},
    {"rbac.authorization.k8s.io", "rolebindings", {&NAME, &C_ROLE, &AGE, &C_USERS, &C_GROUPS, &C_SAS}},
    {"rbac.authorization.k8s.io", "clusterrolebindings", {&NAME, &C_ROLE, &AGE, &C_CUSERS, &C_CGROUPS, &C_CSAS}},
};

const kg_table_printer *kg_table_more_printer(const kg_resource *r)
{
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++)
        if (!strcmp(printers[i].group, r->group) && !strcmp(printers[i].plural, r->plural))
            return &printers[i];
    return NULL;
}

bool kg_table_more_cells(kg_arena *a, const kg_resource *r, const kg_json *o, kg_json *cells, int64_t now)
{
    const kg_table_printer *pr = kg_table_more_printer(r);
    if (!pr)
        return false;
    const char *p = r->plural;
    if (!strcmp(p, "events")) {
        event_cells(a, r->group[0] != 0, o, cells, now);
        return true;
    }
    add(a, cells, kg_json_path_str(o, "metadata.name"));
    char *age = kg_api_age(a, o, now);
    if (!strcmp(p, "endpoints")) {
        add(a, cells, format_endpoints(a, o));
        add(a, cells, age);
    } else if (!strcmp(p, "persistentvolumes")) {
        pv_cells(a, o, cells, age);
    } else if (!strcmp(p, "persistentvolumeclaims")) {
        pvc_cells(a, o, cells, age);
    } else if (!strcmp(p, "ingresses")) {
        ingress_cells(a, o, cells, age);
    } else if (!strcmp(p, "ingressclasses")) {
        ingressclass_cells(a, o, cells, age);
    } else if (!strcmp(p, "runtimeclasses")) {
        add(a, cells, kg_json_get_str(o, "handler"));
        add(a, cells, age);
    } else if (!strcmp(p, "certificatesigningrequests")) {
        csr_cells(a, o, cells, age);
    } else if (!strcmp(p, "mutatingwebhookconfigurations") || !strcmp(p, "validatingwebhookconfigurations")) {
        add_int(a, cells, alen(kg_json_get(o, "webhooks")));
        add(a, cells, age);
    } else if (!strcmp(p, "validatingadmissionpolicies")) {
        policy_cells(a, o, "validations", cells, age);
    } else if (!strcmp(p, "mutatingadmissionpolicies")) {
        policy_cells(a, o, "mutations", cells, age);
    } else if (!strcmp(p, "validatingadmissionpolicybindings") || !strcmp(p, "mutatingadmissionpolicybindings")) {
        binding_cells(a, o, cells, age);
    } else {
        binding_subject_cells(a, o, cells, age); /* rolebindings, clusterrolebindings */
    }
    return true;
}
