#include "admission/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/str.h"
#include "yaml/yaml.h"

#define V1 "apiserver.config.k8s.io/v1"
#define V1ALPHA1 "apiserver.k8s.io/v1alpha1"

void kg_admission_config_init(kg_admission_config *c)
{
    memset(c, 0, sizeof *c);
    kg_arena_init(&c->arena, 0);
    c->file = "";
}

void kg_admission_config_free(kg_admission_config *c)
{
    kg_arena_free(&c->arena);
    memset(c, 0, sizeof *c);
}

static bool fail(kg_admission_config *c, kg_error *err, const char *fmt, const char *a, const char *b)
{
    char msg[KG_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    return kg_err_set(err, KG_EINVAL, "\"%s\": %s", c->file, msg);
}

/* Go's syscall error texts are lowercase ("no such file or directory") */
static const char *go_strerror(int errnum, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", strerror(errnum));
    if (buf[0] >= 'A' && buf[0] <= 'Z')
        buf[0] = (char)(buf[0] - 'A' + 'a');
    return buf;
}

static const char *type_of(const kg_json *v)
{
    return kg_json_type_name((kg_json_type)v->type);
}

/* path.Dir + makeAbs: relative paths are resolved against the directory of the configuration file (the process
 * working directory when that directory is "" or "."). */
static const char *resolve(kg_admission_config *c, const char *p)
{
    if (p[0] == '/' || p[0] == '\0')
        return kg_arena_strdup(&c->arena, p);
    const char *slash = strrchr(c->file, '/');
    const char *dir;
    if (!slash) {
        char cwd[4096];
        dir = getcwd(cwd, sizeof cwd) ? kg_arena_strdup(&c->arena, cwd) : ".";
    } else if (slash == c->file) {
        dir = "";
    } else {
        dir = kg_arena_strndup(&c->arena, c->file, (size_t)(slash - c->file));
        if (strcmp(dir, ".") == 0) {
            char cwd[4096];
            dir = getcwd(cwd, sizeof cwd) ? kg_arena_strdup(&c->arena, cwd) : ".";
        }
    }
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    return kg_arena_sprintf(&c->arena, "%s/%s", dir, p);
}

static bool parse_entry(kg_admission_config *c, const kg_json *e, size_t i, kg_admission_config_entry *out,
                        kg_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "plugins[%zu]", i);
    if (!kg_json_is(e, KG_JSON_OBJECT))
        return fail(c, err, "%s: expected an object, got %s", field, type_of(e));
    memset(out, 0, sizeof *out);
    out->name = "";
    out->path = "";
    for (uint32_t k = 0; k < e->len; k++) {
        const char *key = e->u.members[k].key;
        const kg_json *v = e->u.members[k].val;
        char f[160];
        snprintf(f, sizeof f, "%s.%s", field, key);
        if (strcmp(key, "name") == 0 || strcmp(key, "path") == 0) {
            if (v->type == KG_JSON_NULL)
                continue;
            if (v->type != KG_JSON_STRING)
                return fail(c, err, "%s: expected a string, got %s", f, type_of(v));
            if (key[0] == 'n')
                out->name = v->u.s;
            else
                out->path = v->u.s;
        } else if (strcmp(key, "configuration") == 0) {
            if (v->type == KG_JSON_NULL)
                continue;
            if (v->type != KG_JSON_OBJECT)
                return fail(c, err, "%s: expected an object, got %s", f, type_of(v));
            out->configuration = v;
        } else {
            return fail(c, err, "strict decoding error: unknown field \"%s\"%s", f, "");
        }
    }
    if (out->path[0])
        out->path = resolve(c, out->path);
    return true;
}

static bool has_legacy_keys(const kg_json *doc)
{
    return kg_json_get(doc, "imagePolicy") || kg_json_get(doc, "podNodeSelectorPluginConfig");
}

