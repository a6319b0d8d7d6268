#include "api/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/dynamic.h"
#include "api/table_dynamic.h"
#include "api/table_internal.h"
#include "meta/quantity.h"

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

typedef kg_table_col col;

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

static int count_members(const kg_json *o)
{
    return o && (o->type == KG_JSON_OBJECT) ? (int)o->len : 0;
}

static bool is_true(const kg_json *v)
{
    return v && v->type == KG_JSON_BOOL && v->b;
}

/* A pod condition's status ("" when the condition is absent). */
static const char *pod_condition(const kg_json *o, const char *type)
{
    const kg_json *conds = kg_json_path(o, "status.conditions");
    for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
        const char *ct = kg_json_get_str(conds->u.items[i], "type");
        if (ct && !strcmp(ct, type)) {
            const char *cs = kg_json_get_str(conds->u.items[i], "status");
            return cs ? cs : "";
        }
    }
    return "";
}

/* Is the init container named name a sidecar (restartPolicy: Always)? */
static bool restartable_init(const kg_json *o, const char *name)
{
    const kg_json *ic = kg_json_path(o, "spec.initContainers");
    for (uint32_t i = 0; name && ic && ic->type == KG_JSON_ARRAY && i < ic->len; i++) {
        const char *n = kg_json_get_str(ic->u.items[i], "name"), *rp = kg_json_get_str(ic->u.items[i], "restartPolicy");
        if (n && !strcmp(n, name))
            return rp && !strcmp(rp, "Always");
    }
    return false;
}

/* The later of *last and a container status' lastState.terminated.finishedAt. */
static void last_restart(const kg_json *cs, int64_t *last)
{
    int64_t t = kg_table_time(kg_json_path_str(cs, "lastState.terminated.finishedAt"));
    if (t > *last)
        *last = t;
}

/* The reason of a terminated state: its reason, else "Signal:N" / "ExitCode:N". */
static char *terminated_reason(kg_arena *a, const kg_json *term)
{
    const char *r = kg_json_get_str(term, "reason");
    if (r && r[0])
        return kg_arena_strdup(a, r);
    int64_t sig = geti(term, "signal");
    return sig ? kg_arena_sprintf(a, "Signal:%lld", (long long)sig)
               : kg_arena_sprintf(a, "ExitCode:%lld", (long long)geti(term, "exitCode"));
}

/* printPod: READY, STATUS (init progress, waiting/terminated reasons, Terminating), RESTARTS with the time of the
 * last restart, and the wide IP / node / nominated node / readiness gates. */
