/* The semantic validations users hit most (validation.h kg_api_validate_semantic), with upstream's field paths and
 * messages (kubernetes/kubernetes pkg/apis/{core,apps,batch,coordination}/validation):
 *
 *   containers (every pod spec: pods, workload templates, CronJob job templates)
 *     resources.requests <= limits   "<path>.resources.requests: Invalid value: \"2\": must be less than or equal
 *                                     to cpu limit of 1"
 *     volumeMounts                   name Required / Not found (no such volume), mountPath Required / "must be
 *                                     unique"
 *     probes                         exactly one handler ("must specify a handler type" / "may not specify more
 *                                     than 1 handler type"), handler ports, liveness/startup successThreshold 1,
 *                                     none on init containers that are not sidecars
 *   Service ports                    protocol (TCP, UDP, SCTP), targetPort number or IANA name
 *   CronJob                          schedule (5-field cron syntax as robfig/cron ParseStandard, TZ rules),
 *                                     timeZone (IANA name present in the system zoneinfo)
 *   Lease                            leaseDurationSeconds > 0, leaseTransitions >= 0
 *   updates                          Deployment / ReplicaSet / DaemonSet / Job selectors immutable, StatefulSet
 *                                     spec fields other than the mutable ones forbidden
 *
 * Objects reach this after the typed decode, so every present field has its JSON type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "api/validation.h"
#include "api/validation_internal.h"
#include "base/buf.h"
#include "meta/names.h"
#include "meta/quantity.h"

static bool is(const kg_resource *r, const char *group, const char *plural)
{
    return !strcmp(r->group, group) && !strcmp(r->plural, plural);
}

static char *P(kg_arena *a, const char *base, const char *child)
{
    return kg_arena_sprintf(a, "%s.%s", base, child);
}

/* ---- containers ---- */

static bool json_quantity(kg_arena *a, const kg_json *v, kg_quantity *q)
{
    kg_error err;
    if (v->type == KG_JSON_STRING)
        return kg_quantity_parse(v->u.s, v->len, q, &err);
    if (v->type == KG_JSON_INT) {
        char *s = kg_arena_sprintf(a, "%lld", (long long)v->u.i);
        return kg_quantity_parse(s, strlen(s), q, &err);
    }
    if (v->type == KG_JSON_NUMBER && v->u.num.raw)
        return kg_quantity_parse(v->u.num.raw, v->len, q, &err);
    return false;
}

static void validate_resources(kg_arena *a, const kg_json *res, const char *path, kg_field_errors *errs)
{
    const kg_json *req = kg_json_get(res, "requests"), *lim = kg_json_get(res, "limits");
    if (!req || req->type != KG_JSON_OBJECT || !lim || lim->type != KG_JSON_OBJECT)
        return;
    char *rp = P(a, path, "requests");
    for (uint32_t i = 0; i < req->len; i++) {
        const kg_json *lv = kg_json_get(lim, req->u.members[i].key);
        kg_quantity rq, lq;
        if (!lv || !json_quantity(a, req->u.members[i].val, &rq) || !json_quantity(a, lv, &lq))
            continue;
        if (kg_quantity_cmp(&rq, &lq) > 0)
            kg_field_invalid(a, errs, rp, kg_quantity_string(a, &rq),
                             kg_arena_sprintf(a, "must be less than or equal to %s limit of %s", req->u.members[i].key,
                                              kg_quantity_string(a, &lq)));
    }
}

static bool has_volume(const kg_json *vols, const char *name)
{
    if (!vols || vols->type != KG_JSON_ARRAY)
        return false;
    for (uint32_t i = 0; i < vols->len; i++) {
        const char *n = kg_json_get_str(vols->u.items[i], "name");
        if (n && !strcmp(n, name))
            return true;
    }
    return false;
}

