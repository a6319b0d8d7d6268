/* The input reader of `kgate check` (see inputs.h). */
#include "check/inputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "yaml/yaml.h"

void kg_check_inputs_init(kg_check_inputs *in, kg_arena *a)
{
    memset(in, 0, sizeof *in);
    in->arena = a;
}

static kg_check_doc *push(kg_check_inputs *in, const char *file, int document, int item, int line)
{
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 16;
        kg_check_doc *d = kg_arena_alloc(in->arena, cap * sizeof *d);
        if (in->n)
            memcpy(d, in->docs, in->n * sizeof *d);
        in->docs = d;
        in->cap = cap;
    }
    kg_check_doc *d = &in->docs[in->n++];
    *d = (kg_check_doc){.file = file, .document = document, .item = item, .line = line};
    return d;
}

/* A kind that lists objects: "List" (kubectl's v1 List) or any "<Kind>List" with an items array. */
static bool is_list(const kg_json *v)
{
    const char *kind = kg_json_get_str(v, "kind");
    size_t n = kind ? strlen(kind) : 0;
    return n >= 4 && !strcmp(kind + n - 4, "List") && kg_json_is(kg_json_get(v, "items"), KG_JSON_ARRAY);
}

static const char *object_error(kg_arena *a, const kg_json *v)
{
    if (!kg_json_is(v, KG_JSON_OBJECT))
        return kg_arena_sprintf(a, "not a Kubernetes object: a %s", kg_json_type_name(v ? v->type : KG_JSON_NULL));
    const char *av = kg_json_get_str(v, "apiVersion"), *kind = kg_json_get_str(v, "kind");
    if (!kind || !kind[0])
        return "Object 'Kind' is missing";
    if (!av || !av[0])
        return "Object 'apiVersion' is missing";
    return NULL;
}

/* One parsed document: the object itself, or a List's items. */
static void add_value(kg_check_inputs *in, const char *file, int document, int line, kg_json *v)
{
    if (is_list(v)) {
        const kg_json *items = kg_json_get(v, "items");
        for (uint32_t i = 0; i < items->len; i++) {
            kg_check_doc *d = push(in, file, document, (int)i + 1, line);
            kg_json *it = kg_json_at(items, i);
            d->error = object_error(in->arena, it);
            d->obj = d->error ? NULL : it;
        }
        return;
    }
    kg_check_doc *d = push(in, file, document, 0, line);
    d->error = object_error(in->arena, v);
    d->obj = d->error ? NULL : v;
}

/* Whether line [p, e) is a document separator: "---" followed by a blank or the end of the line. */
static bool is_separator(const char *p, const char *e)
{
    return e - p >= 3 && !strncmp(p, "---", 3) && (e - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\r');
}

/* Whether [p, e) holds only blanks and comments (an empty document). */
static bool blank_text(const char *p, const char *e)
{
    bool comment = false;
    for (; p < e; p++) {
        if (*p == '\n')
            comment = false;
        else if (*p == '#')
            comment = true;
        else if (!comment && *p != ' ' && *p != '\t' && *p != '\r')
            return false;
    }
    return true;
}

/* The parser counts lines from the document's start: make "line N" count from the file's start. */
static const char *file_lines(kg_arena *a, const char *msg, int first_line)
{
    const char *at = strstr(msg, "line ");
    char *end;
    long n = at ? strtol(at + 5, &end, 10) : 0;
    if (!at || end == at + 5)
        return msg;
    return kg_arena_sprintf(a, "%.*sline %ld%s", (int)(at - msg), msg, n + first_line - 1, end);
}

static void add_yaml_doc(kg_check_inputs *in, const char *file, int *document, int line, const char *p, const char *e)
{
    if (blank_text(p, e))
        return;
    kg_error err;
    kg_json *v = kg_yaml_parse(in->arena, p, (size_t)(e - p), &err);
    if (v && kg_json_is(v, KG_JSON_NULL))
        return; /* an empty document (only a "---" and comments) */
    (*document)++;
    if (!v) {
        kg_check_doc *d = push(in, file, *document, 0, line);
        d->error = kg_arena_sprintf(in->arena, "error parsing YAML: %s", file_lines(in->arena, err.msg, line));
        return;
    }
    add_value(in, file, *document, line, v);
}

void kg_check_read_text(kg_check_inputs *in, const char *file, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (i < len && (text[i] == '{' || text[i] == '[')) {
        kg_error err;
        int line = 1;
        for (size_t k = 0; k < i; k++)
            line += text[k] == '\n';
        kg_json *v = kg_json_parse(in->arena, text, len, &err);
        if (!v) {
            kg_check_doc *d = push(in, file, 1, 0, line);
            d->error = kg_arena_sprintf(in->arena, "error parsing JSON: %s", err.msg);
            return;
        }
        add_value(in, file, 1, line, v);
        return;
    }
    /* YAML: split at separator lines, parse each document on its own so each knows its first line */
    const char *p = text, *end = text + len, *doc = text;
    int line = 1, doc_line = 1, document = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (is_separator(p, eol) && p != doc) {
            add_yaml_doc(in, file, &document, doc_line, doc, p);
            doc = p;
            doc_line = line;
        } else if (p == doc && is_separator(p, eol)) {
            doc_line = line;
        }
        p = nl ? nl + 1 : end;
        line++;
    }
    add_yaml_doc(in, file, &document, doc_line, doc, end);
}