static void pod_cells(kg_arena *a, const kg_json *o, kg_json *cells, int64_t now)
{
    const kg_json *ics = kg_json_path(o, "spec.initContainers");
    uint32_t ninit = ics && ics->type == KG_JSON_ARRAY ? ics->len : 0;
    const kg_json *cs = kg_json_path(o, "spec.containers");
    int64_t total = cs && cs->type == KG_JSON_ARRAY ? cs->len : 0, ready = 0, restarts = 0, sidecar_restarts = 0;
    int64_t last = -1, sidecar_last = -1;
    for (uint32_t i = 0; i < ninit; i++)
        total += restartable_init(o, kg_json_get_str(ics->u.items[i], "name"));
    const char *phase = kg_json_path_str(o, "status.phase");
    const char *reason = kg_json_path_str(o, "status.reason");
    reason = reason && reason[0] ? reason : phase ? phase : "";
    const kg_json *conds = kg_json_path(o, "status.conditions");
    for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
        const char *ct = kg_json_get_str(conds->u.items[i], "type"), *cr = kg_json_get_str(conds->u.items[i], "reason");
        if (ct && cr && !strcmp(ct, "PodScheduled") && !strcmp(cr, "SchedulingGated"))
            reason = "SchedulingGated";
    }
    bool initializing = false;
    const kg_json *ist = kg_json_path(o, "status.initContainerStatuses");
    for (uint32_t i = 0; ist && ist->type == KG_JSON_ARRAY && i < ist->len; i++) {
        const kg_json *c = ist->u.items[i];
        bool sidecar = restartable_init(o, kg_json_get_str(c, "name"));
        restarts += geti(c, "restartCount");
        last_restart(c, &last);
        if (sidecar) {
            sidecar_restarts += geti(c, "restartCount");
            last_restart(c, &sidecar_last);
        }
        const kg_json *term = kg_json_path(c, "state.terminated");
        const char *wait = kg_json_path_str(c, "state.waiting.reason");
        if (term && geti(term, "exitCode") == 0)
            continue;
        if (sidecar && is_true(kg_json_get(c, "started"))) {
            ready += is_true(kg_json_get(c, "ready"));
            continue;
        }
        if (term)
            reason = kg_arena_sprintf(a, "Init:%s", terminated_reason(a, term));
        else if (wait && wait[0] && strcmp(wait, "PodInitializing"))
            reason = kg_arena_sprintf(a, "Init:%s", wait);
        else
            reason = kg_arena_sprintf(a, "Init:%u/%u", i, ninit);
        initializing = true;
        break;
    }
    if (!initializing || !strcmp(pod_condition(o, "Initialized"), "True")) {
        restarts = sidecar_restarts;
        last = sidecar_last;
        bool running = false;
        const kg_json *st = kg_json_path(o, "status.containerStatuses");
        for (uint32_t i = st && st->type == KG_JSON_ARRAY ? st->len : 0; i-- > 0;) {
            const kg_json *c = st->u.items[i];
            restarts += geti(c, "restartCount");
            last_restart(c, &last);
            const char *wait = kg_json_path_str(c, "state.waiting.reason");
            const kg_json *term = kg_json_path(c, "state.terminated");
            if (wait && wait[0])
                reason = wait;
            else if (term)
                reason = terminated_reason(a, term);
            else if (is_true(kg_json_get(c, "ready")) && kg_json_path(c, "state.running")) {
                running = true;
                ready++;
            }
        }
        if (!strcmp(reason, "Completed") && running)
            reason = !strcmp(pod_condition(o, "Ready"), "True") ? "Running" : "NotReady";
    }
    bool terminal = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
    const char *sreason = kg_json_path_str(o, "status.reason");
    if (kg_json_path(o, "metadata.deletionTimestamp") && sreason && !strcmp(sreason, "NodeLost"))
        reason = "Unknown";
    else if (kg_json_path(o, "metadata.deletionTimestamp") && !terminal)
        reason = "Terminating";
    char *rs = restarts && last >= 0
                   ? kg_arena_sprintf(a, "%lld (%s ago)", (long long)restarts, kg_api_human_duration(a, now - last))
                   : kg_arena_sprintf(a, "%lld", (long long)restarts);
    kg_json_array_append(a, cells,
                         kg_json_new_str(a, kg_arena_sprintf(a, "%lld/%lld", (long long)ready, (long long)total)));
    kg_json_array_append(a, cells, str_cell(a, reason));
    kg_json_array_append(a, cells, str_cell(a, rs));
    kg_json_array_append(a, cells, str_cell(a, kg_api_age(a, o, now)));
    const kg_json *ips = kg_json_path(o, "status.podIPs");
    const char *ip = ips && ips->type == KG_JSON_ARRAY && ips->len ? kg_json_get_str(ips->u.items[0], "ip")
                                                                   : kg_json_path_str(o, "status.podIP");
    kg_json_array_append(a, cells, str_cell(a, ip && ip[0] ? ip : "<none>"));
    const char *node = kg_json_path_str(o, "spec.nodeName");
    kg_json_array_append(a, cells, str_cell(a, node && node[0] ? node : "<none>"));
    const char *nom = kg_json_path_str(o, "status.nominatedNodeName");
    kg_json_array_append(a, cells, str_cell(a, nom && nom[0] ? nom : "<none>"));
    const kg_json *gates = kg_json_path(o, "spec.readinessGates");
    const char *rg = "<none>";
    if (gates && gates->type == KG_JSON_ARRAY && gates->len) {
        uint32_t t = 0;
        for (uint32_t i = 0; i < gates->len; i++) {
            const char *ct = kg_json_get_str(gates->u.items[i], "conditionType");
            t += ct && !strcmp(pod_condition(o, ct), "True");
        }
        rg = kg_arena_sprintf(a, "%u/%u", t, gates->len);
    }
    kg_json_array_append(a, cells, str_cell(a, rg));
}

