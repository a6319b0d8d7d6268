/* `kgate check --audit` (see audit.h). */
#include "check/audit.h"

#include <string.h>

#include "base/buf.h"
#include "json/json.h"

static void count(kg_audit *au, const char *policy, const char *binding, const char *ns)
{
    for (size_t i = 0; i < au->ncounts; i++) {
        kg_audit_count *c = &au->counts[i];
        if (!strcmp(c->policy, policy) && !strcmp(c->binding, binding) && !strcmp(c->ns, ns)) {
            c->violations++;
            return;
        }
    }
    if (au->ncounts == au->cap_counts) {
        size_t cap = au->cap_counts ? au->cap_counts * 2 : 16;
        kg_audit_count *n = kg_arena_alloc(au->arena, cap * sizeof *n);
        if (au->ncounts)
            memcpy(n, au->counts, au->ncounts * sizeof *n);
        au->counts = n;
        au->cap_counts = cap;
    }
    au->counts[au->ncounts++] = (kg_audit_count){
        kg_arena_strdup(au->arena, policy), kg_arena_strdup(au->arena, binding), kg_arena_strdup(au->arena, ns), 1};
}

static void on_event(void *ud, const kg_trace_event *ev)
{
    kg_audit *au = ud;
    if (ev->depth != 1 || strcmp(ev->kind, "ValidatingAdmissionPolicy"))
        return;
    if (ev->verdict == KG_TRACE_SKIPPED)
        return;
    au->cur_matched = true;
    if (ev->verdict != KG_TRACE_DENIED && ev->verdict != KG_TRACE_WARNED)
        return;
    au->cur_violated = true;
    au->violations++;
    const char *binding = ev->binding ? ev->binding : "";
    count(au, ev->name, binding, au->ns);
    if (au->nitems < au->max_items) {
        kg_arena *a = au->arena;
        au->items[au->nitems++] = (kg_audit_item){
            .doc = au->doc,
            .kind = kg_arena_strdup(a, au->kind),
            .ns = kg_arena_strdup(a, au->ns),
            .name = kg_arena_strdup(a, au->name),
            .policy = kg_arena_strdup(a, ev->name),
            .binding = kg_arena_strdup(a, binding),
            .message = kg_arena_strdup(a, ev->message ? ev->message : ""),
            .deny = ev->verdict == KG_TRACE_DENIED,
        };
    }
}

void kg_audit_init(kg_audit *au, kg_arena *a, size_t max_items)
{
    memset(au, 0, sizeof *au);
    au->tracer = (kg_admission_tracer){on_event, au, true};
    au->arena = a;
    au->max_items = max_items;
    au->items = kg_arena_alloc(a, (max_items ? max_items : 1) * sizeof *au->items);
}

void kg_audit_begin_object(kg_audit *au, const kg_check_doc *doc, const char *kind, const char *ns, const char *name)
{
    au->doc = doc;
    au->kind = kind ? kind : "";
    au->ns = ns ? ns : "";
    au->name = name ? name : "";
    au->cur_matched = au->cur_violated = false;
}

void kg_audit_end_object(kg_audit *au)
{
    au->objects++;
    au->matched += au->cur_matched;
    au->violating_objects += au->cur_violated;
}

void kg_audit_error(kg_audit *au, const kg_check_doc *doc, const char *msg)
{
    au->errors++;
    fprintf(stderr, "Error: %s: %s\n", kg_check_doc_where(au->arena, doc), msg);
}

static const char *object(kg_arena *a, const char *kind, const char *ns, const char *name)
{
    return ns[0] ? kg_arena_sprintf(a, "%s %s/%s", kind, ns, name) : kg_arena_sprintf(a, "%s %s", kind, name);
}

static const char *or_dash(const char *s)
{
    return s && s[0] ? s : "-";
}

