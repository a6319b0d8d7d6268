/* The input reader of `kgate check`: paths → the objects to check, each remembering where it came from.
 *
 *   - a file is read whatever its name; a directory is walked recursively in name order, taking the files named
 *     *.yaml, *.yml and *.json; "-" is standard input (reported as "<stdin>");
 *   - YAML files are multi-document streams ("---" lines separate documents; empty documents are skipped, as
 *     kubectl does); JSON files hold one value; either may be a List (kind "List" or "<Kind>List" with items),
 *     whose items become objects of their own;
 *   - every object carries its file, its document's index in the file (1-based), its index among a List's items
 *     (1-based; 0 when not from a List) and the line its document starts on (1-based);
 *   - a document that does not parse, or that is not an object with apiVersion and kind, is kept as an input error
 *     (error set, obj NULL) so the caller reports it with the same coordinates. */
#ifndef KG_CHECK_INPUTS_H
#define KG_CHECK_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_check_doc {
    const char *file;  /* path as given ("<stdin>" for "-") */
    int document;      /* 1-based index of the document in its file */
    int item;          /* 1-based index in a List's items; 0 when the document is the object */
    int line;          /* 1-based line where the document starts */
    kg_json *obj;      /* the object, or NULL for an input error */
    const char *error; /* the input error, or NULL */
} kg_check_doc;

typedef struct kg_check_inputs {
    kg_arena *arena; /* everything below lives here */
    kg_check_doc *docs;
    size_t n, cap;
} kg_check_inputs;

void kg_check_inputs_init(kg_check_inputs *in, kg_arena *a);
/* Read a file, a directory or "-" (stdin) and append its objects. False with err (naming the path) when the path
 * cannot be read at all; problems inside a file become input-error docs. */
bool kg_check_read_path(kg_check_inputs *in, const char *path, kg_error *err);
/* Append the objects of text (the contents of file); JSON when the first non-blank byte is '{' or '['. */
void kg_check_read_text(kg_check_inputs *in, const char *file, const char *text, size_t len);
/* Read a whole stream (stdin) into the arena; NULL with err on a read error. */
char *kg_check_slurp(kg_arena *a, FILE *f, size_t *len, kg_error *err);

/* "file:line (document N[, item M])", for messages. */
const char *kg_check_doc_where(kg_arena *a, const kg_check_doc *d);

#endif
