#include "api/table.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/dynamic.h"
#include "api/table_dynamic.h"

static kg_json *sref(kg_arena *a, const char *s) { return kg_json_new_str_ref(a, s, strlen(s)); }

char *kg_api_human_duration(kg_arena *a, int64_t s)
{
    if (s < -1)
        return kg_arena_strdup(a, "<invalid>");
    if (s < 0)
        return kg_arena_strdup(a, "0s");
    if (s < 120)
        return kg_arena_sprintf(a, "%llds", (long long)s);
    int64_t m = s / 60;
    if (m < 10)
        return s % 60 ? kg_arena_sprintf(a, "%lldm%llds", (long long)m, (long long)(s % 60))
                      : kg_arena_sprintf(a, "%lldm", (long long)m);
    if (m < 180)
        return kg_arena_sprintf(a, "%lldm", (long long)m);
    int64_t h = s / 3600;
    if (h < 8)
        return m % 60 ? kg_arena_sprintf(a, "%lldh%lldm", (long long)h, (long long)(m % 60))
                      : kg_arena_sprintf(a, "%lldh", (long long)h);
    if (h < 48)
        return kg_arena_sprintf(a, "%lldh", (long long)h);
    if (h < 24 * 8)
        return h % 24 ? kg_arena_sprintf(a, "%lldd%lldh", (long long)(h / 24), (long long)(h % 24))
                      : kg_arena_sprintf(a, "%lldd", (long long)(h / 24));
    if (h < 24 * 365 * 2)
        return kg_arena_sprintf(a, "%lldd", (long long)(h / 24));
    if (h < 24 * 365 * 8) {
        int64_t dy = (h / 24) % 365;
        return dy ? kg_arena_sprintf(a, "%lldy%lldd", (long long)(h / 24 / 365), (long long)dy)
                  : kg_arena_sprintf(a, "%lldy", (long long)(h / 24 / 365));
    }
    return kg_arena_sprintf(a, "%lldy", (long long)(h / 24 / 365));
}

static int64_t parse_rfc3339(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm))
        return -1;
    return (int64_t)timegm(&tm);
}

char *kg_api_age(kg_arena *a, const kg_json *obj, int64_t now)
{
    int64_t t = parse_rfc3339(kg_json_path_str(obj, "metadata.creationTimestamp"));
    if (t < 0)
        return kg_arena_strdup(a, "<unknown>");
    return kg_api_human_duration(a, now - t);
}

typedef struct col {
    const char *name, *type, *format, *desc;
    int priority;
} col;

static const col NAME = {"Name", "string", "name", "Name must be unique within a namespace.", 0};
static const col AGE = {"Age", "string", "",
                        "CreationTimestamp is a timestamp representing the server time when this object was created.",
                        0};

static int64_t geti(const kg_json *o, const char *path)
{
    kg_json *v = kg_json_path(o, path);
    return v && v->type == KG_JSON_INT ? v->u.i : 0;
}

static kg_json *str_cell(kg_arena *a, const char *s) { return kg_json_new_str(a, s ? s : ""); }