char *kg_check_slurp(kg_arena *a, FILE *f, size_t *len, kg_error *err)
{
    kg_buf b = KG_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        kg_buf_append(&b, chunk, n);
    if (ferror(f)) {
        kg_buf_free(&b);
        kg_err_set(err, KG_EIO, "read error: %s", strerror(errno));
        return NULL;
    }
    char *out = kg_arena_strndup(a, b.data ? b.data : "", b.len);
    *len = b.len;
    kg_buf_free(&b);
    return out;
}

static bool read_file(kg_check_inputs *in, const char *path, kg_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        kg_err_set(err, KG_EIO, "%s: %s", path, strerror(errno));
        return false;
    }
    size_t len;
    char *text = kg_check_slurp(in->arena, f, &len, err);
    fclose(f);
    if (!text) {
        kg_err_prefix(err, "%s", path);
        return false;
    }
    kg_check_read_text(in, kg_arena_strdup(in->arena, path), text, len);
    return true;
}

static bool wanted(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml")) ||
           (n > 5 && !strcmp(name + n - 5, ".json"));
}

static bool read_dir(kg_check_inputs *in, const char *path, kg_error *err)
{
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        kg_err_set(err, KG_EIO, "%s: %s", path, strerror(errno));
        return false;
    }
    bool ok = true;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        if (ok && strcmp(nm, ".") && strcmp(nm, "..")) {
            char *child = kg_arena_sprintf(in->arena, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", nm);
            struct stat st;
            if (stat(child, &st)) {
                kg_err_set(err, KG_EIO, "%s: %s", child, strerror(errno));
                ok = false;
            } else if (S_ISDIR(st.st_mode)) {
                ok = read_dir(in, child, err);
            } else if (S_ISREG(st.st_mode) && wanted(nm)) {
                ok = read_file(in, child, err);
            }
        }
        free(names[i]);
    }
    free(names);
    return ok;
}

bool kg_check_read_path(kg_check_inputs *in, const char *path, kg_error *err)
{
    if (!strcmp(path, "-")) {
        size_t len;
        char *text = kg_check_slurp(in->arena, stdin, &len, err);
        if (!text) {
            kg_err_prefix(err, "<stdin>");
            return false;
        }
        kg_check_read_text(in, "<stdin>", text, len);
        return true;
    }
    struct stat st;
    if (stat(path, &st)) {
        kg_err_set(err, KG_EIO, "%s: %s", path, strerror(errno));
        return false;
    }
    return S_ISDIR(st.st_mode) ? read_dir(in, path, err) : read_file(in, path, err);
}

const char *kg_check_doc_where(kg_arena *a, const kg_check_doc *d)
{
    if (d->item)
        return kg_arena_sprintf(a, "%s:%d (document %d, item %d)", d->file, d->line, d->document, d->item);
    return kg_arena_sprintf(a, "%s:%d (document %d)", d->file, d->line, d->document);
}