static void add_containers_images(kg_arena *a, const kg_json *tmpl_spec, kg_json *cells)
{
    kg_json *cs = kg_json_get(tmpl_spec, "containers");
    kg_json_array_append(a, cells, str_cell(a, join_field(a, cs, "name", ",")));
    kg_json_array_append(a, cells, str_cell(a, join_field(a, cs, "image", ",")));
}

typedef kg_table_printer printer;

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
static const col C_RECLAIMPOLICY = {
    "ReclaimPolicy", "string", "",
    "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.", 0};
static const col C_BINDINGMODE = {
    "VolumeBindingMode", "string", "",
    "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.", 0};
static const col C_EXPANSION = {"AllowVolumeExpansion", "string", "",
                                "allowVolumeExpansion shows whether the storage class allow volume expand.", 0};
static const col C_PREEMPTION = {"PreemptionPolicy", "string", "",
                                 "preemptionPolicy is the Policy for preempting pods with lower priority.", 0};
static const col C_LIMIT = {
    "Limit", "string", "",
    "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
    0};
static const col C_NODESELECTOR = {"Node Selector", "string", "",
                                   "NodeSelector is a selector which must be true for the pod to fit on a node.", 0};
static const col C_DSSELECTOR = {"Selector", "string", "",
                                 "A label query over pods that are managed by the daemon set.", 1};
static const col C_JOBSTATUS = {"Status", "string", "", "Status of the job.", 0};
static const col C_JOBSELECTOR = {"Selector", "string", "", "A label query over pods that should match the pod count.",
                                  1};
static const col C_TIMEZONE = {"Timezone", "string", "", "The time zone name for the given schedule.", 0};
static const col C_INTERNALIP = {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1};
static const col C_NODEEXTERNALIP = {"External-IP", "string", "", "List of addresses reachable to the node.", 1};
static const col C_OSIMAGE = {"OS-Image", "string", "",
                              "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
                              1};