static char *join_field(kg_arena *a, const kg_json *arr, const char *field, const char *sep)
{
    kg_buf b = KG_BUF_INIT;
    if (arr && arr->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < arr->len; i++) {
            const char *v = field ? kg_json_get_str(arr->u.items[i], field)
                                  : (arr->u.items[i]->type == KG_JSON_STRING ? arr->u.items[i]->u.s : NULL);
            if (!v)
                continue;
            if (b.len)
                kg_buf_puts(&b, sep);
            kg_buf_puts(&b, v);
        }
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

static char *selector_string(kg_arena *a, const kg_json *sel)
{
    const kg_json *ml = kg_json_get(sel, "matchLabels");
    if (!ml)
        ml = sel; /* RC / Service selectors are plain maps */
    kg_buf b = KG_BUF_INIT;
    if (ml && ml->type == KG_JSON_OBJECT)
        for (uint32_t i = 0; i < ml->len; i++) {
            if (ml->u.members[i].val->type != KG_JSON_STRING)
                continue;
            kg_buf_printf(&b, "%s%s=%s", b.len ? "," : "", ml->u.members[i].key, ml->u.members[i].val->u.s);
        }
    const char *r = b.len ? kg_buf_cstr(&b) : "<none>";
    char *out = kg_arena_strdup(a, r);
    kg_buf_free(&b);
    return out;
}

static int count_members(const kg_json *o) { return o && (o->type == KG_JSON_OBJECT) ? (int)o->len : 0; }

/* Row cells for one object; columns must match columns_for(). */
static void pod_cells(kg_arena *a, const kg_json *o, kg_json *cells, int64_t now)
{
    kg_json *cs = kg_json_path(o, "spec.containers");
    int total = cs && cs->type == KG_JSON_ARRAY ? (int)cs->len : 0, ready = 0, restarts = 0;
    kg_json *st = kg_json_path(o, "status.containerStatuses");
    const char *reason = kg_json_path_str(o, "status.reason");
    if (!reason)
        reason = kg_json_path_str(o, "status.phase");
    if (st && st->type == KG_JSON_ARRAY)
        for (uint32_t i = 0; i < st->len; i++) {
            kg_json *s = st->u.items[i];
            restarts += (int)geti(s, "restartCount");
            kg_json *rd = kg_json_get(s, "ready");
            if (rd && rd->type == KG_JSON_BOOL && rd->b)
                ready++;
            const char *w = kg_json_path_str(s, "state.waiting.reason");
            if (w && w[0])
                reason = w;
        }
    if (kg_json_path(o, "metadata.deletionTimestamp"))
        reason = "Terminating";
    kg_json_array_append(a, cells, kg_json_new_str(a, kg_arena_sprintf(a, "%d/%d", ready, total)));
    kg_json_array_append(a, cells, str_cell(a, reason ? reason : "Pending"));
    kg_json_array_append(a, cells, kg_json_new_int(a, restarts));
    kg_json_array_append(a, cells, str_cell(a, kg_api_age(a, o, now)));
    const char *ip = kg_json_path_str(o, "status.podIP");
    kg_json_array_append(a, cells, str_cell(a, ip && ip[0] ? ip : "<none>"));
    const char *node = kg_json_path_str(o, "spec.nodeName");
    kg_json_array_append(a, cells, str_cell(a, node && node[0] ? node : "<none>"));
    const char *nom = kg_json_path_str(o, "status.nominatedNodeName");
    kg_json_array_append(a, cells, str_cell(a, nom && nom[0] ? nom : "<none>"));
    kg_json *gates = kg_json_path(o, "spec.readinessGates");
    kg_json_array_append(a, cells,
                         str_cell(a, gates && gates->type == KG_JSON_ARRAY && gates->len
                                         ? kg_arena_sprintf(a, "0/%u", gates->len)
                                         : "<none>"));
}

static void add_containers_images(kg_arena *a, const kg_json *tmpl_spec, kg_json *cells)
{
    kg_json *cs = kg_json_get(tmpl_spec, "containers");
    kg_json_array_append(a, cells, str_cell(a, join_field(a, cs, "name", ",")));
    kg_json_array_append(a, cells, str_cell(a, join_field(a, cs, "image", ",")));
}

typedef struct printer {
    const char *group, *plural;
    const col *cols[10];
} printer;

static const col C_READY = {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0};
static const col C_STATUS = {"Status", "string", "", "The aggregate status of the containers in this pod.", 0};
static const col C_RESTARTS = {"Restarts", "string", "", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0};
static const col C_IP = {"IP", "string", "", "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1};
static const col C_NODE = {"Node", "string", "", "NodeName is a request to schedule this pod onto a specific node.", 1};
static const col C_NOMINATED = {"Nominated Node", "string", "", "nominatedNodeName is set only when this pod preempts other pods on the node.", 1};
static const col C_GATES = {"Readiness Gates", "string", "", "If specified, all readiness gates will be evaluated for pod readiness.", 1};
static const col C_DREADY = {"Ready", "string", "", "Number of the pod with ready state", 0};
static const col C_UPTODATE = {"Up-to-date", "integer", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0};
static const col C_AVAILABLE = {"Available", "integer", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0};
static const col C_CONTAINERS = {"Containers", "string", "", "Names of each container in the template.", 1};
static const col C_IMAGES = {"Images", "string", "", "Images referenced by each container in the template.", 1};
static const col C_SELECTOR = {"Selector", "string", "", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1};
static const col C_DESIRED = {"Desired", "integer", "", "Number of desired pods.", 0};
static const col C_CURRENT = {"Current", "integer", "", "Number of currently running pods.", 0};
static const col C_RREADY = {"Ready", "integer", "", "Number of pods that are ready.", 0};
static const col C_NSSTATUS = {"Status", "string", "", "The status of the namespace", 0};
static const col C_TYPE = {"Type", "string", "", "The type of the service.", 0};
static const col C_CLUSTERIP = {"Cluster-IP", "string", "", "The cluster IP of the service.", 0};
static const col C_EXTERNALIP = {"External-IP", "string", "", "The external IP of the service.", 0};
static const col C_PORTS = {"Port(s)", "string", "", "The ports of the service.", 0};
static const col C_SVCSEL = {"Selector", "string", "", "Route service traffic to pods with label keys and values matching this selector.", 1};
static const col C_DATA = {"Data", "string", "", "Number of data entries.", 0};
static const col C_SECTYPE = {"Type", "string", "", "The type of secret", 0};
static const col C_SECRETS = {"Secrets", "string", "", "Number of secrets referenced by the service account.", 0};
static const col C_COMPLETIONS = {"Completions", "string", "", "The desired number of successfully finished pods the job should be run with.", 0};
static const col C_DURATION = {"Duration", "string", "", "Time required to complete the job.", 0};
static const col C_SCHEDULE = {"Schedule", "string", "", "The schedule in Cron format.", 0};
static const col C_SUSPEND = {"Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions.", 0};
static const col C_ACTIVE = {"Active", "integer", "", "A list of pointers to currently running jobs.", 0};
static const col C_LASTSCHED = {"Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0};
static const col C_NODESTATUS = {"Status", "string", "", "The status of the node", 0};
static const col C_ROLES = {"Roles", "string", "", "The roles of the node", 0};
static const col C_VERSION = {"Version", "string", "", "Kubelet Version reported by the node.", 0};
static const col C_HARD = {"Request", "string", "", "Request represents a minimum amount of cpu/memory that a container may consume.", 0};
static const col C_VALUE = {"Value", "integer", "", "The value of this priority class.", 0};
static const col C_GLOBALDEFAULT = {"Global-Default", "boolean", "", "globalDefault specifies whether this PriorityClass should be considered as the default priority.", 0};
static const col C_PROVISIONER = {"Provisioner", "string", "", "Indicates the type of the provisioner.", 0};
static const col C_HOLDER = {"Holder", "string", "", "The holder of the lease.", 0};
static const col C_TCONTAINERS = {"Containers", "string", "", "Names of each container in the template.", 0};
static const col C_TIMAGES = {"Images", "string", "", "Images referenced by each container in the template.", 0};
static const col C_PODLABELS = {"Pod Labels", "string", "", "The labels for the pod template.", 0};
static const col C_CONTROLLER = {"Controller", "string", "", "Controller of the object.", 0};
static const col C_REVISION = {"Revision", "string", "", "Revision of the ControllerRevision.", 0};
static const col C_PODSELECTOR = {"Pod-Selector", "string", "", "Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.", 0};
static const col C_ADDRTYPE = {"AddressType", "string", "", "The IP protocol for this slice", 0};
static const col C_EPSPORTS = {"Ports", "string", "", "The ports for this slice", 0};
static const col C_EPSENDPOINTS = {"Endpoints", "string", "", "The endpoints of this slice", 0};
static const col C_ATTACHREQ = {"AttachRequired", "boolean", "", "Indicates this CSI volume driver requires an attach operation, and that Kubernetes should call attach and wait for any attach operation to complete before proceeding to mounting.", 0};
static const col C_PODINFO = {"PodInfoOnMount", "boolean", "", "Indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations.", 0};
static const col C_STORAGECAP = {"StorageCapacity", "boolean", "", "Indicates that the CSI volume driver wants pod scheduling to consider the storage capacity.", 0};
static const col C_TOKENREQ = {"TokenRequests", "string", "", "Indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.", 0};
static const col C_REPUBLISH = {"RequiresRepublish", "boolean", "", "RequiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.", 0};
static const col C_MODES = {"Modes", "string", "", "Defines what kind of volumes this CSI volume driver supports.", 0};
static const col C_DRIVERS = {"Drivers", "integer", "", "Drivers indicates the number of CSI drivers registered on the node", 0};
static const col C_ATTACHER = {"Attacher", "string", "", "Attacher indicates the name of the volume driver that MUST handle this request.", 0};
static const col C_PV = {"PV", "string", "", "Name of the persistent volume to attach.", 0};
static const col C_VANODE = {"Node", "string", "", "The node that the volume should be attached to.", 0};
static const col C_ATTACHED = {"Attached", "boolean", "", "Attached indicates the volume is successfully attached.", 0};
static const col C_REFERENCE = {"Reference", "string", "", "Reference to the target resource.", 0};
static const col C_TARGETS = {"Targets", "string", "", "Current and target values of the metrics used to scale.", 0};
static const col C_MINPODS = {"MinPods", "string", "", "Lower limit for the number of pods that can be set by the autoscaler, default 1.", 0};
static const col C_MAXPODS = {"MaxPods", "integer", "", "Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinPods.", 0};
static const col C_HPAREPLICAS = {"Replicas", "integer", "", "Current number of replicas of pods managed by this autoscaler.", 0};
static const col C_PRIOLEVEL = {"PriorityLevel", "string", "", "The name of the PriorityLevelConfiguration this FlowSchema refers to.", 0};
static const col C_MATCHPREC = {"MatchingPrecedence", "string", "", "The matching precedence of this FlowSchema.", 0};
static const col C_DISTMETHOD = {"DistinguisherMethod", "string", "", "The distinguisher method of this FlowSchema.", 0};
static const col C_MISSINGPL = {"MissingPL", "string", "", "indicates whether the PriorityLevelConfiguration this FlowSchema refers to is missing", 0};
static const col C_PLTYPE = {"Type", "string", "", "The type of the PriorityLevelConfiguration", 0};
static const col C_NCS = {"NominalConcurrencyShares", "string", "", "The nominal concurrency shares of the PriorityLevelConfiguration", 0};
static const col C_QUEUES = {"Queues", "string", "", "The number of queues of the PriorityLevelConfiguration", 0};
static const col C_HANDSIZE = {"HandSize", "string", "", "The hand size of the PriorityLevelConfiguration", 0};
static const col C_QLL = {"QueueLengthLimit", "string", "", "The queue length limit of the PriorityLevelConfiguration", 0};
static const col C_MINAVAIL = {"Min Available", "string", "", "The minimum number or percentage of available pods this budget requires.", 0};
static const col C_MAXUNAVAIL = {"Max Unavailable", "string", "", "The maximum number or percentage of unavailable pods this budget requires.", 0};
static const col C_ALLOWED = {"Allowed Disruptions", "integer", "", "Calculated number of pods that may be disrupted at this time.", 0};

/* Event (printers.go eventColumnDefinitions; descriptions from core/v1 Event) */
static const col C_EVLAST = {"Last Seen", "string", "",
                             "The time at which the most recent occurrence of this event was recorded.", 0};
static const col C_EVTYPE = {"Type", "string", "",
                             "Type of this event (Normal, Warning), new types could be added in the future", 0};
static const col C_EVREASON = {"Reason", "string", "",
                               "This should be a short, machine understandable string that gives the reason for the "
                               "transition into the object's current status.",
                               0};
static const col C_EVOBJECT = {"Object", "string", "", "The object that this event is about.", 0};
static const col C_EVSUBOBJ = {
    "Subobject", "string", "",
    "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go "
    "field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a "
    "container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the "
    "name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" "
    "(container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a "
    "part of an object.",
    1};
static const col C_EVSOURCE = {
    "Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1};
static const col C_EVMESSAGE = {"Message", "string", "",
                                "A human-readable description of the status of this operation.", 0};
static const col C_EVFIRST = {
    "First Seen", "string", "",
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1};
static const col C_EVCOUNT = {"Count", "string", "", "The number of times this event has occurred.", 1};
static const col C_EVNAME = {
    "Name", "string", "name",
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a "
    "client to request the generation of an appropriate name automatically. Name is primarily intended for creation "
    "idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    1};

static const printer printers[] = {
    {"", "pods", {&NAME, &C_READY, &C_STATUS, &C_RESTARTS, &AGE, &C_IP, &C_NODE, &C_NOMINATED, &C_GATES}},
    {"apps", "deployments", {&NAME, &C_DREADY, &C_UPTODATE, &C_AVAILABLE, &AGE, &C_CONTAINERS, &C_IMAGES, &C_SELECTOR}},
    {"apps", "replicasets", {&NAME, &C_DESIRED, &C_CURRENT, &C_RREADY, &AGE, &C_CONTAINERS, &C_IMAGES, &C_SELECTOR}},
    {"",
     "replicationcontrollers",
     {&NAME, &C_DESIRED, &C_CURRENT, &C_RREADY, &AGE, &C_CONTAINERS, &C_IMAGES, &C_SELECTOR}},
    {"apps", "statefulsets", {&NAME, &C_DREADY, &AGE, &C_CONTAINERS, &C_IMAGES}},
    {"apps",
     "daemonsets",
     {&NAME, &C_DESIRED, &C_CURRENT, &C_RREADY, &C_UPTODATE, &C_AVAILABLE, &AGE, &C_CONTAINERS, &C_IMAGES}},
    {"", "namespaces", {&NAME, &C_NSSTATUS, &AGE}},
    {"", "services", {&NAME, &C_TYPE, &C_CLUSTERIP, &C_EXTERNALIP, &C_PORTS, &AGE, &C_SVCSEL}},
    {"", "configmaps", {&NAME, &C_DATA, &AGE}},
    {"", "secrets", {&NAME, &C_SECTYPE, &C_DATA, &AGE}},
    {"", "serviceaccounts", {&NAME, &C_SECRETS, &AGE}},
    {"batch", "jobs", {&NAME, &C_NSSTATUS, &C_COMPLETIONS, &C_DURATION, &AGE, &C_CONTAINERS, &C_IMAGES}},
    {"batch", "cronjobs", {&NAME, &C_SCHEDULE, &C_SUSPEND, &C_ACTIVE, &C_LASTSCHED, &AGE, &C_CONTAINERS, &C_IMAGES}},
    {"", "nodes", {&NAME, &C_NODESTATUS, &C_ROLES, &AGE, &C_VERSION}},
    {"", "resourcequotas", {&NAME, &AGE, &C_HARD}},
    {"scheduling.k8s.io", "priorityclasses", {&NAME, &C_VALUE, &C_GLOBALDEFAULT, &AGE}},
    {"storage.k8s.io", "storageclasses", {&NAME, &C_PROVISIONER, &AGE}},
    {"coordination.k8s.io", "leases", {&NAME, &C_HOLDER, &AGE}},
    {"policy", "poddisruptionbudgets", {&NAME, &C_MINAVAIL, &C_MAXUNAVAIL, &C_ALLOWED, &AGE}},
    {"", "podtemplates", {&NAME, &C_TCONTAINERS, &C_TIMAGES, &C_PODLABELS}},
    {"apps", "controllerrevisions", {&NAME, &C_CONTROLLER, &C_REVISION, &AGE}},
    {"networking.k8s.io", "networkpolicies", {&NAME, &C_PODSELECTOR, &AGE}},
    {"discovery.k8s.io", "endpointslices", {&NAME, &C_ADDRTYPE, &C_EPSPORTS, &C_EPSENDPOINTS, &AGE}},
    {"",
     "events",
     {&C_EVLAST, &C_EVTYPE, &C_EVREASON, &C_EVOBJECT, &C_EVSUBOBJ, &C_EVSOURCE, &C_EVMESSAGE, &C_EVFIRST, &C_EVCOUNT,
      &C_EVNAME}},
    {"autoscaling",
     "horizontalpodautoscalers",
     {&NAME, &C_REFERENCE, &C_TARGETS, &C_MINPODS, &C_MAXPODS, &C_HPAREPLICAS, &AGE}},
    {"flowcontrol.apiserver.k8s.io",
     "flowschemas",
     {&NAME, &C_PRIOLEVEL, &C_MATCHPREC, &C_DISTMETHOD, &AGE, &C_MISSINGPL}},
    {"flowcontrol.apiserver.k8s.io",
     "prioritylevelconfigurations",
     {&NAME, &C_PLTYPE, &C_NCS, &C_QUEUES, &C_HANDSIZE, &C_QLL, &AGE}},
    {"storage.k8s.io",
     "csidrivers",
     {&NAME, &C_ATTACHREQ, &C_PODINFO, &C_STORAGECAP, &C_TOKENREQ, &C_REPUBLISH, &C_MODES, &AGE}},
    {"storage.k8s.io", "csinodes", {&NAME, &C_DRIVERS, &AGE}},
    {"storage.k8s.io", "volumeattachments", {&NAME, &C_ATTACHER, &C_PV, &C_VANODE, &C_ATTACHED, &AGE}},
};

static const printer default_printer = {NULL, NULL, {&NAME, &AGE}};

static const printer *printer_for(const kg_resource *r)
{
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++)
        if (!strcmp(printers[i].group, r->group) && !strcmp(printers[i].plural, r->plural))
            return &printers[i];
    return &default_printer;
}

/* printers' formatHPAMetrics: "<name>: <current>/<target>" per metric, at most 3 then " + N more...". */
static const char *hpa_targets(kg_arena *a, const kg_json *o)
{
    const kg_json *specs = kg_json_path(o, "spec.metrics"), *stats = kg_json_path(o, "status.currentMetrics");
    if (!specs || specs->type != KG_JSON_ARRAY || !specs->len)
        return "<none>";
    kg_buf b = KG_BUF_INIT;
    uint32_t n = specs->len;
    for (uint32_t i = 0; i < n && i < 3; i++) {
        const kg_json *m = specs->u.items[i];
        const char *type = kg_json_get_str(m, "type");
        const char *src = !type ? "" : !strcmp(type, "Resource") ? "resource" : !strcmp(type, "ContainerResource") ? "containerResource"
                                   : !strcmp(type, "Pods") ? "pods" : !strcmp(type, "Object") ? "object" : "external";
        const kg_json *ms = kg_json_get(m, src);
        const kg_json *st = stats && stats->type == KG_JSON_ARRAY && i < stats->len ? kg_json_get(stats->u.items[i], src) : NULL;
        const char *name = kg_json_get_str(ms, "name");
        if (!name)
            name = kg_json_path_str(ms, "metric.name");
        const kg_json *tu = kg_json_path(ms, "target.averageUtilization");
        const char *tv = kg_json_path_str(ms, "target.averageValue");
        if (!tv)
            tv = kg_json_path_str(ms, "target.value");
        const char *cur = "<unknown>";
        if (tu && tu->type == KG_JSON_INT) {
            const kg_json *cu = kg_json_path(st, "current.averageUtilization");
            if (cu && cu->type == KG_JSON_INT)
                cur = kg_arena_sprintf(a, "%lld%%", (long long)cu->u.i);
            kg_buf_printf(&b, "%s%s: %s/%lld%%", b.len ? ", " : "", name ? name : "", cur, (long long)tu->u.i);
        } else {
            const char *cv = kg_json_path_str(st, "current.averageValue");
            if (!cv)
                cv = kg_json_path_str(st, "current.value");
            kg_buf_printf(&b, "%s%s: %s/%s", b.len ? ", " : "", name ? name : "", cv ? cv : cur, tv ? tv : "<unknown>");
        }
    }
    if (n > 3)
        kg_buf_printf(&b, " + %u more...", n - 3);
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

/* printEvent: the core-shaped (stored) Event, for core/v1 and events.k8s.io/v1 alike (api/versions.h). */
static const char *since(kg_arena *a, const kg_json *o, const char *path, int64_t now)
{
    int64_t t = parse_rfc3339(kg_json_path_str(o, path));
    return t < 0 ? "<unknown>" : kg_api_human_duration(a, now - t);
}

static const char *first_nonempty(const char *x, const char *y)
{
    return x && x[0] ? x : y ? y : "";
}

static void event_cells(kg_arena *a, const kg_json *o, kg_json *cells, int64_t now)
{
    bool has_first = parse_rfc3339(kg_json_path_str(o, "firstTimestamp")) >= 0;
    const char *first = since(a, o, has_first ? "firstTimestamp" : "eventTime", now);
    const char *last =
        parse_rfc3339(kg_json_path_str(o, "lastTimestamp")) >= 0 ? since(a, o, "lastTimestamp", now) : first;
    int64_t count = geti(o, "count");
    if (kg_json_is(kg_json_get(o, "series"), KG_JSON_OBJECT)) {
        last = since(a, o, "series.lastObservedTime", now);
        count = geti(o, "series.count");
    } else if (count == 0) {
        count = 1; /* singleton events have no count in the new API */
    }
    const char *kind = kg_json_path_str(o, "involvedObject.kind"), *iname = kg_json_path_str(o, "involvedObject.name");
    char *target = kg_arena_strdup(a, kind ? kind : "");
    for (char *c = target; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    if (iname && iname[0])
        target = kg_arena_sprintf(a, "%s/%s", target, iname);
    const char *comp =
        first_nonempty(kg_json_path_str(o, "source.component"), kg_json_get_str(o, "reportingComponent"));
    const char *inst = first_nonempty(kg_json_path_str(o, "source.host"), kg_json_get_str(o, "reportingInstance"));
    const char *msg = kg_json_get_str(o, "message");
    size_t ml = msg ? strlen(msg) : 0, mb = 0;
    while (mb < ml && (msg[mb] == ' ' || msg[mb] == '\n' || msg[mb] == '\t' || msg[mb] == '\r'))
        mb++;
    while (ml > mb && (msg[ml - 1] == ' ' || msg[ml - 1] == '\n' || msg[ml - 1] == '\t' || msg[ml - 1] == '\r'))
        ml--;
    kg_json_array_append(a, cells, str_cell(a, last));
    kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "type")));
    kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "reason")));
    kg_json_array_append(a, cells, str_cell(a, target));
    kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "involvedObject.fieldPath")));
    kg_json_array_append(a, cells, str_cell(a, inst[0] ? kg_arena_sprintf(a, "%s, %s", comp, inst) : comp));
    kg_json_array_append(a, cells, kg_json_new_strn(a, msg ? msg + mb : "", ml - mb));
    kg_json_array_append(a, cells, str_cell(a, first));
    kg_json_array_append(a, cells, kg_json_new_int(a, count));
    kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "metadata.name")));
}