static void validate_volume_mounts(kg_arena *a, const kg_json *c, const kg_json *vols, const char *path,
                                   kg_field_errors *errs)
{
    const kg_json *vm = kg_json_get(c, "volumeMounts");
    if (!vm || vm->type != KG_JSON_ARRAY)
        return;
    for (uint32_t i = 0; i < vm->len; i++) {
        const kg_json *m = vm->u.items[i];
        char *ip = kg_arena_sprintf(a, "%s.volumeMounts[%u]", path, i);
        const char *name = kg_json_get_str(m, "name");
        if (!name || !name[0])
            kg_field_required(a, errs, P(a, ip, "name"), NULL);
        if (!has_volume(vols, name ? name : ""))
            kg_field_not_found(a, errs, P(a, ip, "name"), name ? name : "");
        const char *mp = kg_json_get_str(m, "mountPath");
        if (!mp || !mp[0]) {
            kg_field_required(a, errs, P(a, ip, "mountPath"), NULL);
            continue;
        }
        for (uint32_t k = 0; k < i; k++) {
            const char *other = kg_json_get_str(vm->u.items[k], "mountPath");
            if (other && !strcmp(other, mp)) {
                kg_field_invalid(a, errs, P(a, ip, "mountPath"), mp, "must be unique");
                break;
            }
        }
    }
}

/* validatePortNumOrName: a number in 1..65535 or an IANA service name. */
static void validate_port_num_or_name(kg_arena *a, const kg_json *port, const char *path, kg_field_errors *errs)
{
    if (!port) {
        kg_field_required(a, errs, path, NULL);
    } else if (port->type == KG_JSON_INT) {
        if (!kg_is_valid_port_num(port->u.i, NULL))
            kg_field_invalid_int(a, errs, path, port->u.i, KG_MSG_PORT_NUM);
    } else if (port->type == KG_JSON_STRING) {
        kg_name_errs ne = {0};
        if (!kg_is_valid_port_name(port->u.s, &ne))
            kg_field_invalid(a, errs, path, port->u.s, kg_name_errs_join(a, &ne, ", "));
    }
}

/* validateHandler on a probe's (or lifecycle hook's) handler: exactly one of exec, httpGet, tcpSocket, grpc. */
static void validate_handler(kg_arena *a, const kg_json *h, const char *path, kg_field_errors *errs)
{
    static const char *const kinds[] = {"exec", "httpGet", "tcpSocket", "grpc"};
    int n = 0;
    for (int k = 0; k < 4; k++) {
        const kg_json *v = kg_json_get(h, kinds[k]);
        if (!v || v->type == KG_JSON_NULL)
            continue;
        char *hp = P(a, path, kinds[k]);
        if (n++) {
            kg_field_forbidden(a, errs, hp, "may not specify more than 1 handler type");
            continue;
        }
        if (k == 0) {
            const kg_json *cmd = kg_json_get(v, "command");
            if (!cmd || cmd->type != KG_JSON_ARRAY || !cmd->len)
                kg_field_required(a, errs, P(a, hp, "command"), NULL);
        } else if (k == 1 || k == 2) {
            validate_port_num_or_name(a, kg_json_get(v, "port"), P(a, hp, "port"), errs);
        } else {
            const kg_json *port = kg_json_get(v, "port");
            if (port && port->type == KG_JSON_INT && !kg_is_valid_port_num(port->u.i, NULL))
                kg_field_invalid_int(a, errs, P(a, hp, "port"), port->u.i, KG_MSG_PORT_NUM);
        }
    }
    if (!n)
        kg_field_required(a, errs, path, "must specify a handler type");
}

static void validate_probes(kg_arena *a, const kg_json *c, const char *path, bool init, kg_field_errors *errs)
{
    static const char *const probes[] = {"livenessProbe", "readinessProbe", "startupProbe"};
    const char *rp = kg_json_get_str(c, "restartPolicy");
    bool sidecar = rp && !strcmp(rp, "Always");
    for (int i = 0; i < 3; i++) {
        const kg_json *p = kg_json_get(c, probes[i]);
        if (!p || p->type != KG_JSON_OBJECT)
            continue;
        char *pp = P(a, path, probes[i]);
        if (init && !sidecar) {
            kg_field_forbidden(a, errs, pp, "may not be set for init containers without restartPolicy=Always");
            continue;
        }
        validate_handler(a, p, pp, errs);
        const kg_json *st = kg_json_get(p, "successThreshold");
        if (i != 1 && st && st->type == KG_JSON_INT && st->u.i != 1)
            kg_field_invalid_int(a, errs, P(a, pp, "successThreshold"), st->u.i, "must be 1");
    }
}

/* validateEnv with RelaxedEnvironmentVariableValidation (on by default since v1.32): a name is required and made
 * of printable ASCII other than '='. */
