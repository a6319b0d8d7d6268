/* JSON templates: a tree built once (e.g. at start-up) and stamped into many requests. A template lays the tree's
 * nodes and member/item arrays out in one block with a list of its internal pointers; an instance is one arena
 * allocation, one memcpy and the pointer fix-ups, instead of an allocation and copy per node
 * (kg_json_clone_nodes). Like kg_json_clone_nodes, instances share the source's strings, keys and number texts,
 * which must therefore outlive every instance (literals, or an arena kept for the process); the nodes and arrays are
 * the instance's own and as editable as any other object. */
#ifndef KG_JSON_TEMPLATE_H
#define KG_JSON_TEMPLATE_H

#include "base/arena.h"
#include "json/json.h"

typedef struct kg_json_template kg_json_template;

/* A template of v (copied now: later changes to v are not seen). NULL for v NULL or on allocation failure. */
kg_json_template *kg_json_template_new(const kg_json *v);
void kg_json_template_free(kg_json_template *t);
/* A fresh copy of the template's tree allocated in a. */
kg_json *kg_json_template_instance(kg_arena *a, const kg_json_template *t);

#endif
