/* Name, label and ObjectMeta validation with upstream messages. */
#include "meta/names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "meta/gvk.h"
#include "meta/object.h"

static void add_err(kg_name_errs *e, const char *msg)
{
    if (e && e->n < KG_NAME_MAX_ERRS)
        e->msg[e->n++] = msg;
}

static void reset(kg_name_errs *e)
{
    if (e)
        e->n = 0;
}

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n) */
static bool match_dns1123_label(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool match_dns1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (!match_dns1123_label(s + start, i - start))
                return false;
            start = i + 1;
        }
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool match_qualified_name(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

bool kg_is_dns1123_label_n(const char *s, size_t n, kg_name_errs *errs)
{
    reset(errs);
    bool ok = true;
    if (n > KG_DNS1123_LABEL_MAX) {
        add_err(errs, "must be no more than 63 characters");
        ok = false;
    }
    if (!match_dns1123_label(s, n)) {
        add_err(errs, match_dns1123_subdomain(s, n) ? "must not contain dots" : KG_MSG_DNS1123_LABEL);
        ok = false;
    }
    return ok;
}

bool kg_is_dns1123_subdomain_n(const char *s, size_t n, kg_name_errs *errs)
{
    reset(errs);
    bool ok = true;
    if (n > KG_DNS1123_SUBDOMAIN_MAX) {
        add_err(errs, "must be no more than 253 characters");
        ok = false;
    }
    if (!match_dns1123_subdomain(s, n)) {
        add_err(errs, KG_MSG_DNS1123_SUBDOMAIN);
        ok = false;
    }
    return ok;
}

bool kg_is_dns1035_label_n(const char *s, size_t n, kg_name_errs *errs)
{
    reset(errs);
    bool ok = true;
    if (n > KG_DNS1035_LABEL_MAX) {
        add_err(errs, "must be no more than 63 characters");
        ok = false;
    }
    if (!(n > 0 && s[0] >= 'a' && s[0] <= 'z' && match_dns1123_label(s, n))) {
        add_err(errs, KG_MSG_DNS1035_LABEL);
        ok = false;
    }
    return ok;
}

bool kg_is_qualified_name_n(const char *s, size_t len, kg_name_errs *errs)
{
    reset(errs);
    bool ok = true;
    const char *slash = memchr(s, '/', len);
    const char *name = s;
    if (slash) {
        if (memchr(slash + 1, '/', len - (size_t)(slash + 1 - s))) {
            add_err(errs, "a qualified name " KG_MSG_QUALIFIED_NAME
                          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
            return false;
        }
        size_t pn = (size_t)(slash - s);
        name = slash + 1;
        if (pn == 0) {
            add_err(errs, "prefix part " KG_MSG_EMPTY);
            ok = false;
        } else {
            if (pn > KG_DNS1123_SUBDOMAIN_MAX) {
                add_err(errs, "prefix part must be no more than 253 characters");
                ok = false;
            }
            if (!match_dns1123_subdomain(s, pn)) {
                add_err(errs, "prefix part " KG_MSG_DNS1123_SUBDOMAIN);
                ok = false;
            }
        }
    }
    size_t n = len - (size_t)(name - s);
    if (n == 0) {
        add_err(errs, "name part " KG_MSG_EMPTY);
        ok = false;
    } else if (n > KG_QUALIFIED_NAME_MAX) {
        add_err(errs, "name part must be no more than 63 characters");
        ok = false;
    }
    if (!match_qualified_name(name, n)) {
        add_err(errs, "name part " KG_MSG_QUALIFIED_NAME);
        ok = false;
    }
    return ok;
}

bool kg_is_valid_label_value_n(const char *s, size_t n, kg_name_errs *errs)
{
    reset(errs);
    bool ok = true;
    if (n > KG_LABEL_VALUE_MAX) {
        add_err(errs, "must be no more than 63 characters");
        ok = false;
    }
    if (n != 0 && !match_qualified_name(s, n)) {
        add_err(errs, KG_MSG_LABEL_VALUE);
        ok = false;
    }
    return ok;
}

bool kg_is_valid_path_segment_name(const char *s, bool prefix, kg_name_errs *errs)
{
    reset(errs);
    if (!prefix) {
        if (strcmp(s, ".") == 0) {
            add_err(errs, "may not be '.'");
            return false;
        }
        if (strcmp(s, "..") == 0) {
            add_err(errs, "may not be '..'");
            return false;
        }
    }
    bool ok = true;
    if (strchr(s, '/')) {
        add_err(errs, "may not contain '/'");
        ok = false;
    }
    if (strchr(s, '%')) {
        add_err(errs, "may not contain '%'");
        ok = false;
    }
    return ok;
}

bool kg_is_wildcard_dns1123_subdomain(const char *s, kg_name_errs *errs)
{
    reset(errs);
    size_t n = strlen(s);
    bool ok = true;
    if (n > KG_DNS1123_SUBDOMAIN_MAX) {
        add_err(errs, "must be no more than 253 characters");
        ok = false;
    }
    if (!(n > 2 && s[0] == '*' && s[1] == '.' && match_dns1123_subdomain(s + 2, n - 2))) {
        add_err(errs, "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
                      "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
                      "character (e.g. '*.example.com', regex used for validation is "
                      "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
        ok = false;
    }
    return ok;
}

static bool alpha_(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool kg_is_c_identifier(const char *s, kg_name_errs *errs)
{
    reset(errs);
    bool ok = alpha_(s[0]);
    for (size_t i = 1; ok && s[i]; i++)
        ok = alpha_(s[i]) || (s[i] >= '0' && s[i] <= '9');
    if (!ok)
        add_err(errs, "a valid C identifier must start with alphabetic character or '_', followed by a string of "
                      "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
                      "validation is '[A-Za-z_][A-Za-z0-9_]*')");
    return ok;
}

/* hasChDirPrefix */
static bool chdir_prefix(const char *s, kg_name_errs *errs)
{
    if (strcmp(s, ".") == 0)
        add_err(errs, "must not be '.'");
    else if (strcmp(s, "..") == 0)
        add_err(errs, "must not be '..'");
    else if (strncmp(s, "..", 2) == 0)
        add_err(errs, "must not start with '..'");
    else
        return true;
    return false;
}

static bool env_char(char c)
{
    return alpha_(c) || c == '-' || c == '.';
}

bool kg_is_env_var_name(const char *s, kg_name_errs *errs)
{
    reset(errs);
    bool ok = env_char(s[0]);
    for (size_t i = 1; ok && s[i]; i++)
        ok = env_char(s[i]) || (s[i] >= '0' && s[i] <= '9');
    if (!ok)
        add_err(errs, "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or "
                      "'.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or "
                      "'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')");
    return chdir_prefix(s, errs) && ok;
}

bool kg_is_config_map_key(const char *s, kg_name_errs *errs)
{
    reset(errs);
    size_t n = strlen(s);
    bool ok = true;
    if (n > KG_DNS1123_SUBDOMAIN_MAX) {
        add_err(errs, "must be no more than 253 characters");
        ok = false;
    }
    bool chars = n > 0;
    for (size_t i = 0; chars && i < n; i++)
        chars = alnum(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.';
    if (!chars) {
        add_err(errs, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
                      "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
        ok = false;
    }
    return chdir_prefix(s, errs) && ok;
}

bool kg_is_valid_port_name(const char *s, kg_name_errs *errs)
{
    reset(errs);
    size_t n = strlen(s);
    bool ok = true, charset = n > 0, letter = false;
    if (n > 15) {
        add_err(errs, "must be no more than 15 characters");
        ok = false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!lower_alnum(s[i]) && s[i] != '-')
            charset = false;
        if (s[i] >= 'a' && s[i] <= 'z')
            letter = true;
    }
    if (!charset) {
        add_err(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        ok = false;
    }
    if (!letter) {
        add_err(errs, "must contain at least one letter (a-z)");
        ok = false;
    }
    if (strstr(s, "--")) {
        add_err(errs, "must not contain consecutive hyphens");
        ok = false;
    }
    if (n > 0 && (s[0] == '-' || s[n - 1] == '-')) {
        add_err(errs, "must not begin or end with a hyphen");
        ok = false;
    }
    return ok;
}

bool kg_is_valid_port_num(long long port, kg_name_errs *errs)
{
    reset(errs);
    if (port >= 1 && port <= 65535)
        return true;
    add_err(errs, KG_MSG_PORT_NUM);
    return false;
}

bool kg_is_valid_percent(const char *s, kg_name_errs *errs)
{
    reset(errs);
    size_t n = strlen(s), i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i > 0 && i + 1 == n && s[i] == '%')
        return true;
    add_err(errs, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', "
                  "regex used for validation is '[0-9]+%')");
    return false;
}

bool kg_is_http_header_name(const char *s, kg_name_errs *errs)
{
    reset(errs);
    bool ok = s[0] != 0;
    for (size_t i = 0; ok && s[i]; i++)
        ok = alnum(s[i]) || s[i] == '-';
    if (!ok)
        add_err(errs, "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', "
                      "regex used for validation is '[-A-Za-z0-9]+')");
    return ok;
}

/* maskTrailingDash: name[:len-2] + "a" when name ends with '-' and is longer than 1 (upstream drops two bytes). */
static const char *mask_trailing_dash(const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    if (n > 1 && name[n - 1] == '-' && n < cap) {
        memcpy(buf, name, n - 2);
        buf[n - 2] = 'a';
        buf[n - 1] = 0;
        return buf;
    }
    return name;
}

bool kg_name_is_dns_label(const char *name, bool prefix, kg_name_errs *errs)
{
    char buf[512];
    return kg_is_dns1123_label(prefix ? mask_trailing_dash(name, buf, sizeof buf) : name, errs);
}

bool kg_name_is_dns_subdomain(const char *name, bool prefix, kg_name_errs *errs)
{
    char buf[512];
    return kg_is_dns1123_subdomain(prefix ? mask_trailing_dash(name, buf, sizeof buf) : name, errs);
}

bool kg_name_is_dns1035_label(const char *name, bool prefix, kg_name_errs *errs)
{
    char buf[512];
    return kg_is_dns1035_label(prefix ? mask_trailing_dash(name, buf, sizeof buf) : name, errs);
}

bool kg_name_is_path_segment(const char *name, bool prefix, kg_name_errs *errs)
{
    return kg_is_valid_path_segment_name(name, prefix, errs);
}

char *kg_name_errs_join(kg_arena *a, const kg_name_errs *errs, const char *sep)
{
    size_t total = 1;
    for (size_t i = 0; i < errs->n; i++)
        total += strlen(errs->msg[i]) + strlen(sep);
    char *out = kg_arena_alloc(a, total), *p = out;
    for (size_t i = 0; i < errs->n; i++) {
        if (i) {
            size_t sl = strlen(sep);
            memcpy(p, sep, sl);
            p += sl;
        }
        size_t ml = strlen(errs->msg[i]);
        memcpy(p, errs->msg[i], ml);
        p += ml;
    }
    *p = 0;
    return out;
}

/* Per-thread xoshiro256** seeded once from getrandom (upstream: math/rand through utilrand.String): name suffixes
 * need to be unpredictable enough to avoid collisions, not secret, and must not cost a syscall per name. */
static _Thread_local uint64_t rng_s[4];
static _Thread_local bool rng_seeded;

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(void)
{
    if (!rng_seeded) {
        size_t got = 0;
        while (got < sizeof rng_s) {
            ssize_t r = getrandom((char *)rng_s + got, sizeof rng_s - got, 0);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got < sizeof rng_s || !(rng_s[0] | rng_s[1] | rng_s[2] | rng_s[3])) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            rng_s[0] ^= (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL + (uint64_t)(uintptr_t)&rng_s;
            rng_s[1] ^= (uint64_t)ts.tv_sec + 0xbf58476d1ce4e5b9ULL;
        }
        rng_seeded = true;
    }
    uint64_t result = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return result;
}

char *kg_generate_name(kg_arena *a, const char *base)
{
    static const char alphanums[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t n = strlen(base);
    if (n > KG_MAX_GENERATED_NAME_LENGTH)
        n = KG_MAX_GENERATED_NAME_LENGTH;
    char *out = kg_arena_alloc(a, n + 6);
    memcpy(out, base, n);
    for (size_t i = 0; i < 5; i++) {
        uint64_t r;
        do /* rejection sampling: uniform over the 27 symbols */
            r = rng_next() >> 32;
        while (r >= 4294967274ULL); /* 27 * 159072862: the largest multiple of 27 below 2^32 */
        out[n + i] = alphanums[r % 27];
    }
    out[n + 5] = 0;
    return out;
}

/* ---- ObjectMeta ---------------------------------------------------------------------------------------------- */

static char *child(kg_arena *a, const char *path, const char *name)
{
    if (!path || !path[0])
        return kg_arena_strdup(a, name);
    return kg_arena_sprintf(a, "%s.%s", path, name);
}

static void invalid_each(kg_arena *a, kg_field_errors *errs, const char *path, const char *value,
                         const kg_name_errs *ne)
{
    for (size_t i = 0; i < ne->n; i++)
        kg_field_invalid(a, errs, path, value, ne->msg[i]);
}

void kg_validate_labels(kg_arena *a, const kg_json *labels, const char *fld_path, kg_field_errors *errs)
{
    if (!kg_json_is(labels, KG_JSON_OBJECT))
        return;
    kg_name_errs ne;
    for (uint32_t i = 0; i < labels->len; i++) {
        const kg_json_member *m = &labels->u.members[i];
        kg_is_qualified_name(m->key, &ne);
        invalid_each(a, errs, fld_path, m->key, &ne);
        const char *v = kg_json_is(m->val, KG_JSON_STRING) ? m->val->u.s : "";
        kg_is_valid_label_value(v, &ne);
        invalid_each(a, errs, fld_path, v, &ne);
    }
}

size_t kg_annotations_size(const kg_json *annotations)
{
    size_t total = 0;
    if (!kg_json_is(annotations, KG_JSON_OBJECT))
        return 0;
    for (uint32_t i = 0; i < annotations->len; i++) {
        const kg_json_member *m = &annotations->u.members[i];
        total += m->key_len;
        if (kg_json_is(m->val, KG_JSON_STRING))
            total += m->val->len;
    }
    return total;
}

void kg_validate_annotations(kg_arena *a, const kg_json *annotations, const char *fld_path, kg_field_errors *errs)
{
    if (!kg_json_is(annotations, KG_JSON_OBJECT))
        return;
    kg_name_errs ne;
    for (uint32_t i = 0; i < annotations->len; i++) {
        const kg_json_member *m = &annotations->u.members[i];
        char *lower = kg_arena_strdup(a, m->key);
        for (char *p = lower; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        kg_is_qualified_name(lower, &ne);
        invalid_each(a, errs, fld_path, m->key, &ne);
    }
    if (kg_annotations_size(annotations) > KG_TOTAL_ANNOTATION_SIZE_LIMIT)
        kg_field_too_long(a, errs, fld_path, KG_TOTAL_ANNOTATION_SIZE_LIMIT);
}

void kg_validate_finalizers(kg_arena *a, const kg_json *finalizers, const char *fld_path, kg_field_errors *errs)
{
    if (!kg_json_is(finalizers, KG_JSON_ARRAY))
        return;
    bool orphan = false, foreground = false;
    kg_name_errs ne;
    kg_buf list = KG_BUF_INIT;
    kg_buf_puts(&list, "[]string{");
    for (uint32_t i = 0; i < finalizers->len; i++) {
        const kg_json *f = finalizers->u.items[i];
        const char *s = kg_json_is(f, KG_JSON_STRING) ? f->u.s : "";
        kg_is_qualified_name(s, &ne);
        invalid_each(a, errs, fld_path, s, &ne);
        orphan |= strcmp(s, "orphan") == 0;
        foreground |= strcmp(s, "foregroundDeletion") == 0;
        if (i)
            kg_buf_puts(&list, ", ");
        kg_meta_quote(&list, s, strlen(s));
    }
    kg_buf_putc(&list, '}');
    if (orphan && foreground)
        kg_field_invalid_raw(a, errs, fld_path, kg_buf_cstr(&list),
                             "finalizer orphan and foregroundDeletion cannot be both set");
    kg_buf_free(&list);
}

void kg_validate_owner_references(kg_arena *a, const kg_json *refs, const char *fld_path, kg_field_errors *errs)
{
    if (!kg_json_is(refs, KG_JSON_ARRAY))
        return;
    const char *first_controller = NULL;
    for (uint32_t i = 0; i < refs->len; i++) {
        const kg_json *r = refs->u.items[i];
        const char *api_version = kg_json_get_str(r, "apiVersion");
        const char *kind = kg_json_get_str(r, "kind");
        const char *name = kg_json_get_str(r, "name");
        const char *uid = kg_json_get_str(r, "uid");
        kg_gv gv = {"", ""};
        kg_error e;
        if (!kg_gv_parse(a, api_version ? api_version : "", &gv, &e))
            gv.group = gv.version = "";
        if (!gv.version[0])
            kg_field_invalid(a, errs, child(a, fld_path, "apiVersion"), api_version ? api_version : "",
                             "version must not be empty");
        if (!kind || !kind[0])
            kg_field_invalid(a, errs, child(a, fld_path, "kind"), kind ? kind : "", "must not be empty");
        if (!name || !name[0])
            kg_field_invalid(a, errs, child(a, fld_path, "name"), name ? name : "", "must not be empty");
        if (!uid || !uid[0])
            kg_field_invalid(a, errs, child(a, fld_path, "uid"), uid ? uid : "", "must not be empty");
        if (gv.group[0] == 0 && strcmp(gv.version, "v1") == 0 && kind && strcmp(kind, "Event") == 0)
            kg_field_invalid_raw(a, errs, fld_path, kg_json_to_string(a, r, 0, NULL),
                                 "/v1, Kind=Event is disallowed from being an owner");
        const kg_json *ctl = kg_json_get(r, "controller");
        if (kg_json_is(ctl, KG_JSON_BOOL) && ctl->b) {
            char *cur = kg_arena_sprintf(a, "%s/%s", kind ? kind : "", name ? name : "");
            if (first_controller)
                kg_field_invalid_raw(
                    a, errs, fld_path, kg_json_to_string(a, refs, 0, NULL),
                    kg_arena_sprintf(a,
                                     "Only one reference can have Controller set to true. Found \"true\" in "
                                     "references for %s and %s",
                                     first_controller, cur));
            else
                first_controller = cur;
        }
    }
}

void kg_validate_object_meta(kg_arena *a, const kg_json *meta, bool requires_namespace, kg_name_validator name_fn,
                             const char *fld_path, kg_field_errors *errs)
{
    kg_name_errs ne;
    const char *generate_name = kg_json_get_str(meta, "generateName");
    const char *name = kg_json_get_str(meta, "name");
    const char *ns = kg_json_get_str(meta, "namespace");
    if (!name_fn)
        name_fn = kg_name_is_dns_subdomain;
    if (generate_name && generate_name[0]) {
        name_fn(generate_name, true, &ne);
        invalid_each(a, errs, child(a, fld_path, "generateName"), generate_name, &ne);
    }
    if (!name || !name[0]) {
        kg_field_required(a, errs, child(a, fld_path, "name"), "name or generateName is required");
    } else {
        name_fn(name, false, &ne);
        invalid_each(a, errs, child(a, fld_path, "name"), name, &ne);
    }
    if (requires_namespace) {
        if (!ns || !ns[0]) {
            kg_field_required(a, errs, child(a, fld_path, "namespace"), "");
        } else {
            kg_name_is_dns_label(ns, false, &ne);
            invalid_each(a, errs, child(a, fld_path, "namespace"), ns, &ne);
        }
    } else if (ns && ns[0]) {
        kg_field_forbidden(a, errs, child(a, fld_path, "namespace"), "not allowed on this type");
    }
    const kg_json *gen = kg_json_get(meta, "generation");
    if (kg_json_is(gen, KG_JSON_INT) && gen->u.i < 0)
        kg_field_invalid_int(a, errs, child(a, fld_path, "generation"), gen->u.i, KG_MSG_NEGATIVE);
    kg_validate_labels(a, kg_json_get(meta, "labels"), child(a, fld_path, "labels"), errs);
    kg_validate_annotations(a, kg_json_get(meta, "annotations"), child(a, fld_path, "annotations"), errs);
    kg_validate_owner_references(a, kg_json_get(meta, "ownerReferences"), child(a, fld_path, "ownerReferences"), errs);
    kg_validate_finalizers(a, kg_json_get(meta, "finalizers"), child(a, fld_path, "finalizers"), errs);
}

/* Go's time.Time.String() for a UTC metav1.Time: "2006-01-02 15:04:05 +0000 UTC". */
static char *go_time_string(kg_arena *a, const char *rfc3339)
{
    time_t t;
    if (!rfc3339 || !kg_time_parse(rfc3339, &t))
        return kg_arena_strdup(a, "0001-01-01 00:00:00 +0000 UTC");
    struct tm tm;
    gmtime_r(&t, &tm);
    return kg_arena_sprintf(a, "%04d-%02d-%02d %02d:%02d:%02d +0000 UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                            tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static bool str_eq(const char *x, const char *y)
{
    return strcmp(x ? x : "", y ? y : "") == 0;
}

static bool time_eq(const char *x, const char *y)
{
    time_t tx, ty;
    bool px = x && kg_time_parse(x, &tx), py = y && kg_time_parse(y, &ty);
    if (px != py)
        return false;
    return !px || tx == ty;
}

void kg_validate_object_meta_update(kg_arena *a, const kg_json *new_meta, const kg_json *old_meta, const char *fld_path,
                                    kg_field_errors *errs)
{
    const char *old_del = kg_json_get_str(old_meta, "deletionTimestamp");
    if (old_del) {
        const kg_json *nf = kg_json_get(new_meta, "finalizers"), *of = kg_json_get(old_meta, "finalizers");
        /* sets.NewString(new).Difference(old).List(): sorted, unique */
        const char **extra = NULL;
        size_t nextra = 0;
        for (uint32_t i = 0; kg_json_is(nf, KG_JSON_ARRAY) && i < nf->len; i++) {
            const char *f = kg_json_is(nf->u.items[i], KG_JSON_STRING) ? nf->u.items[i]->u.s : "";
            bool found = false;
            for (uint32_t j = 0; kg_json_is(of, KG_JSON_ARRAY) && j < of->len && !found; j++)
                found = kg_json_is(of->u.items[j], KG_JSON_STRING) && strcmp(of->u.items[j]->u.s, f) == 0;
            for (size_t j = 0; j < nextra && !found; j++)
                found = strcmp(extra[j], f) == 0;
            if (found)
                continue;
            extra = kg_arena_realloc(a, extra, nextra * sizeof(char *), (nextra + 1) * sizeof(char *));
            size_t k = nextra++;
            while (k > 0 && strcmp(extra[k - 1], f) > 0) {
                extra[k] = extra[k - 1];
                k--;
            }
            extra[k] = f;
        }
        if (nextra) {
            kg_buf b = KG_BUF_INIT;
            kg_buf_puts(&b, "no new finalizers can be added if the object is being deleted, found new finalizers "
                            "[]string{");
            for (size_t i = 0; i < nextra; i++) {
                if (i)
                    kg_buf_puts(&b, ", ");
                kg_meta_quote(&b, extra[i], strlen(extra[i]));
            }
            kg_buf_putc(&b, '}');
            kg_field_forbidden(a, errs, child(a, fld_path, "finalizers"), kg_buf_cstr(&b));
            kg_buf_free(&b);
        }
    }
    const char *rv = kg_json_get_str(new_meta, "resourceVersion");
    if (!rv || !rv[0])
        kg_field_invalid(a, errs, child(a, fld_path, "resourceVersion"), "", "must be specified for an update");
    const kg_json *ng = kg_json_get(new_meta, "generation"), *og = kg_json_get(old_meta, "generation");
    int64_t ngv = kg_json_is(ng, KG_JSON_INT) ? ng->u.i : 0, ogv = kg_json_is(og, KG_JSON_INT) ? og->u.i : 0;
    if (ngv < ogv)
        kg_field_invalid_int(a, errs, child(a, fld_path, "generation"), ngv, "must not be decremented");
    static const char *const immutable_strings[] = {"name", "namespace", "uid"};
    for (size_t i = 0; i < 3; i++) {
        const char *nv = kg_json_get_str(new_meta, immutable_strings[i]);
        const char *ov = kg_json_get_str(old_meta, immutable_strings[i]);
        if (!str_eq(nv, ov))
            kg_field_invalid(a, errs, child(a, fld_path, immutable_strings[i]), nv ? nv : "", "field is immutable");
    }
    const char *nct = kg_json_get_str(new_meta, "creationTimestamp");
    if (!time_eq(nct, kg_json_get_str(old_meta, "creationTimestamp")))
        kg_field_invalid_raw(a, errs, child(a, fld_path, "creationTimestamp"), go_time_string(a, nct),
                             "field is immutable");
    const char *ndt = kg_json_get_str(new_meta, "deletionTimestamp");
    if (!time_eq(ndt, old_del)) {
        if (ndt)
            kg_field_invalid_raw(a, errs, child(a, fld_path, "deletionTimestamp"), go_time_string(a, ndt),
                                 "field is immutable");
        else
            kg_field_invalid(a, errs, child(a, fld_path, "deletionTimestamp"), NULL, "field is immutable");
    }
    const kg_json *ngp = kg_json_get(new_meta, "deletionGracePeriodSeconds");
    const kg_json *ogp = kg_json_get(old_meta, "deletionGracePeriodSeconds");
    bool nset = kg_json_is(ngp, KG_JSON_INT), oset = kg_json_is(ogp, KG_JSON_INT);
    if (nset != oset || (nset && ngp->u.i != ogp->u.i)) {
        if (nset)
            kg_field_invalid_int(a, errs, child(a, fld_path, "deletionGracePeriodSeconds"), ngp->u.i,
                                 "field is immutable");
        else
            kg_field_invalid(a, errs, child(a, fld_path, "deletionGracePeriodSeconds"), NULL, "field is immutable");
    }
    kg_validate_labels(a, kg_json_get(new_meta, "labels"), child(a, fld_path, "labels"), errs);
    kg_validate_annotations(a, kg_json_get(new_meta, "annotations"), child(a, fld_path, "annotations"), errs);
    kg_validate_owner_references(a, kg_json_get(new_meta, "ownerReferences"), child(a, fld_path, "ownerReferences"),
                                 errs);
}