static void row_cells(kg_arena *a, const kg_resource *r, const kg_json *o, kg_json *cells, int64_t now)
{
    if (!strcmp(r->plural, "events") && !r->group[0]) {
        event_cells(a, o, cells, now);
        return;
    }
    const char *name = kg_json_path_str(o, "metadata.name");
    kg_json_array_append(a, cells, str_cell(a, name));
    const char *p = r->plural;
    char *age = kg_api_age(a, o, now);
    if (!strcmp(p, "pods") && !r->group[0]) {
        pod_cells(a, o, cells, now);
    } else if (!strcmp(p, "deployments")) {
        kg_json_array_append(a, cells, kg_json_new_str(a, kg_arena_sprintf(a, "%lld/%lld",
                                                                          (long long)geti(o, "status.readyReplicas"),
                                                                          (long long)geti(o, "spec.replicas"))));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.updatedReplicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.availableReplicas")));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
        kg_json_array_append(a, cells, str_cell(a, selector_string(a, kg_json_path(o, "spec.selector"))));
    } else if (!strcmp(p, "replicasets") || !strcmp(p, "replicationcontrollers")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "spec.replicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.replicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.readyReplicas")));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
        kg_json_array_append(a, cells, str_cell(a, selector_string(a, kg_json_path(o, "spec.selector"))));
    } else if (!strcmp(p, "statefulsets")) {
        kg_json_array_append(a, cells, kg_json_new_str(a, kg_arena_sprintf(a, "%lld/%lld",
                                                                          (long long)geti(o, "status.readyReplicas"),
                                                                          (long long)geti(o, "spec.replicas"))));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
    } else if (!strcmp(p, "daemonsets")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.desiredNumberScheduled")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.currentNumberScheduled")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.numberReady")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.updatedNumberScheduled")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.numberAvailable")));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
    } else if (!strcmp(p, "namespaces") && !r->group[0]) {
        const char *ph = kg_json_path_str(o, "status.phase");
        kg_json_array_append(a, cells, str_cell(a, ph ? ph : "Active"));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "services")) {
        const char *type = kg_json_path_str(o, "spec.type");
        const char *cip = kg_json_path_str(o, "spec.clusterIP");
        kg_json_array_append(a, cells, str_cell(a, type ? type : "ClusterIP"));
        kg_json_array_append(a, cells, str_cell(a, cip && cip[0] ? cip : "<none>"));
        char *eips = join_field(a, kg_json_path(o, "spec.externalIPs"), NULL, ",");
        const char *ext = eips[0] ? eips : (type && !strcmp(type, "ExternalName")) ? kg_json_path_str(o, "spec.externalName")
                                                                                   : "<none>";
        if (type && !strcmp(type, "LoadBalancer") && !eips[0])
            ext = "<pending>";
        kg_json_array_append(a, cells, str_cell(a, ext ? ext : "<none>"));
        kg_buf b = KG_BUF_INIT;
        kg_json *ports = kg_json_path(o, "spec.ports");
        if (ports && ports->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < ports->len; i++) {
                kg_json *pt = ports->u.items[i];
                const char *proto = kg_json_get_str(pt, "protocol");
                int64_t np = geti(pt, "nodePort");
                if (np)
                    kg_buf_printf(&b, "%s%lld:%lld/%s", b.len ? "," : "", (long long)geti(pt, "port"), (long long)np,
                                  proto ? proto : "TCP");
                else
                    kg_buf_printf(&b, "%s%lld/%s", b.len ? "," : "", (long long)geti(pt, "port"),
                                  proto ? proto : "TCP");
            }
        kg_json_array_append(a, cells, str_cell(a, b.len ? kg_buf_cstr(&b) : "<none>"));
        kg_buf_free(&b);
        kg_json_array_append(a, cells, str_cell(a, age));
        kg_json_array_append(a, cells, str_cell(a, selector_string(a, kg_json_path(o, "spec.selector"))));
    } else if (!strcmp(p, "configmaps")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, count_members(kg_json_get(o, "data")) +
                                                               count_members(kg_json_get(o, "binaryData"))));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "secrets")) {
        const char *t = kg_json_get_str(o, "type");
        kg_json_array_append(a, cells, str_cell(a, t ? t : "Opaque"));
        kg_json_array_append(a, cells, kg_json_new_int(a, count_members(kg_json_get(o, "data"))));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "serviceaccounts")) {
        kg_json *s = kg_json_get(o, "secrets");
        kg_json_array_append(a, cells, kg_json_new_int(a, s && s->type == KG_JSON_ARRAY ? s->len : 0));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "jobs")) {
        int64_t succeeded = geti(o, "status.succeeded");
        kg_json *comp = kg_json_path(o, "spec.completions");
        const char *status = "Running";
        kg_json *conds = kg_json_path(o, "status.conditions");
        if (conds && conds->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < conds->len; i++) {
                const char *ct = kg_json_get_str(conds->u.items[i], "type");
                const char *cs = kg_json_get_str(conds->u.items[i], "status");
                if (ct && cs && !strcmp(cs, "True") && (!strcmp(ct, "Complete") || !strcmp(ct, "Failed")))
                    status = ct;
            }
        if (kg_json_path(o, "spec.suspend") && kg_json_path(o, "spec.suspend")->b)
            status = "Suspended";
        kg_json_array_append(a, cells, str_cell(a, status));
        kg_json_array_append(a, cells,
                             kg_json_new_str(a, comp && comp->type == KG_JSON_INT
                                                    ? kg_arena_sprintf(a, "%lld/%lld", (long long)succeeded,
                                                                       (long long)comp->u.i)
                                                    : kg_arena_sprintf(a, "%lld/1 of %lld", (long long)succeeded,
                                                                       (long long)geti(o, "spec.parallelism"))));
        kg_json_array_append(a, cells, str_cell(a, ""));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
    } else if (!strcmp(p, "cronjobs")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.schedule")));
        kg_json *sus = kg_json_path(o, "spec.suspend");
        kg_json_array_append(a, cells, kg_json_new_bool(a, sus && sus->type == KG_JSON_BOOL && sus->b));
        kg_json *act = kg_json_path(o, "status.active");
        kg_json_array_append(a, cells, kg_json_new_int(a, act && act->type == KG_JSON_ARRAY ? act->len : 0));
        kg_json_array_append(a, cells, str_cell(a, "<none>"));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.jobTemplate.spec.template.spec"), cells);
    } else if (!strcmp(p, "nodes")) {
        const char *ready = "Unknown";
        kg_json *conds = kg_json_path(o, "status.conditions");
        if (conds && conds->type == KG_JSON_ARRAY)
            for (uint32_t i = 0; i < conds->len; i++)
                if (!strcmp(kg_json_get_str(conds->u.items[i], "type") ? kg_json_get_str(conds->u.items[i], "type")
                                                                        : "",
                            "Ready"))
                    ready = !strcmp(kg_json_get_str(conds->u.items[i], "status") ?: "", "True") ? "Ready"
                                                                                                 : "NotReady";
        kg_json_array_append(a, cells, str_cell(a, ready));
        kg_json_array_append(a, cells, str_cell(a, "<none>"));
        kg_json_array_append(a, cells, str_cell(a, age));
        const char *v = kg_json_path_str(o, "status.nodeInfo.kubeletVersion");
        kg_json_array_append(a, cells, str_cell(a, v ? v : ""));
    } else if (!strcmp(p, "resourcequotas")) {
        kg_json_array_append(a, cells, str_cell(a, age));
        kg_buf b = KG_BUF_INIT;
        kg_json *hard = kg_json_path(o, "status.hard");
        kg_json *used = kg_json_path(o, "status.used");
        if (hard && hard->type == KG_JSON_OBJECT)
            for (uint32_t i = 0; i < hard->len; i++) {
                const char *u = kg_json_get_str(used, hard->u.members[i].key);
                kg_buf_printf(&b, "%s%s: %s/%s", b.len ? ", " : "", hard->u.members[i].key, u ? u : "0",
                              hard->u.members[i].val->type == KG_JSON_STRING ? hard->u.members[i].val->u.s : "");
            }
        kg_json_array_append(a, cells, str_cell(a, kg_buf_cstr(&b)));
        kg_buf_free(&b);
    } else if (!strcmp(p, "priorityclasses")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "value")));
        kg_json *gd = kg_json_get(o, "globalDefault");
        kg_json_array_append(a, cells, kg_json_new_bool(a, gd && gd->type == KG_JSON_BOOL && gd->b));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "storageclasses")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "provisioner")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "leases")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.holderIdentity")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "podtemplates")) {
        add_containers_images(a, kg_json_path(o, "template.spec"), cells);
        const char *pl = selector_string(a, kg_json_path(o, "template.metadata.labels"));
        kg_json_array_append(a, cells, str_cell(a, pl));
    } else if (!strcmp(p, "controllerrevisions")) {
        const char *ctl = "<none>";
        kg_json *refs = kg_json_path(o, "metadata.ownerReferences");
        for (uint32_t i = 0; refs && refs->type == KG_JSON_ARRAY && i < refs->len; i++) {
            kg_json *c = kg_json_get(refs->u.items[i], "controller");
            if (!c || c->type != KG_JSON_BOOL || !c->b)
                continue;
            const char *av = kg_json_get_str(refs->u.items[i], "apiVersion"), *kind = kg_json_get_str(refs->u.items[i], "kind");
            const char *slash = av ? strchr(av, '/') : NULL;
            char *lk = kg_arena_strdup(a, kind ? kind : "");
            for (char *q = lk; *q; q++)
                if (*q >= 'A' && *q <= 'Z')
                    *q = (char)(*q - 'A' + 'a');
            const char *rn = kg_json_get_str(refs->u.items[i], "name");
            ctl = slash ? kg_arena_sprintf(a, "%s.%.*s/%s", lk, (int)(slash - av), av, rn ? rn : "")
                        : kg_arena_sprintf(a, "%s/%s", lk, rn ? rn : "");
            break;
        }
        kg_json_array_append(a, cells, str_cell(a, ctl));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "revision")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "networkpolicies")) {
        kg_json_array_append(a, cells, str_cell(a, selector_string(a, kg_json_path(o, "spec.podSelector"))));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "endpointslices")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "addressType")));
        kg_buf b = KG_BUF_INIT;
        kg_json *ports = kg_json_get(o, "ports");
        uint32_t np = ports && ports->type == KG_JSON_ARRAY ? ports->len : 0;
        for (uint32_t i = 0; i < np && i < 3; i++) {
            kg_json *pn = kg_json_get(ports->u.items[i], "port");
            if (pn && pn->type == KG_JSON_INT)
                kg_buf_printf(&b, "%s%lld", b.len ? "," : "", (long long)pn->u.i);
        }
        if (np > 3)
            kg_buf_printf(&b, " + %u more...", np - 3);
        kg_json_array_append(a, cells, str_cell(a, b.len ? kg_buf_cstr(&b) : "<unset>"));
        kg_buf_free(&b);
        kg_buf e = KG_BUF_INIT;
        kg_json *eps = kg_json_get(o, "endpoints");
        uint32_t shown = 0, total = 0;
        for (uint32_t i = 0; eps && eps->type == KG_JSON_ARRAY && i < eps->len; i++) {
            kg_json *addrs = kg_json_get(eps->u.items[i], "addresses");
            for (uint32_t k = 0; addrs && addrs->type == KG_JSON_ARRAY && k < addrs->len; k++) {
                total++;
                if (shown < 3 && addrs->u.items[k]->type == KG_JSON_STRING) {
                    kg_buf_printf(&e, "%s%s", e.len ? "," : "", addrs->u.items[k]->u.s);
                    shown++;
                }
            }
        }
        if (total > shown)
            kg_buf_printf(&e, " + %u more...", total - shown);
        kg_json_array_append(a, cells, str_cell(a, e.len ? kg_buf_cstr(&e) : "<unset>"));
        kg_buf_free(&e);
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "horizontalpodautoscalers")) {
        const char *rk = kg_json_path_str(o, "spec.scaleTargetRef.kind"), *rn = kg_json_path_str(o, "spec.scaleTargetRef.name");
        kg_json_array_append(a, cells, kg_json_new_str(a, kg_arena_sprintf(a, "%s/%s", rk ? rk : "", rn ? rn : "")));
        kg_json_array_append(a, cells, str_cell(a, hpa_targets(a, o)));
        kg_json *minr = kg_json_path(o, "spec.minReplicas");
        kg_json_array_append(a, cells, minr && minr->type == KG_JSON_INT ? kg_json_new_str(a, kg_arena_sprintf(a, "%lld", (long long)minr->u.i))
                                                                         : str_cell(a, "<unset>"));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "spec.maxReplicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.currentReplicas")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "flowschemas")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.priorityLevelConfiguration.name")));
        kg_json_array_append(a, cells, kg_json_new_str(a, kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.matchingPrecedence"))));
        const char *dm = kg_json_path_str(o, "spec.distinguisherMethod.type");
        kg_json_array_append(a, cells, str_cell(a, dm ? dm : "<none>"));
        kg_json_array_append(a, cells, str_cell(a, age));
        const char *missing = "?";
        kg_json *conds = kg_json_path(o, "status.conditions");
        for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
            const char *ct = kg_json_get_str(conds->u.items[i], "type");
            if (ct && !strcmp(ct, "Dangling")) {
                const char *cs = kg_json_get_str(conds->u.items[i], "status");
                missing = cs ? cs : "?";
            }
        }
        kg_json_array_append(a, cells, str_cell(a, missing));
    } else if (!strcmp(p, "prioritylevelconfigurations")) {
        const char *type = kg_json_path_str(o, "spec.type");
        kg_json_array_append(a, cells, str_cell(a, type));
        const char *ncs = "<none>", *queues = "<none>", *hand = "<none>", *qll = "<none>";
        if (type && !strcmp(type, "Limited")) {
            ncs = kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.limited.nominalConcurrencyShares"));
            const char *lr = kg_json_path_str(o, "spec.limited.limitResponse.type");
            if (lr && !strcmp(lr, "Queue")) {
                queues = kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.limited.limitResponse.queuing.queues"));
                hand = kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.limited.limitResponse.queuing.handSize"));
                qll = kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.limited.limitResponse.queuing.queueLengthLimit"));
            }
        } else if (type && !strcmp(type, "Exempt")) {
            ncs = kg_arena_sprintf(a, "%lld", (long long)geti(o, "spec.exempt.nominalConcurrencyShares"));
        }
        kg_json_array_append(a, cells, str_cell(a, ncs));
        kg_json_array_append(a, cells, str_cell(a, queues));
        kg_json_array_append(a, cells, str_cell(a, hand));
        kg_json_array_append(a, cells, str_cell(a, qll));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "csidrivers")) {
        kg_json *ar = kg_json_path(o, "spec.attachRequired");
        kg_json_array_append(a, cells, kg_json_new_bool(a, !ar || ar->type != KG_JSON_BOOL || ar->b));
        static const char *const flags[] = {"spec.podInfoOnMount", "spec.storageCapacity"};
        for (int i = 0; i < 2; i++) {
            kg_json *v = kg_json_path(o, flags[i]);
            kg_json_array_append(a, cells, kg_json_new_bool(a, v && v->type == KG_JSON_BOOL && v->b));
        }
        char *tr = join_field(a, kg_json_path(o, "spec.tokenRequests"), "audience", ",");
        kg_json_array_append(a, cells, str_cell(a, tr[0] ? tr : "<unset>"));
        kg_json *rr = kg_json_path(o, "spec.requiresRepublish");
        kg_json_array_append(a, cells, kg_json_new_bool(a, rr && rr->type == KG_JSON_BOOL && rr->b));
        char *modes = join_field(a, kg_json_path(o, "spec.volumeLifecycleModes"), NULL, ",");
        kg_json_array_append(a, cells, str_cell(a, modes[0] ? modes : "<none>"));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "csinodes")) {
        kg_json *d = kg_json_path(o, "spec.drivers");
        kg_json_array_append(a, cells, kg_json_new_int(a, d && d->type == KG_JSON_ARRAY ? d->len : 0));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "volumeattachments")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.attacher")));
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.source.persistentVolumeName")));
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.nodeName")));
        kg_json *at = kg_json_path(o, "status.attached");
        kg_json_array_append(a, cells, kg_json_new_bool(a, at && at->type == KG_JSON_BOOL && at->b));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "poddisruptionbudgets")) {
        static const char *const f[] = {"spec.minAvailable", "spec.maxUnavailable"};
        for (int i = 0; i < 2; i++) {
            const kg_json *v = kg_json_path(o, f[i]);
            kg_json_array_append(a, cells, v && v->type == KG_JSON_INT      ? kg_json_new_str(a, kg_arena_sprintf(a, "%lld", (long long)v->u.i))
                                           : v && v->type == KG_JSON_STRING ? str_cell(a, v->u.s)
                                                                            : str_cell(a, "N/A"));
        }
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.disruptionsAllowed")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else {
        kg_json_array_append(a, cells, str_cell(a, age));
    }
}