static void validate_env(kg_arena *a, const kg_json *c, const char *path, kg_field_errors *errs)
{
    const kg_json *env = kg_json_get(c, "env");
    for (uint32_t i = 0; env && env->type == KG_JSON_ARRAY && i < env->len; i++) {
        const kg_json *nv = kg_json_get(env->u.items[i], "name");
        char *np = kg_arena_sprintf(a, "%s.env[%u].name", path, i);
        if (!nv || nv->type != KG_JSON_STRING || !nv->len) {
            kg_field_required(a, errs, np, "");
            continue;
        }
        for (uint32_t k = 0; k < nv->len; k++) {
            unsigned char ch = (unsigned char)nv->u.s[k];
            if (ch < 0x20 || ch >= 0x7f || ch == '=') {
                kg_field_invalid(a, errs, np, nv->u.s,
                                 "a valid environment variable name must consist only of printable ASCII characters "
                                 "other than '='");
                break;
            }
        }
    }
}

static void validate_pod_spec(kg_arena *a, const kg_json *spec, const char *path, kg_field_errors *errs)
{
    if (!spec || spec->type != KG_JSON_OBJECT)
        return;
    const kg_json *vols = kg_json_get(spec, "volumes");
    static const char *const lists[] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        const kg_json *cs = kg_json_get(spec, lists[l]);
        if (!cs || cs->type != KG_JSON_ARRAY)
            continue;
        for (uint32_t i = 0; i < cs->len; i++) {
            const kg_json *c = cs->u.items[i];
            char *cp = kg_arena_sprintf(a, "%s.%s[%u]", path, lists[l], i);
            validate_env(a, c, cp, errs);
            validate_volume_mounts(a, c, vols, cp, errs);
            validate_probes(a, c, cp, l == 0, errs);
            validate_resources(a, kg_json_get(c, "resources"), P(a, cp, "resources"), errs);
        }
    }
}

/* The pod spec of a kind and its path, or NULL. */
static const kg_json *pod_spec_of(const kg_resource *r, const kg_json *obj, const char **path)
{
    if (is(r, "", "pods")) {
        *path = "spec";
        return kg_json_get(obj, "spec");
    }
    if (is(r, "batch", "cronjobs")) {
        *path = "spec.jobTemplate.spec.template.spec";
        return kg_json_path(obj, "spec.jobTemplate.spec.template.spec");
    }
    if (is(r, "", "podtemplates")) {
        *path = "template.spec";
        return kg_json_path(obj, "template.spec");
    }
    /* upstream does not validate a StatefulSet's pod spec (ValidatePodTemplateSpecForStatefulSet): its containers
     * mount volumeClaimTemplates that are not among the template's volumes */
    if (is(r, "apps", "statefulsets"))
        return NULL;
    if (!strcmp(r->group, "apps") || is(r, "batch", "jobs") || is(r, "", "replicationcontrollers")) {
        *path = "spec.template.spec";
        return kg_json_path(obj, "spec.template.spec");
    }
    return NULL;
}

/* ---- Service ---- */

static void validate_service_ports(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    const kg_json *ports = kg_json_path(obj, "spec.ports");
    if (!ports || ports->type != KG_JSON_ARRAY)
        return;
    for (uint32_t i = 0; i < ports->len; i++) {
        const kg_json *p = ports->u.items[i];
        char *pp = kg_arena_sprintf(a, "spec.ports[%u]", i);
        const char *proto = kg_json_get_str(p, "protocol");
        if (proto && strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP")) {
            static const char *const valid[] = {"SCTP", "TCP", "UDP"};
            kg_field_not_supported(a, errs, P(a, pp, "protocol"), proto, valid, 3);
        } /* a missing protocol is defaulted to TCP before validation */
        const kg_json *tp = kg_json_get(p, "targetPort");
        if (tp && !(tp->type == KG_JSON_INT && tp->u.i == 0) && !(tp->type == KG_JSON_STRING && !tp->len))
            validate_port_num_or_name(a, tp, P(a, pp, "targetPort"), errs);
        const kg_json *np = kg_json_get(p, "nodePort");
        if (np && np->type == KG_JSON_INT && np->u.i != 0 && !kg_is_valid_port_num(np->u.i, NULL))
            kg_field_invalid_int(a, errs, P(a, pp, "nodePort"), np->u.i, KG_MSG_PORT_NUM);
    }
}

/* ---- CronJob: robfig/cron/v3 ParseStandard ---- */

typedef struct cron_field {
    int min, max;
    const char *const *names; /* lower-case names for min.. (months from 1, weekdays from 0) */
} cron_field;

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec"};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

