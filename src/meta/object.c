/* ObjectMeta helpers over kg_json. */
#include "meta/object.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>

kg_json *kg_meta_get(const kg_json *obj)
{
    kg_json *m = kg_json_get(obj, "metadata");
    return kg_json_is(m, KG_JSON_OBJECT) ? m : NULL;
}

kg_json *kg_meta_ensure(kg_arena *a, kg_json *obj)
{
    return kg_json_get_or_add_object(a, obj, "metadata");
}

const char *kg_meta_get_str(const kg_json *obj, const char *key)
{
    return kg_json_get_str(kg_meta_get(obj), key);
}

const char *kg_meta_name(const kg_json *obj)
{
    return kg_meta_get_str(obj, "name");
}
const char *kg_meta_namespace(const kg_json *obj)
{
    return kg_meta_get_str(obj, "namespace");
}
const char *kg_meta_generate_name(const kg_json *obj)
{
    return kg_meta_get_str(obj, "generateName");
}
const char *kg_meta_uid(const kg_json *obj)
{
    return kg_meta_get_str(obj, "uid");
}
const char *kg_meta_resource_version(const kg_json *obj)
{
    return kg_meta_get_str(obj, "resourceVersion");
}
const char *kg_meta_creation_timestamp(const kg_json *obj)
{
    return kg_meta_get_str(obj, "creationTimestamp");
}
const char *kg_meta_deletion_timestamp(const kg_json *obj)
{
    return kg_meta_get_str(obj, "deletionTimestamp");
}

void kg_meta_set_str(kg_arena *a, kg_json *obj, const char *key, const char *value)
{
    if (!value) {
        kg_json *m = kg_meta_get(obj);
        if (m)
            kg_json_del(m, key);
        return;
    }
    kg_json_set(a, kg_meta_ensure(a, obj), key, kg_json_new_str(a, value));
}

static int64_t meta_int(const kg_json *obj, const char *key, int64_t dflt)
{
    const kg_json *v = kg_json_get(kg_meta_get(obj), key);
    return kg_json_is(v, KG_JSON_INT) ? v->u.i : dflt;
}

int64_t kg_meta_generation(const kg_json *obj)
{
    return meta_int(obj, "generation", 0);
}

void kg_meta_set_generation(kg_arena *a, kg_json *obj, int64_t gen)
{
    kg_json_set(a, kg_meta_ensure(a, obj), "generation", kg_json_new_int(a, gen));
}

int64_t kg_meta_deletion_grace_period(const kg_json *obj)
{
    return meta_int(obj, "deletionGracePeriodSeconds", -1);
}

void kg_meta_set_deletion_grace_period(kg_arena *a, kg_json *obj, int64_t seconds)
{
    kg_json_set(a, kg_meta_ensure(a, obj), "deletionGracePeriodSeconds", kg_json_new_int(a, seconds));
}

char *kg_micro_time_now(kg_arena *a)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    return kg_arena_sprintf(a, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                            tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000);
}

char *kg_time_format(time_t t, char *buf)
{
    struct tm tm;
    char tmp[96];
    gmtime_r(&t, &tm);
    int n = snprintf(tmp, sizeof tmp, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec);
    if (n < 0 || n >= KG_TIME_BUF)
        n = KG_TIME_BUF - 1;
    memcpy(buf, tmp, (size_t)n);
    buf[n] = 0;
    return buf;
}

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* days since 1970-01-01 for a proleptic Gregorian date */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

bool kg_time_parse(const char *s, time_t *out)
{
    int Y, M, D, h, m, sec;
    if (!s || strlen(s) < 20 || !digits(s, 4, &Y) || s[4] != '-' || !digits(s + 5, 2, &M) || s[7] != '-' ||
        !digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) || s[13] != ':' ||
        !digits(s + 14, 2, &m) || s[16] != ':' || !digits(s + 17, 2, &sec))
        return false;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || h > 23 || m > 59 || sec > 59)
        return false;
    bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    if (M == 2 && D == 29 && !leap)
        return false;
    const char *p = s + 19;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    int64_t offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || oh > 23 || om > 59)
            return false;
        offset = (int64_t)(oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return false;
    }
    if (*p)
        return false;
    int64_t t = days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400 + h * 3600 + m * 60 + sec - offset;
    *out = (time_t)t;
    return true;
}

void kg_meta_set_creation_timestamp(kg_arena *a, kg_json *obj, time_t t)
{
    char buf[KG_TIME_BUF];
    kg_meta_set_str(a, obj, "creationTimestamp", kg_time_format(t, buf));
}

void kg_meta_set_deletion_timestamp(kg_arena *a, kg_json *obj, time_t t)
{
    char buf[KG_TIME_BUF];
    kg_meta_set_str(a, obj, "deletionTimestamp", kg_time_format(t, buf));
}

void kg_uuid_v4(char out[37])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

const char *kg_meta_new_uid(kg_arena *a, kg_json *obj)
{
    char u[37];
    kg_uuid_v4(u);
    kg_meta_set_uid(a, obj, u);
    return kg_meta_uid(obj);
}