kg_json *kg_api_table(kg_arena *a, const kg_resource *r, kg_json *const *objs, size_t n, const char *include_object,
                      const char *list_rv)
{
    const printer *pr = printer_for(r);
    kg_json *t = kg_json_new_object(a);
    kg_json_set(a, t, "kind", sref(a, "Table"));
    kg_json_set(a, t, "apiVersion", sref(a, "meta.k8s.io/v1"));
    kg_json *md = kg_json_new_object(a);
    if (list_rv && list_rv[0])
        kg_json_set(a, md, "resourceVersion", kg_json_new_str(a, list_rv));
    kg_json_set(a, t, "metadata", md);
    kg_json *cols = r->ext ? kg_dynamic_table_columns(a, r) : kg_json_new_array(a);
    for (int i = 0; !r->ext && i < 10 && pr->cols[i]; i++) {
        kg_json *c = kg_json_new_object(a);
        kg_json_set(a, c, "name", sref(a, pr->cols[i]->name));
        kg_json_set(a, c, "type", sref(a, pr->cols[i]->type));
        kg_json_set(a, c, "format", sref(a, pr->cols[i]->format));
        kg_json_set(a, c, "description", sref(a, pr->cols[i]->desc));
        kg_json_set(a, c, "priority", kg_json_new_int(a, pr->cols[i]->priority));
        kg_json_array_append(a, cols, c);
    }
    kg_json_set(a, t, "columnDefinitions", cols);
    kg_json *rows = kg_json_new_array(a);
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        kg_json *row = kg_json_new_object(a);
        kg_json *cells = kg_json_new_array(a);
        if (r->ext)
            kg_dynamic_table_cells(a, r, objs[i], cells, now);
        else
            row_cells(a, r, objs[i], cells, now);
        kg_json_set(a, row, "cells", cells);
        if (!include_object || !include_object[0] || !strcmp(include_object, "Metadata")) {
            kg_json *pom = kg_json_new_object(a);
            kg_json_set(a, pom, "kind", sref(a, "PartialObjectMetadata"));
            kg_json_set(a, pom, "apiVersion", sref(a, "meta.k8s.io/v1"));
            kg_json *omd = kg_json_get(objs[i], "metadata");
            kg_json_set(a, pom, "metadata", omd ? omd : kg_json_new_object(a));
            kg_json_set(a, row, "object", pom);
        } else if (!strcmp(include_object, "Object")) {
            kg_json_set(a, row, "object", objs[i]);
        }
        kg_json_array_append(a, rows, row);
    }
    kg_json_set(a, t, "rows", rows);
    return t;
}