static const col C_KERNEL = {"Kernel-Version", "string", "",
                             "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1};
static const col C_RUNTIME = {
    "Container-Runtime", "string", "",
    "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1};
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
     {&NAME, &C_DESIRED, &C_CURRENT, &C_RREADY, &C_UPTODATE, &C_AVAILABLE, &C_NODESELECTOR, &AGE, &C_CONTAINERS,
      &C_IMAGES, &C_DSSELECTOR}},
    {"", "namespaces", {&NAME, &C_NSSTATUS, &AGE}},
    {"", "services", {&NAME, &C_TYPE, &C_CLUSTERIP, &C_EXTERNALIP, &C_PORTS, &AGE, &C_SVCSEL}},
    {"", "configmaps", {&NAME, &C_DATA, &AGE}},
    {"", "secrets", {&NAME, &C_SECTYPE, &C_DATA, &AGE}},
    {"", "serviceaccounts", {&NAME, &C_SECRETS, &AGE}},
    {"batch",
     "jobs",
     {&NAME, &C_JOBSTATUS, &C_COMPLETIONS, &C_DURATION, &AGE, &C_CONTAINERS, &C_IMAGES, &C_JOBSELECTOR}},
    {"batch",
     "cronjobs",
     {&NAME, &C_SCHEDULE, &C_TIMEZONE, &C_SUSPEND, &C_ACTIVE, &C_LASTSCHED, &AGE, &C_CONTAINERS, &C_IMAGES,
      &C_JOBSELECTOR}},
    {"",
     "nodes",
     {&NAME, &C_NODESTATUS, &C_ROLES, &AGE, &C_VERSION, &C_INTERNALIP, &C_NODEEXTERNALIP, &C_OSIMAGE, &C_KERNEL,
      &C_RUNTIME}},
    {"", "resourcequotas", {&NAME, &C_HARD, &C_LIMIT, &AGE}},
    {"scheduling.k8s.io", "priorityclasses", {&NAME, &C_VALUE, &C_GLOBALDEFAULT, &AGE, &C_PREEMPTION}},
    {"storage.k8s.io", "storageclasses", {&NAME, &C_PROVISIONER, &C_RECLAIMPOLICY, &C_BINDINGMODE, &C_EXPANSION, &AGE}},
    {"coordination.k8s.io", "leases", {&NAME, &C_HOLDER, &AGE}},
    {"policy", "poddisruptionbudgets", {&NAME, &C_MINAVAIL, &C_MAXUNAVAIL, &C_ALLOWED, &AGE}},
    {"", "podtemplates", {&NAME, &C_TCONTAINERS, &C_TIMAGES, &C_PODLABELS}},
    {"apps", "controllerrevisions", {&NAME, &C_CONTROLLER, &C_REVISION, &AGE}},
    {"networking.k8s.io", "networkpolicies", {&NAME, &C_PODSELECTOR, &AGE}},
    {"discovery.k8s.io", "endpointslices", {&NAME, &C_ADDRTYPE, &C_EPSPORTS, &C_EPSENDPOINTS, &AGE}},
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

/* rest.NewDefaultTableConvertor, for the kinds upstream has no printer for (Roles, ClusterRoles, LimitRanges,
 * CustomResourceDefinitions): Name and the creation time as RFC 3339. */
static const col C_CREATEDAT = {"Created At", "date", "",
                                "CreationTimestamp is a timestamp representing the server time when this object was "
                                "created.",
                                0};
static const printer default_printer = {NULL, NULL, {&NAME, &C_CREATEDAT}};

static const printer *printer_for(const kg_resource *r)
{
    for (size_t i = 0; i < sizeof printers / sizeof printers[0]; i++)
        if (!strcmp(printers[i].group, r->group) && !strcmp(printers[i].plural, r->plural))
            return &printers[i];
    const printer *more = kg_table_more_printer(r);
    return more ? more : &default_printer;
}

/* printers' formatHPAMetrics: per metric "<cur>/<target>" ("(avg)" for average values of Object and External
 * metrics, "<name>: " before Resource and ContainerResource ones, "<auto>" for a utilization target not set), at
 * most 2 then " + N more...". */
static const char *hpa_targets(kg_arena *a, const kg_json *o)
{
    const kg_json *specs = kg_json_path(o, "spec.metrics"), *stats = kg_json_path(o, "status.currentMetrics");
    if (!specs || specs->type != KG_JSON_ARRAY || !specs->len)
        return "<none>";
    kg_buf b = KG_BUF_INIT;
    uint32_t n = specs->len;
    for (uint32_t i = 0; i < n && i < 2; i++) {
        const kg_json *m = specs->u.items[i];
        const char *type = kg_json_get_str(m, "type");
        type = type ? type : "";
        const char *src = !strcmp(type, "Resource")            ? "resource"
                          : !strcmp(type, "ContainerResource") ? "containerResource"
                          : !strcmp(type, "Pods")              ? "pods"
                          : !strcmp(type, "Object")            ? "object"
                          : !strcmp(type, "External")          ? "external"
                                                               : NULL;
        kg_buf_puts(&b, i ? ", " : "");
        if (!src) {
            kg_buf_puts(&b, "<unknown type>");
            continue;
        }
        const kg_json *ms = kg_json_get(m, src);
        const kg_json *st =
            stats && stats->type == KG_JSON_ARRAY && i < stats->len ? kg_json_get(stats->u.items[i], src) : NULL;
        const char *tavg = kg_json_path_str(ms, "target.averageValue");
        const char *cavg = kg_json_path_str(st, "current.averageValue");
        if (!strcmp(src, "pods")) {
            kg_buf_printf(&b, "%s/%s", st ? (cavg ? cavg : "0") : "<unknown>", tavg ? tavg : "0");
        } else if (!strcmp(src, "object") || !strcmp(src, "external")) {
            if (tavg) {
                kg_buf_printf(&b, "%s/%s (avg)", cavg ? cavg : "<unknown>", tavg);
            } else {
                const char *cv = kg_json_path_str(st, "current.value"), *tv = kg_json_path_str(ms, "target.value");
                kg_buf_printf(&b, "%s/%s", st ? (cv ? cv : "0") : "<unknown>", tv ? tv : "0");
            }
        } else {
            const char *name = kg_json_get_str(ms, "name");
            if (tavg) {
                kg_buf_printf(&b, "%s: %s/%s", name ? name : "", st ? (cavg ? cavg : "0") : "<unknown>", tavg);
            } else {
                const kg_json *cu = kg_json_path(st, "current.averageUtilization");
                const kg_json *tu = kg_json_path(ms, "target.averageUtilization");
                char *cur =
                    cu && cu->type == KG_JSON_INT ? kg_arena_sprintf(a, "%lld%%", (long long)cu->u.i) : "<unknown>";
                char *tgt =
                    tu && tu->type == KG_JSON_INT ? kg_arena_sprintf(a, "%lld%%", (long long)tu->u.i) : "<auto>";
                kg_buf_printf(&b, "%s: %s/%s", name ? name : "", cur, tgt);
            }
        }
    }
    if (n > 2)
        kg_buf_printf(&b, " + %u more...", n - 2);
    char *r = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return r;
}

/* printJob: Status from the conditions, Completions "s/c" or "s/1 of p", Duration from start to completion (or now). */
static bool job_condition(const kg_json *o, const char *type)
{
    const kg_json *conds = kg_json_path(o, "status.conditions");
    for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
        const char *ct = kg_json_get_str(conds->u.items[i], "type"), *cs = kg_json_get_str(conds->u.items[i], "status");
        if (ct && !strcmp(ct, type))
            return cs && !strcmp(cs, "True");
    }
    return false;
}