/* parseIntOrName / mustParseInt: a name of the field, or a non-negative decimal. */
static const char *cron_value(kg_arena *a, const char *s, size_t n, const cron_field *f, int *out)
{
    if (f->names) {
        int count = f->names == month_names ? 12 : 7;
        for (int i = 0; i < count; i++)
            if (n == 3 && !strncasecmp(s, f->names[i], 3)) {
                *out = i + (f->names == month_names ? 1 : 0);
                return NULL;
            }
    }
    char *t = kg_arena_strndup(a, s, n);
    char *end;
    long v = n ? strtol(t, &end, 10) : 0;
    bool digits = n > 0;
    for (size_t i = 0; i < n; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (i == 0 && (t[i] == '-' || t[i] == '+') && n > 1)))
            digits = false;
    if (!digits || n > 18)
        return kg_arena_sprintf(a, "failed to parse int from %s: strconv.Atoi: parsing \"%s\": invalid syntax", t, t);
    if (v < 0)
        return kg_arena_sprintf(a, "negative number (%ld) not allowed: %s", v, t);
    *out = (int)v;
    return NULL;
}

/* getRange: "*", "?", "a", "a-b", each optionally "/step". */
static const char *cron_range(kg_arena *a, const char *expr, size_t n, const cron_field *f)
{
    char *e = kg_arena_strndup(a, expr, n);
    char *slash = strchr(e, '/');
    if (slash && strchr(slash + 1, '/'))
        return kg_arena_sprintf(a, "too many slashes: %s", e);
    char *lh = kg_arena_strndup(a, e, slash ? (size_t)(slash - e) : strlen(e));
    int start, end, step = 1;
    bool star = !strcmp(lh, "*") || !strcmp(lh, "?");
    const char *err;
    if (star) {
        start = f->min;
        end = f->max;
    } else {
        char *dash = strchr(lh, '-');
        if (dash && strchr(dash + 1, '-'))
            return kg_arena_sprintf(a, "too many hyphens: %s", e);
        if ((err = cron_value(a, lh, dash ? (size_t)(dash - lh) : strlen(lh), f, &start)))
            return err;
        if (dash) {
            if ((err = cron_value(a, dash + 1, strlen(dash + 1), f, &end)))
                return err;
        } else {
            end = start;
        }
    }
    if (slash) {
        if ((err = cron_value(a, slash + 1, strlen(slash + 1), f, &step)))
            return err;
        if (!star && !strchr(lh, '-'))
            end = f->max; /* "N/step" means N-max/step */
        if (step <= 0)
            return kg_arena_sprintf(a, "step of range should be a positive number: %s", e);
    }
    if (start < f->min)
        return kg_arena_sprintf(a, "beginning of range (%d) below minimum (%d): %s", start, f->min, e);
    if (end > f->max)
        return kg_arena_sprintf(a, "end of range (%d) above maximum (%d): %s", end, f->max, e);
    if (start > end)
        return kg_arena_sprintf(a, "beginning of range (%d) beyond end of range (%d): %s", start, end, e);
    return NULL;
}

/* The parser's error for a schedule, NULL when it parses. */
static const char *cron_parse_error(kg_arena *a, const char *spec)
{
    while (*spec == ' ' || *spec == '\t')
        spec++;
    if (!spec[0])
        return "empty spec string";
    if (!strncmp(spec, "TZ=", 3) || !strncmp(spec, "CRON_TZ=", 8)) {
        const char *eq = strchr(spec, '=') + 1;
        const char *sp = strchr(eq, ' ');
        if (!sp)
            return kg_arena_sprintf(a, "provided bad location %s: unknown time zone %s", eq, eq);
        spec = sp;
        while (*spec == ' ')
            spec++;
    }
    if (spec[0] == '@') {
        static const char *const desc[] = {"@yearly", "@annually", "@monthly", "@weekly",
                                           "@daily",  "@midnight", "@hourly"};
        for (size_t i = 0; i < sizeof desc / sizeof *desc; i++)
            if (!strcmp(spec, desc[i]))
                return NULL;
        if (!strncmp(spec, "@every ", 7))
            return NULL; /* a Go duration; not checked further */
        return kg_arena_sprintf(a, "unrecognized descriptor: %s", spec);
    }
    const char *fs[8];
    size_t fl[8], nf = 0, total = 0;
    for (const char *p = spec; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (nf < 8) {
            fs[nf] = s;
            fl[nf++] = (size_t)(p - s);
        }
        total++;
    }
    if (total != 5) {
        kg_buf b = KG_BUF_INIT;
        kg_buf_printf(&b, "expected exactly 5 fields, found %zu: [", total);
        for (size_t i = 0; i < nf; i++)
            kg_buf_printf(&b, "%s%.*s", i ? " " : "", (int)fl[i], fs[i]);
        kg_buf_puts(&b, total > nf ? " ...]" : "]");
        char *m = kg_arena_strdup(a, kg_buf_cstr(&b));
        kg_buf_free(&b);
        return m;
    }
    static const cron_field fields[5] = {
        {0, 59, NULL}, {0, 23, NULL}, {1, 31, NULL}, {1, 12, month_names}, {0, 6, dow_names}};
    for (size_t i = 0; i < 5; i++) {
        const char *s = fs[i], *end = fs[i] + fl[i];
        while (s <= end) {
            const char *comma = memchr(s, ',', (size_t)(end - s));
            size_t n = comma ? (size_t)(comma - s) : (size_t)(end - s);
            const char *err = cron_range(a, s, n, &fields[i]);
            if (err)
                return err;
            if (!comma)
                break;
            s = comma + 1;
        }
    }
    return NULL;
}