bool kg_admission_config_parse(kg_admission_config *c, const char *file, const char *text, size_t len, kg_error *err)
{
    c->file = kg_arena_strdup(&c->arena, file ? file : "");
    c->entries = NULL;
    c->nentries = 0;
    c->legacy = NULL;
    KG_ERROR_DECL(e);
    const char *t = text;
    while (t < text + len && (*t == ' ' || *t == '\t' || *t == '\r' || *t == '\n'))
        t++;
    kg_json *doc;
    if (t < text + len && *t == '{') {
        /* JSON: strict decoding also rejects duplicate fields */
        kg_json_parse_info info = {0};
        doc = kg_json_parse_ex(&c->arena, text, len, KG_JSON_PARSE_DUP_REPORT, &info, &e);
        if (doc && info.ndups)
            return fail(c, err, "strict decoding error: duplicate field \"%s\"%s", info.dups[0], "");
    } else {
        doc = kg_yaml_or_json_parse(&c->arena, text, len, &e);
    }
    if (!doc)
        return fail(c, err, "%s%s", e.msg, "");
    if (doc->type == KG_JSON_NULL) /* empty file: no configuration */
        return true;
    if (doc->type != KG_JSON_OBJECT)
        return fail(c, err, "expected an AdmissionConfiguration object, got %s%s", type_of(doc), "");

    const kg_json *av = kg_json_get(doc, "apiVersion"), *kind = kg_json_get(doc, "kind");
    const char *avs = kg_json_is(av, KG_JSON_STRING) ? av->u.s : "";
    const char *ks = kg_json_is(kind, KG_JSON_STRING) ? kind->u.s : "";
    if (av && !kg_json_is(av, KG_JSON_STRING))
        return fail(c, err, "apiVersion: expected a string, got %s%s", type_of(av), "");
    if (kind && !kg_json_is(kind, KG_JSON_STRING))
        return fail(c, err, "kind: expected a string, got %s%s", type_of(kind), "");
    bool registered = (strcmp(avs, V1) == 0 || strcmp(avs, V1ALPHA1) == 0) && strcmp(ks, "AdmissionConfiguration") == 0;
    if (!registered) {
        /* legacy unversioned file (ImagePolicyWebhook / PodNodeSelector configuration) */
        if (has_legacy_keys(doc) && (!avs[0] || !ks[0] || (strcmp(avs, V1) != 0 && strcmp(avs, V1ALPHA1) != 0))) {
            c->legacy = doc;
            return true;
        }
        if (!avs[0])
            return fail(c, err, "apiVersion: Object 'apiVersion' is missing%s%s", "", "");
        if (!ks[0])
            return fail(c, err, "kind: Object 'Kind' is missing%s%s", "", "");
        return fail(c, err, "apiVersion/kind: no kind \"%s\" is registered for version \"%s\"", ks, avs);
    }
    const kg_json *plugins = NULL;
    for (uint32_t k = 0; k < doc->len; k++) {
        const char *key = doc->u.members[k].key;
        if (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0)
            continue;
        if (strcmp(key, "plugins") == 0) {
            plugins = doc->u.members[k].val;
            continue;
        }
        return fail(c, err, "strict decoding error: unknown field \"%s\"%s", key, "");
    }
    if (plugins && plugins->type != KG_JSON_NULL) {
        if (plugins->type != KG_JSON_ARRAY)
            return fail(c, err, "plugins: expected an array, got %s%s", type_of(plugins), "");
        c->entries = kg_arena_calloc(&c->arena, (plugins->len ? plugins->len : 1) * sizeof *c->entries);
        for (uint32_t i = 0; i < plugins->len; i++)
            if (!parse_entry(c, plugins->u.items[i], i, &c->entries[i], err))
                return false;
        c->nentries = plugins->len;
    }
    return true;
}

bool kg_admission_config_load(kg_admission_config *c, const char *file, kg_error *err)
{
    size_t len = 0;
    char *text = kg_read_file(file, &len);
    if (!text) {
        char eb[256];
        return kg_err_set(err, KG_ENOTFOUND, "unable to read admission control configuration from \"%s\" [open %s: %s]",
                          file, file, go_strerror(errno, eb, sizeof eb));
    }
    bool ok = kg_admission_config_parse(c, file, text, len, err);
    free(text);
    return ok;
}

const kg_json *kg_admission_config_for(kg_admission_config *c, const char *name, kg_error *err)
{
    if (err)
        kg_err_clear(err);
    if (c->legacy) {
        if ((strcmp(name, "ImagePolicyWebhook") == 0 && kg_json_get(c->legacy, "imagePolicy")) ||
            (strcmp(name, "PodNodeSelector") == 0 && kg_json_get(c->legacy, "podNodeSelectorPluginConfig")))
            return c->legacy;
        return NULL;
    }
    for (size_t i = 0; i < c->nentries; i++) {
        kg_admission_config_entry *e = &c->entries[i];
        if (strcmp(e->name, name) != 0)
            continue;
        if (e->configuration)
            return e->configuration; /* embedded wins over path */
        if (!e->path[0])
            return NULL;
        if (e->loaded)
            return e->loaded;
        size_t len = 0;
        char *text = kg_read_file(e->path, &len);
        if (!text) {
            char eb[256];
            kg_err_set(err, KG_ENOTFOUND, "open %s: %s", e->path, go_strerror(errno, eb, sizeof eb));
            return NULL;
        }
        KG_ERROR_DECL(pe);
        kg_json *doc = kg_yaml_or_json_parse(&c->arena, text, len, &pe);
        free(text);
        if (!doc) {
            kg_err_set(err, KG_EINVAL, "\"%s\": %s", e->path, pe.msg);
            return NULL;
        }
        if (doc->type == KG_JSON_NULL)
            return NULL;
        e->loaded = doc;
        return doc;
    }
    return NULL;
}