static void job_cells(kg_arena *a, const kg_json *o, kg_json *cells, int64_t now)
{
    const char *status = job_condition(o, "Complete")                    ? "Complete"
                         : job_condition(o, "Failed")                    ? "Failed"
                         : kg_json_path(o, "metadata.deletionTimestamp") ? "Terminating"
                         : job_condition(o, "Suspended")                 ? "Suspended"
                         : job_condition(o, "FailureTarget")             ? "FailureTarget"
                                                                         : "Running";
    int64_t succeeded = geti(o, "status.succeeded"), par = geti(o, "spec.parallelism");
    const kg_json *comp = kg_json_path(o, "spec.completions");
    char *completions = comp && comp->type == KG_JSON_INT
                            ? kg_arena_sprintf(a, "%lld/%lld", (long long)succeeded, (long long)comp->u.i)
                        : par > 1 ? kg_arena_sprintf(a, "%lld/1 of %lld", (long long)succeeded, (long long)par)
                                  : kg_arena_sprintf(a, "%lld/1", (long long)succeeded);
    int64_t start = kg_table_time(kg_json_path_str(o, "status.startTime"));
    int64_t end = kg_table_time(kg_json_path_str(o, "status.completionTime"));
    char *dur = start < 0 ? "" : kg_api_human_duration(a, (end < 0 ? now : end) - start);
    kg_json_array_append(a, cells, str_cell(a, status));
    kg_json_array_append(a, cells, str_cell(a, completions));
    kg_json_array_append(a, cells, str_cell(a, dur));
    kg_json_array_append(a, cells, str_cell(a, kg_api_age(a, o, now)));
    add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
    kg_json_array_append(a, cells, str_cell(a, kg_table_format_selector(a, kg_json_path(o, "spec.selector"))));
}