static bool time_zone_known(const char *tz)
{
    if (!strcmp(tz, "UTC"))
        return true;
    if (tz[0] == '/' || strstr(tz, "..") || strchr(tz, '\\'))
        return false;
    static const char *const dirs[] = {"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof path, "%s%s", dirs[i], tz);
        if (!stat(path, &st) && S_ISREG(st.st_mode))
            return true;
    }
    return false;
}

static void validate_cronjob(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    /* the controller appends an 11-character suffix to name its Jobs, whose names are at most 63 characters */
    const char *name = kg_json_path_str(obj, "metadata.name");
    if (name && strlen(name) > 52)
        kg_field_invalid(a, errs, "metadata.name", name, "must be no more than 52 characters");
    const char *sch = kg_json_path_str(obj, "spec.schedule");
    const kg_json *tzv = kg_json_path(obj, "spec.timeZone");
    const char *tz = tzv && tzv->type == KG_JSON_STRING ? tzv->u.s : NULL;
    if (sch && sch[0]) {
        const char *err = cron_parse_error(a, sch);
        if (err)
            kg_field_invalid(a, errs, "spec.schedule", sch, err);
        if (strstr(sch, "TZ"))
            kg_field_invalid(a, errs, "spec.schedule", sch,
                             tz ? "cannot use both timeZone field and TZ or CRON_TZ in schedule"
                                : "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
    }
    if (tz) {
        if (!tz[0])
            kg_field_invalid(a, errs, "spec.timeZone", tz, "timeZone must be nil or non-empty string");
        else if (!strcasecmp(tz, "Local"))
            kg_field_invalid(a, errs, "spec.timeZone", tz,
                             "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
        else if (!time_zone_known(tz))
            kg_field_invalid(a, errs, "spec.timeZone", tz, kg_arena_sprintf(a, "unknown time zone %s", tz));
    }
}

/* ---- Lease ---- */

static void validate_lease(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    const kg_json *d = kg_json_path(obj, "spec.leaseDurationSeconds");
    if (d && d->type == KG_JSON_INT && d->u.i <= 0)
        kg_field_invalid_int(a, errs, "spec.leaseDurationSeconds", d->u.i, "must be greater than 0");
    const kg_json *t = kg_json_path(obj, "spec.leaseTransitions");
    if (t && t->type == KG_JSON_INT && t->u.i < 0)
        kg_field_invalid_int(a, errs, "spec.leaseTransitions", t->u.i, "must be greater than or equal to 0");
}

/* ---- Job and rollout strategies ---- */

/* validateJobSpec: parallelism, completions and backoffLimit are non-negative. */
static void validate_job_spec(kg_arena *a, const kg_json *spec, const char *path, kg_field_errors *errs)
{
    static const char *const fields[] = {"parallelism", "completions", "backoffLimit"};
    for (int i = 0; i < 3; i++) {
        const kg_json *v = kg_json_get(spec, fields[i]);
        if (v && v->type == KG_JSON_INT && v->u.i < 0)
            kg_field_invalid_int(a, errs, P(a, path, fields[i]), v->u.i, KG_MSG_NEGATIVE);
    }
}

/* Go's %#v of an intstr.IntOrString. */
static char *intstr_gostring(kg_arena *a, const kg_json *v)
{
    if (v->type == KG_JSON_STRING)
        return kg_arena_sprintf(a, "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"%s\"}", v->u.s);
    return kg_arena_sprintf(a, "intstr.IntOrString{Type:0, IntVal:%lld, StrVal:\"\"}",
                            (long long)(v->type == KG_JSON_INT ? v->u.i : 0));
}

/* The percentage of a valid "N%" string, -1 otherwise (validation.IsValidPercent: [0-9]+%). */
static long percent_value(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != '%')
        return -1;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    return n > 10 ? 0x7fffffff : strtol(s, NULL, 10);
}

/* ValidatePositiveIntOrPercent; returns getIntOrPercentValue (0 when invalid), dflt when absent. */
static long validate_int_or_percent(kg_arena *a, const kg_json *v, long dflt, const char *path, kg_field_errors *errs)
{
    if (!v || v->type == KG_JSON_NULL)
        return dflt;
    if (v->type == KG_JSON_INT) {
        if (v->u.i < 0)
            kg_field_invalid_int(a, errs, path, v->u.i, KG_MSG_NEGATIVE);
        return (long)v->u.i;
    }
    if (v->type != KG_JSON_STRING)
        return 0;
    long pct = percent_value(v->u.s);
    if (pct < 0) {
        kg_field_invalid_raw(a, errs, path, intstr_gostring(a, v),
                             "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  "
                             "or '93%', regex used for validation is '[0-9]+%')");
        return 0;
    }
    return pct;
}

/* ValidateRollingUpdateDeployment / ValidateRollingUpdateDaemonSet: maxUnavailable and maxSurge may not both be 0,
 * and maxUnavailable may not exceed 100%. Absent values take their defaults (Deployment 25% / 25%, DaemonSet
 * maxUnavailable 1, maxSurge 0). */
static void validate_rolling_update(kg_arena *a, const kg_json *ru, const char *path, long du, long ds,
                                    kg_field_errors *errs)
{
    const kg_json *mu = kg_json_get(ru, "maxUnavailable"), *ms = kg_json_get(ru, "maxSurge");
    char *mup = P(a, path, "maxUnavailable"), *msp = P(a, path, "maxSurge");
    long u = validate_int_or_percent(a, mu, du, mup, errs);
    long sg = validate_int_or_percent(a, ms, ds, msp, errs);
    if (u == 0 && sg == 0)
        kg_field_invalid_raw(a, errs, mup,
                             mu ? intstr_gostring(a, mu) : "intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}",
                             "may not be 0 when `maxSurge` is 0");
    if (mu && mu->type == KG_JSON_STRING && u > 100)
        kg_field_invalid_raw(a, errs, mup, intstr_gostring(a, mu), "must not be greater than 100%");
}

static void validate_strategies(kg_arena *a, const kg_resource *r, const kg_json *obj, kg_field_errors *errs)
{
    if (is(r, "apps", "deployments")) {
        const kg_json *st = kg_json_path(obj, "spec.strategy");
        const char *type = kg_json_get_str(st, "type");
        const kg_json *ru = kg_json_get(st, "rollingUpdate");
        bool has_ru = ru && ru->type == KG_JSON_OBJECT;
        if (type && !strcmp(type, "Recreate") && has_ru)
            kg_field_forbidden(a, errs, "spec.strategy.rollingUpdate",
                               "may not be specified when strategy `type` is 'Recreate'");
        else if (has_ru)
            validate_rolling_update(a, ru, "spec.strategy.rollingUpdate", 25, 25, errs);
    } else if (is(r, "apps", "daemonsets")) {
        const kg_json *ru = kg_json_path(obj, "spec.updateStrategy.rollingUpdate");
        if (ru && ru->type == KG_JSON_OBJECT)
            validate_rolling_update(a, ru, "spec.updateStrategy.rollingUpdate", 1, 0, errs);
    } else if (is(r, "batch", "jobs")) {
        validate_job_spec(a, kg_json_get(obj, "spec"), "spec", errs);
    } else if (is(r, "batch", "cronjobs")) {
        validate_job_spec(a, kg_json_path(obj, "spec.jobTemplate.spec"), "spec.jobTemplate.spec", errs);
    }
}

/* ValidateJobSpecUpdate: completions is immutable, except for an Indexed Job scaled with completions equal to
 * parallelism (elastic Indexed Jobs). */
static void validate_job_update(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    const kg_json *nc = kg_json_path(obj, "spec.completions"), *oc = kg_json_path(old, "spec.completions");
    bool nset = nc && nc->type == KG_JSON_INT, oset = oc && oc->type == KG_JSON_INT;
    if (nset == oset && (!nset || nc->u.i == oc->u.i))
        return;
    const char *mode = kg_json_path_str(obj, "spec.completionMode");
    const kg_json *np = kg_json_path(obj, "spec.parallelism"), *op = kg_json_path(old, "spec.parallelism");
    if (mode && !strcmp(mode, "Indexed") && nset && oset && np && np->type == KG_JSON_INT && np->u.i == nc->u.i && op &&
        op->type == KG_JSON_INT && op->u.i == oc->u.i)
        return;
    if (nset)
        kg_field_invalid_int(a, errs, "spec.completions", nc->u.i, "field is immutable");
    else
        kg_field_invalid_raw(a, errs, "spec.completions", "\"null\"", "field is immutable");
}

/* ---- updates ---- */

char *kg_api_go_string_map(kg_arena *a, const kg_json *ml)
{
    kg_buf b = KG_BUF_INIT;
    if (!ml || ml->type != KG_JSON_OBJECT) {
        kg_buf_puts(&b, "map[string]string(nil)");
    } else {
        /* Go prints maps with sorted keys */
        const kg_json_member **ms = kg_arena_alloc(a, (ml->len + 1) * sizeof *ms);
        for (uint32_t i = 0; i < ml->len; i++) {
            uint32_t k = i;
            while (k > 0 && strcmp(ms[k - 1]->key, ml->u.members[i].key) > 0) {
                ms[k] = ms[k - 1];
                k--;
            }
            ms[k] = &ml->u.members[i];
        }
        kg_buf_puts(&b, "map[string]string{");
        for (uint32_t i = 0; i < ml->len; i++) {
            const char *v = ms[i]->val->type == KG_JSON_STRING ? ms[i]->val->u.s : "";
            kg_buf_printf(&b, "%s\"%s\":\"%s\"", i ? ", " : "", ms[i]->key, v);
        }
        kg_buf_putc(&b, '}');
    }
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* Go's %#v of a (dereferenced) metav1.LabelSelector, as ValidateImmutableField prints it. */
static const char *selector_gostring(kg_arena *a, const kg_json *sel)
{
    kg_buf b = KG_BUF_INIT;
    kg_buf_puts(&b, "v1.LabelSelector{MatchLabels:");
    kg_buf_puts(&b, kg_api_go_string_map(a, kg_json_get(sel, "matchLabels")));
    kg_buf_puts(&b, ", MatchExpressions:");
    const kg_json *me = kg_json_get(sel, "matchExpressions");
    if (!me || me->type != KG_JSON_ARRAY) {
        kg_buf_puts(&b, "[]v1.LabelSelectorRequirement(nil)");
    } else {
        kg_buf_puts(&b, "[]v1.LabelSelectorRequirement{");
        for (uint32_t i = 0; i < me->len; i++) {
            const kg_json *r = me->u.items[i];
            const char *key = kg_json_get_str(r, "key"), *op = kg_json_get_str(r, "operator");
            kg_buf_printf(&b, "%sv1.LabelSelectorRequirement{Key:\"%s\", Operator:\"%s\", Values:", i ? ", " : "",
                          key ? key : "", op ? op : "");
            const kg_json *vals = kg_json_get(r, "values");
            if (!vals || vals->type != KG_JSON_ARRAY) {
                kg_buf_puts(&b, "[]string(nil)");
            } else {
                kg_buf_puts(&b, "[]string{");
                for (uint32_t k = 0; k < vals->len; k++)
                    kg_buf_printf(&b, "%s\"%s\"", k ? ", " : "",
                                  vals->u.items[k]->type == KG_JSON_STRING ? vals->u.items[k]->u.s : "");
                kg_buf_putc(&b, '}');
            }
            kg_buf_putc(&b, '}');
        }
        kg_buf_putc(&b, '}');
    }
    kg_buf_putc(&b, '}');
    char *s = kg_arena_strdup(a, kg_buf_cstr(&b));
    kg_buf_free(&b);
    return s;
}

/* Semantic equality of selectors (empty and absent lists/maps are equal). */
static bool selectors_equal(kg_arena *a, const kg_json *x, const kg_json *y)
{
    kg_json *cx = x && x->type == KG_JSON_OBJECT ? kg_json_clone(a, x) : NULL;
    kg_json *cy = y && y->type == KG_JSON_OBJECT ? kg_json_clone(a, y) : NULL;
    kg_json *cs[2] = {cx, cy};
    for (int i = 0; i < 2; i++) {
        if (!cs[i])
            continue;
        static const char *const keys[] = {"matchLabels", "matchExpressions"};
        for (int k = 0; k < 2; k++) {
            kg_json *v = kg_json_get(cs[i], keys[k]);
            if (v && (v->type == KG_JSON_NULL || v->len == 0))
                kg_json_del(cs[i], keys[k]);
        }
        if (!cs[i]->len)
            cs[i] = NULL;
    }
    if (!cs[0] || !cs[1])
        return !cs[0] && !cs[1];
    return kg_json_equal(cs[0], cs[1]);
}

/* ValidateStatefulSetSpec (v1.33): serviceName, copied into its pods' spec.subdomain, is a DNS label. */
static void validate_statefulset(kg_arena *a, const kg_json *obj, kg_field_errors *errs)
{
    const char *sn = kg_json_path_str(obj, "spec.serviceName");
    kg_name_errs ne = {0};
    if (sn && sn[0] && !kg_is_dns1123_label(sn, &ne))
        kg_field_invalid(a, errs, "spec.serviceName", sn, kg_name_errs_join(a, &ne, ", "));
}

static void validate_statefulset_update(kg_arena *a, const kg_json *obj, const kg_json *old, kg_field_errors *errs)
{
    kg_json *ns = kg_json_clone(a, kg_json_get(obj, "spec"));
    kg_json *os = kg_json_clone(a, kg_json_get(old, "spec"));
    if (!ns || !os || ns->type != KG_JSON_OBJECT || os->type != KG_JSON_OBJECT)
        return;
    static const char *const mutable_fields[] = {"replicas",
                                                 "ordinals",
                                                 "template",
                                                 "updateStrategy",
                                                 "revisionHistoryLimit",
                                                 "persistentVolumeClaimRetentionPolicy",
                                                 "minReadySeconds"};
    for (size_t i = 0; i < sizeof mutable_fields / sizeof *mutable_fields; i++) {
        kg_json_del(ns, mutable_fields[i]);
        kg_json_del(os, mutable_fields[i]);
    }
    if (!kg_json_equal(ns, os))
        kg_field_forbidden(a, errs, "spec",
                           "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                           "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
                           "'minReadySeconds' are forbidden");
}

static void validate_update(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                            kg_field_errors *errs)
{
    if (is(r, "apps", "statefulsets")) {
        validate_statefulset_update(a, obj, old, errs);
        return;
    }
    if (!(is(r, "apps", "deployments") || is(r, "apps", "replicasets") || is(r, "apps", "daemonsets") ||
          is(r, "batch", "jobs")))
        return;
    if (is(r, "batch", "jobs"))
        validate_job_update(a, obj, old, errs);
    const kg_json *ns = kg_json_path(obj, "spec.selector"), *os = kg_json_path(old, "spec.selector");
    if (!selectors_equal(a, ns, os))
        kg_field_invalid_raw(a, errs, "spec.selector",
                             ns && ns->type == KG_JSON_OBJECT ? selector_gostring(a, ns) : "\"null\"",
                             "field is immutable");
}

void kg_api_validate_semantic(kg_arena *a, const kg_resource *r, const kg_json *obj, const kg_json *old,
                              kg_field_errors *errs)
{
    const char *path = NULL;
    const kg_json *spec = pod_spec_of(r, obj, &path);
    if (spec)
        validate_pod_spec(a, spec, path, errs);
    validate_strategies(a, r, obj, errs);
    kg_api_validate_config(a, r, obj, old, errs);
    if (is(r, "", "services")) {
        validate_service_ports(a, obj, errs);
        kg_api_validate_service(a, obj, old, errs);
    }
    if (is(r, "apps", "statefulsets"))
        validate_statefulset(a, obj, errs);
    if (is(r, "batch", "cronjobs"))
        validate_cronjob(a, obj, errs);
    else if (is(r, "coordination.k8s.io", "leases"))
        validate_lease(a, obj, errs);
    if (old)
        validate_update(a, r, obj, old, errs);
}