static kg_json *meta_obj(const kg_json *obj, const char *key)
{
    kg_json *v = kg_json_get(kg_meta_get(obj), key);
    return kg_json_is(v, KG_JSON_OBJECT) ? v : NULL;
}

kg_json *kg_meta_labels(const kg_json *obj)
{
    return meta_obj(obj, "labels");
}
kg_json *kg_meta_annotations(const kg_json *obj)
{
    return meta_obj(obj, "annotations");
}
const char *kg_meta_label(const kg_json *obj, const char *key)
{
    return kg_json_get_str(kg_meta_labels(obj), key);
}
const char *kg_meta_annotation(const kg_json *obj, const char *key)
{
    return kg_json_get_str(kg_meta_annotations(obj), key);
}

static void set_map_entry(kg_arena *a, kg_json *obj, const char *map, const char *key, const char *value)
{
    if (!value) {
        kg_json *m = meta_obj(obj, map);
        if (m)
            kg_json_del(m, key);
        return;
    }
    kg_json *m = kg_json_get_or_add_object(a, kg_meta_ensure(a, obj), map);
    kg_json_set(a, m, key, kg_json_new_str(a, value));
}

void kg_meta_set_label(kg_arena *a, kg_json *obj, const char *key, const char *value)
{
    set_map_entry(a, obj, "labels", key, value);
}

void kg_meta_set_annotation(kg_arena *a, kg_json *obj, const char *key, const char *value)
{
    set_map_entry(a, obj, "annotations", key, value);
}

kg_json *kg_meta_finalizers(const kg_json *obj)
{
    kg_json *v = kg_json_get(kg_meta_get(obj), "finalizers");
    return kg_json_is(v, KG_JSON_ARRAY) ? v : NULL;
}

bool kg_meta_has_finalizer(const kg_json *obj, const char *name)
{
    const kg_json *f = kg_meta_finalizers(obj);
    for (uint32_t i = 0; f && i < f->len; i++)
        if (kg_json_is(f->u.items[i], KG_JSON_STRING) && strcmp(f->u.items[i]->u.s, name) == 0)
            return true;
    return false;
}

bool kg_meta_add_finalizer(kg_arena *a, kg_json *obj, const char *name)
{
    if (kg_meta_has_finalizer(obj, name))
        return false;
    kg_json *m = kg_meta_ensure(a, obj);
    kg_json *f = kg_json_get(m, "finalizers");
    if (!kg_json_is(f, KG_JSON_ARRAY)) {
        f = kg_json_new_array(a);
        kg_json_set(a, m, "finalizers", f);
    }
    kg_json_array_append(a, f, kg_json_new_str(a, name));
    return true;
}

bool kg_meta_remove_finalizer(kg_json *obj, const char *name)
{
    kg_json *f = kg_meta_finalizers(obj);
    bool removed = false;
    for (uint32_t i = 0; f && i < f->len;) {
        if (kg_json_is(f->u.items[i], KG_JSON_STRING) && strcmp(f->u.items[i]->u.s, name) == 0) {
            kg_json_array_remove(f, i);
            removed = true;
        } else {
            i++;
        }
    }
    return removed;
}

kg_json *kg_meta_owner_references(const kg_json *obj)
{
    kg_json *v = kg_json_get(kg_meta_get(obj), "ownerReferences");
    return kg_json_is(v, KG_JSON_ARRAY) ? v : NULL;
}

const kg_json *kg_meta_controller_ref(const kg_json *obj)
{
    const kg_json *refs = kg_meta_owner_references(obj);
    for (uint32_t i = 0; refs && i < refs->len; i++) {
        const kg_json *c = kg_json_get(refs->u.items[i], "controller");
        if (kg_json_is(c, KG_JSON_BOOL) && c->b)
            return refs->u.items[i];
    }
    return NULL;
}

kg_gvk kg_object_gvk(kg_arena *a, const kg_json *obj)
{
    const char *av = kg_json_get_str(obj, "apiVersion");
    const char *kind = kg_json_get_str(obj, "kind");
    kg_gvk g = {"", "", kind ? kind : ""};
    kg_gv gv;
    kg_error err;
    if (kg_gv_parse(a, av ? av : "", &gv, &err)) {
        g.group = gv.group;
        g.version = gv.version;
    }
    return g;
}

void kg_object_set_gvk(kg_arena *a, kg_json *obj, kg_gvk gvk)
{
    kg_json_set(a, obj, "apiVersion", kg_json_new_str(a, kg_gvk_api_version(a, gvk)));
    kg_json_set(a, obj, "kind", kg_json_new_str(a, gvk.kind ? gvk.kind : ""));
}

char *kg_meta_namespace_key(kg_arena *a, const kg_json *obj)
{
    const char *ns = kg_meta_namespace(obj), *name = kg_meta_name(obj);
    if (ns && ns[0])
        return kg_arena_sprintf(a, "%s/%s", ns, name ? name : "");
    return kg_arena_strdup(a, name ? name : "");
}