static int cmp_strp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* printNode: Ready / NotReady / Unknown (+ SchedulingDisabled), roles from the node-role labels, and the wide
 * addresses and node info ("<unknown>" when empty). */
static void node_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const char *ready = "Unknown";
    const kg_json *conds = kg_json_path(o, "status.conditions");
    for (uint32_t i = 0; conds && conds->type == KG_JSON_ARRAY && i < conds->len; i++) {
        const char *ct = kg_json_get_str(conds->u.items[i], "type"), *cs = kg_json_get_str(conds->u.items[i], "status");
        if (ct && !strcmp(ct, "Ready"))
            ready = cs && !strcmp(cs, "True") ? "Ready" : "NotReady";
    }
    const kg_json *unsched = kg_json_path(o, "spec.unschedulable");
    bool disabled = unsched && unsched->type == KG_JSON_BOOL && unsched->b;
    kg_json_array_append(a, cells, str_cell(a, disabled ? kg_arena_sprintf(a, "%s,SchedulingDisabled", ready) : ready));
    /* findNodeRoles: node-role.kubernetes.io/<role> keys and kubernetes.io/role values, sorted and unique */
    const kg_json *labels = kg_json_path(o, "metadata.labels");
    uint32_t n = labels && labels->type == KG_JSON_OBJECT ? labels->len : 0, k = 0;
    const char **roles = kg_arena_alloc(a, (n + 1) * sizeof *roles);
    static const char prefix[] = "node-role.kubernetes.io/";
    for (uint32_t i = 0; i < n; i++) {
        const char *key = labels->u.members[i].key, *role = NULL;
        const kg_json *v = labels->u.members[i].val;
        if (!strncmp(key, prefix, sizeof prefix - 1) && key[sizeof prefix - 1])
            role = key + sizeof prefix - 1;
        else if (!strcmp(key, "kubernetes.io/role") && v->type == KG_JSON_STRING && v->len)
            role = v->u.s;
        bool dup = false;
        for (uint32_t j = 0; role && j < k && !dup; j++)
            dup = !strcmp(roles[j], role);
        if (role && !dup)
            roles[k++] = role;
    }
    qsort(roles, k, sizeof *roles, cmp_strp);
    kg_buf b = KG_BUF_INIT;
    for (uint32_t i = 0; i < k; i++)
        kg_buf_printf(&b, "%s%s", i ? "," : "", roles[i]);
    kg_json_array_append(a, cells, str_cell(a, b.len ? kg_buf_cstr(&b) : "<none>"));
    kg_buf_free(&b);
    kg_json_array_append(a, cells, str_cell(a, age));
    kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "status.nodeInfo.kubeletVersion")));
    static const char *const addr_types[] = {"InternalIP", "ExternalIP"};
    const kg_json *addrs = kg_json_path(o, "status.addresses");
    for (int t = 0; t < 2; t++) {
        const char *found = "<none>";
        for (uint32_t i = 0; addrs && addrs->type == KG_JSON_ARRAY && i < addrs->len; i++) {
            const char *at = kg_json_get_str(addrs->u.items[i], "type");
            if (at && !strcmp(at, addr_types[t])) {
                const char *ad = kg_json_get_str(addrs->u.items[i], "address");
                found = ad ? ad : "";
                break;
            }
        }
        kg_json_array_append(a, cells, str_cell(a, found));
    }
    static const char *const info[] = {"status.nodeInfo.osImage", "status.nodeInfo.kernelVersion",
                                       "status.nodeInfo.containerRuntimeVersion"};
    for (int i = 0; i < 3; i++) {
        const char *v = kg_json_path_str(o, info[i]);
        kg_json_array_append(a, cells, str_cell(a, v && v[0] ? v : "<unknown>"));
    }
}

