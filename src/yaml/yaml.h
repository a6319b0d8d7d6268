/* YAML → JSON DOM, reading YAML the way sigs.k8s.io/yaml (go-yaml v2) does: YAML 1.1 plain-scalar rules
 * (yes/no/on/off booleans, 0644 octal, 0x hex, ~ null, 1_000), anchors and aliases expanded (bounded),
 * map keys turned into strings. Built on libyaml's event API. */
#ifndef KG_YAML_H
#define KG_YAML_H

#include <stddef.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "json/json.h"

/* Parse the first (and only) document. An empty document yields JSON null. Errors carry "line L, column C". */
kg_json *kg_yaml_parse(kg_arena *a, const char *text, size_t len, kg_error *err);

/* Parse every document of a multi-document stream ("---" separated) into a JSON array; empty documents
 * (e.g. a trailing "---") are skipped, as kubectl does. */
kg_json *kg_yaml_parse_all(kg_arena *a, const char *text, size_t len, kg_error *err);

/* Parse bytes that may be JSON or YAML (JSON is YAML; this takes the fast JSON path when the first
 * non-space byte is '{' or '['). */
kg_json *kg_yaml_or_json_parse(kg_arena *a, const char *text, size_t len, kg_error *err);

/* Write v as block-style YAML (kubectl -o yaml's layout: 2-space indentation, sequence items at their key's
 * indentation), ending in a newline. Strings that YAML 1.1 could read as anything else (numbers, booleans, null,
 * indicators, multi-line text) are double-quoted, so kg_yaml_parse gives back a document equal to v. */
void kg_yaml_write(kg_buf *out, const kg_json *v);

#endif