void kg_audit_report_text(FILE *f, kg_arena *a, const kg_audit *au, size_t npolicies, size_t nbindings)
{
    fprintf(f, "Audit of %zu polic%s (%zu binding%s) over %zu object%s: %zu matched, %zu violating\n", npolicies,
            npolicies == 1 ? "y" : "ies", nbindings, nbindings == 1 ? "" : "s", au->objects,
            au->objects == 1 ? "" : "s", au->matched, au->violating_objects);
    if (au->ncounts) {
        int wp = 6, wb = 7, wn = 9;
        for (size_t i = 0; i < au->ncounts; i++) {
            int lp = (int)strlen(au->counts[i].policy), lb = (int)strlen(or_dash(au->counts[i].binding)),
                ln = (int)strlen(or_dash(au->counts[i].ns));
            wp = lp > wp ? lp : wp;
            wb = lb > wb ? lb : wb;
            wn = ln > wn ? ln : wn;
        }
        fprintf(f, "\n%-*s  %-*s  %-*s  %s\n", wp, "POLICY", wb, "BINDING", wn, "NAMESPACE", "VIOLATIONS");
        for (size_t i = 0; i < au->ncounts; i++)
            fprintf(f, "%-*s  %-*s  %-*s  %zu\n", wp, au->counts[i].policy, wb, or_dash(au->counts[i].binding), wn,
                    or_dash(au->counts[i].ns), au->counts[i].violations);
    }
    if (au->nitems) {
        fprintf(f, "\n%s%zu violation%s:\n", au->nitems < au->violations ? "First " : "", au->nitems,
                au->nitems == 1 ? "" : "s");
        for (size_t i = 0; i < au->nitems; i++) {
            const kg_audit_item *x = &au->items[i];
            fprintf(f, "%s: %s: ValidatingAdmissionPolicy '%s'%s%s%s%s: %s\n", kg_check_doc_where(a, x->doc),
                    object(a, x->kind, x->ns, x->name), x->policy, x->binding[0] ? " with binding '" : "", x->binding,
                    x->binding[0] ? "'" : "", x->deny ? " (Deny)" : "", x->message);
        }
    }
    fprintf(f, "\n%zu violation%s in %zu object%s", au->violations, au->violations == 1 ? "" : "s",
            au->violating_objects, au->violating_objects == 1 ? "" : "s");
    if (au->nitems < au->violations)
        fprintf(f, " (%zu shown; --max-violations)", au->nitems);
    if (au->errors)
        fprintf(f, "; %zu object%s not evaluated", au->errors, au->errors == 1 ? "" : "s");
    fputc('\n', f);
}

void kg_audit_report_json(FILE *f, kg_arena *a, const kg_audit *au, size_t npolicies, size_t nbindings)
{
    kg_json *o = kg_json_new_object(a);
    kg_json_set(a, o, "policies", kg_json_new_int(a, (int64_t)npolicies));
    kg_json_set(a, o, "bindings", kg_json_new_int(a, (int64_t)nbindings));
    kg_json_set(a, o, "objects", kg_json_new_int(a, (int64_t)au->objects));
    kg_json_set(a, o, "matched", kg_json_new_int(a, (int64_t)au->matched));
    kg_json_set(a, o, "violatingObjects", kg_json_new_int(a, (int64_t)au->violating_objects));
    kg_json_set(a, o, "violations", kg_json_new_int(a, (int64_t)au->violations));
    kg_json_set(a, o, "errors", kg_json_new_int(a, (int64_t)au->errors));
    kg_json *counts = kg_json_new_array(a);
    for (size_t i = 0; i < au->ncounts; i++) {
        kg_json *c = kg_json_new_object(a);
        kg_json_set(a, c, "policy", kg_json_new_str(a, au->counts[i].policy));
        kg_json_set(a, c, "binding", kg_json_new_str(a, au->counts[i].binding));
        kg_json_set(a, c, "namespace", kg_json_new_str(a, au->counts[i].ns));
        kg_json_set(a, c, "violations", kg_json_new_int(a, (int64_t)au->counts[i].violations));
        kg_json_array_append(a, counts, c);
    }
    kg_json_set(a, o, "counts", counts);
    kg_json *items = kg_json_new_array(a);
    for (size_t i = 0; i < au->nitems; i++) {
        const kg_audit_item *x = &au->items[i];
        kg_json *it = kg_json_new_object(a);
        kg_json_set(a, it, "file", kg_json_new_str(a, x->doc->file));
        kg_json_set(a, it, "document", kg_json_new_int(a, x->doc->document));
        if (x->doc->item)
            kg_json_set(a, it, "item", kg_json_new_int(a, x->doc->item));
        kg_json_set(a, it, "line", kg_json_new_int(a, x->doc->line));
        kg_json_set(a, it, "kind", kg_json_new_str(a, x->kind));
        kg_json_set(a, it, "namespace", kg_json_new_str(a, x->ns));
        kg_json_set(a, it, "name", kg_json_new_str(a, x->name));
        kg_json_set(a, it, "policy", kg_json_new_str(a, x->policy));
        kg_json_set(a, it, "binding", kg_json_new_str(a, x->binding));
        kg_json_set(a, it, "deny", kg_json_new_bool(a, x->deny));
        kg_json_set(a, it, "message", kg_json_new_str(a, x->message));
        kg_json_array_append(a, items, it);
    }
    kg_json_set(a, o, "violationsShown", items);
    kg_json_set(a, o, "truncated", kg_json_new_bool(a, au->nitems < au->violations));
    kg_json *doc = kg_json_new_object(a);
    kg_json_set(a, doc, "audit", o);
    kg_buf b = KG_BUF_INIT;
    kg_json_write(&b, doc, KG_JSON_WRITE_PRETTY | KG_JSON_WRITE_NO_ESCAPE_HTML);
    fwrite(b.data, 1, b.len, f);
    fputc('\n', f);
    kg_buf_free(&b);
}