/* Quantity.String() of a quota amount ("0" when absent). */
static char *quota_amount(kg_arena *a, const kg_json *v)
{
    kg_quantity q;
    kg_error err;
    if (v && v->type == KG_JSON_STRING && kg_quantity_parse(v->u.s, v->len, &q, &err))
        return kg_quantity_string(a, &q);
    if (v && v->type == KG_JSON_INT)
        return kg_arena_sprintf(a, "%lld", (long long)v->u.i);
    return kg_arena_strdup(a, "0");
}

/* printResourceQuota: status.hard sorted by name, "name: used/hard" under Request, or under Limit for limits.*. */
static void quota_cells(kg_arena *a, const kg_json *o, kg_json *cells)
{
    const kg_json *hard = kg_json_path(o, "status.hard"), *used = kg_json_path(o, "status.used");
    uint32_t n = hard && hard->type == KG_JSON_OBJECT ? hard->len : 0;
    const char **keys = kg_arena_alloc(a, (n + 1) * sizeof *keys);
    for (uint32_t i = 0; i < n; i++)
        keys[i] = hard->u.members[i].key;
    qsort(keys, n, sizeof *keys, cmp_strp);
    kg_buf req = KG_BUF_INIT, lim = KG_BUF_INIT;
    for (uint32_t i = 0; i < n; i++) {
        kg_buf *w = !strncmp(keys[i], "limits.", 7) ? &lim : &req;
        kg_buf_printf(w, "%s%s: %s/%s", w->len ? ", " : "", keys[i], quota_amount(a, kg_json_get(used, keys[i])),
                      quota_amount(a, kg_json_get(hard, keys[i])));
    }
    kg_json_array_append(a, cells, str_cell(a, kg_buf_cstr(&req)));
    kg_json_array_append(a, cells, str_cell(a, kg_buf_cstr(&lim)));
    kg_buf_free(&req);
    kg_buf_free(&lim);
}

/* printStorageClass: "<name> (default)" for the default class, Delete / Immediate / false when unset. */
static void storageclass_cells(kg_arena *a, const kg_json *o, kg_json *cells, const char *age)
{
    const kg_json *ann = kg_json_path(o, "metadata.annotations");
    const char *d = kg_json_get_str(ann, "storageclass.kubernetes.io/is-default-class");
    if (!d)
        d = kg_json_get_str(ann, "storageclass.beta.kubernetes.io/is-default-class");
    if (d && !strcmp(d, "true"))
        cells->u.items[cells->len - 1] =
            str_cell(a, kg_arena_sprintf(a, "%s (default)", kg_json_path_str(o, "metadata.name")));
    const char *rp = kg_json_get_str(o, "reclaimPolicy"), *bm = kg_json_get_str(o, "volumeBindingMode");
    const kg_json *ex = kg_json_get(o, "allowVolumeExpansion");
    kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "provisioner")));
    kg_json_array_append(a, cells, str_cell(a, rp ? rp : "Delete"));
    kg_json_array_append(a, cells, str_cell(a, bm ? bm : "Immediate"));
    kg_json_array_append(a, cells, kg_json_new_bool(a, ex && ex->type == KG_JSON_BOOL && ex->b));
    kg_json_array_append(a, cells, str_cell(a, age));
}