kg_json *kg_api_scale_from(kg_arena *a, const kg_resource *r, const kg_json *obj)
{
    kg_json *s = kg_json_new_object(a);
    kg_json_set(a, s, "kind", sref(a, "Scale"));
    kg_json_set(a, s, "apiVersion", sref(a, "autoscaling/v1"));
    kg_json *md = kg_json_new_object(a);
    const kg_json *omd = kg_json_get(obj, "metadata");
    static const char *const keep[] = {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"};
    for (int i = 0; i < 5; i++) {
        kg_json *v = kg_json_get(omd, keep[i]);
        if (v)
            kg_json_set(a, md, keep[i], v);
    }
    kg_json_set(a, s, "metadata", md);
    kg_json *spec = kg_json_new_object(a);
    kg_json_set(a, spec, "replicas", kg_json_new_int(a, geti(obj, "spec.replicas")));
    kg_json_set(a, s, "spec", spec);
    kg_json *st = kg_json_new_object(a);
    kg_json_set(a, st, "replicas", kg_json_new_int(a, geti(obj, "status.replicas")));
    kg_json *sel = kg_json_path(obj, "spec.selector");
    if (sel && sel->type == KG_JSON_OBJECT) {
        char *ss = selector_string(a, sel);
        if (strcmp(ss, "<none>"))
            kg_json_set(a, st, "selector", kg_json_new_str(a, ss));
    }
    const kg_dynamic_info *info = r->ext ? kg_dynamic_info_of(r) : NULL;
    if (info && info->spec_replicas_path) { /* a custom resource: its CRD's scale paths */
        const kg_json *v = kg_dynamic_json_path(obj, info->spec_replicas_path);
        kg_json_set(a, spec, "replicas", kg_json_new_int(a, v && v->type == KG_JSON_INT ? v->u.i : 0));
        v = info->status_replicas_path ? kg_dynamic_json_path(obj, info->status_replicas_path) : NULL;
        kg_json_set(a, st, "replicas", kg_json_new_int(a, v && v->type == KG_JSON_INT ? v->u.i : 0));
        v = info->label_selector_path ? kg_dynamic_json_path(obj, info->label_selector_path) : NULL;
        if (v && v->type == KG_JSON_STRING)
            kg_json_set(a, st, "selector", (kg_json *)v);
        else
            kg_json_del(st, "selector");
    }
    kg_json_set(a, s, "status", st);
    return s;
}