static void row_cells(kg_arena *a, const kg_resource *r, const kg_json *o, kg_json *cells, int64_t now)
{
    if (kg_table_more_cells(a, r, o, cells, now))
        return;
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
        kg_json_array_append(a, cells, str_cell(a, kg_table_selector(a, kg_json_path(o, "spec.selector"))));
    } else if (!strcmp(p, "replicasets") || !strcmp(p, "replicationcontrollers")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "spec.replicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.replicas")));
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "status.readyReplicas")));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
        kg_json_array_append(a, cells,
                             str_cell(a, r->group[0] ? kg_table_format_selector(a, kg_json_path(o, "spec.selector"))
                                                     : kg_table_format_labels(a, kg_json_path(o, "spec.selector"))));
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
        kg_json_array_append(
            a, cells, str_cell(a, kg_table_format_labels(a, kg_json_path(o, "spec.template.spec.nodeSelector"))));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.template.spec"), cells);
        kg_json_array_append(a, cells, str_cell(a, kg_table_format_selector(a, kg_json_path(o, "spec.selector"))));
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
        kg_json_array_append(a, cells, str_cell(a, kg_table_format_labels(a, kg_json_path(o, "spec.selector"))));
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
        job_cells(a, o, cells, now);
    } else if (!strcmp(p, "cronjobs")) {
        const char *tz = kg_json_path_str(o, "spec.timeZone");
        const kg_json *sus = kg_json_path(o, "spec.suspend");
        const char *last = kg_json_path_str(o, "status.lastScheduleTime");
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.schedule")));
        kg_json_array_append(a, cells, str_cell(a, tz ? tz : "<none>"));
        /* printBoolPtr: a string cell under the boolean column */
        kg_json_array_append(a, cells,
                             str_cell(a, sus && sus->type == KG_JSON_BOOL ? (sus->b ? "True" : "False") : "<unset>"));
        kg_json *act = kg_json_path(o, "status.active");
        kg_json_array_append(a, cells, kg_json_new_int(a, act && act->type == KG_JSON_ARRAY ? act->len : 0));
        kg_json_array_append(a, cells, str_cell(a, last ? kg_table_since(a, last, now) : "<none>"));
        kg_json_array_append(a, cells, str_cell(a, age));
        add_containers_images(a, kg_json_path(o, "spec.jobTemplate.spec.template.spec"), cells);
        kg_json_array_append(
            a, cells, str_cell(a, kg_table_format_selector(a, kg_json_path(o, "spec.jobTemplate.spec.selector"))));
    } else if (!strcmp(p, "nodes")) {
        node_cells(a, o, cells, age);
    } else if (!strcmp(p, "resourcequotas")) {
        quota_cells(a, o, cells);
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "priorityclasses")) {
        kg_json_array_append(a, cells, kg_json_new_int(a, geti(o, "value")));
        kg_json *gd = kg_json_get(o, "globalDefault");
        kg_json_array_append(a, cells, kg_json_new_bool(a, gd && gd->type == KG_JSON_BOOL && gd->b));
        kg_json_array_append(a, cells, str_cell(a, age));
        kg_json_array_append(a, cells, str_cell(a, kg_json_get_str(o, "preemptionPolicy")));
    } else if (!strcmp(p, "storageclasses")) {
        storageclass_cells(a, o, cells, age);
    } else if (!strcmp(p, "leases")) {
        kg_json_array_append(a, cells, str_cell(a, kg_json_path_str(o, "spec.holderIdentity")));
        kg_json_array_append(a, cells, str_cell(a, age));
    } else if (!strcmp(p, "podtemplates")) {
        add_containers_images(a, kg_json_path(o, "template.spec"), cells);
        const char *pl = kg_table_format_labels(a, kg_json_path(o, "template.metadata.labels"));
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
        kg_json_array_append(a, cells, str_cell(a, kg_table_format_selector(a, kg_json_path(o, "spec.podSelector"))));
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
        } /* an Exempt level prints <none> everywhere: printPriorityLevelConfiguration reads only spec.limited */
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
    } else { /* the default table convertor's Created At: the timestamp itself (UTC, RFC 3339) */
        int64_t t = kg_table_time(kg_json_path_str(o, "metadata.creationTimestamp"));
        char ts[32] = "";
        time_t tt = (time_t)t;
        struct tm tm;
        if (t >= 0 && gmtime_r(&tt, &tm))
            strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
        kg_json_array_append(a, cells, str_cell(a, ts[0] ? ts : "0001-01-01T00:00:00Z"));
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
    for (int i = 0; !r->ext && i < KG_TABLE_MAX_COLS && pr->cols[i]; i++) {
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
        /* a ReplicationController's selector is a plain label map */
        char *ss = r->group[0] ? kg_table_selector(a, sel) : kg_table_format_labels(a, sel);
        if (ss[0] && strcmp(ss, "<none>"))
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
