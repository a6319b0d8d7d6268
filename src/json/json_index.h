/* A hash index over an object's members, for code that looks up many keys of one big object (kg_json objects are
 * searched linearly): building it is O(n), each lookup O(1). Slots hold member index + 1 (0 = empty), so members
 * may be tombstoned (val set to NULL) while the index is in use, as long as none are removed or reordered. */
#ifndef KG_JSON_INDEX_H
#define KG_JSON_INDEX_H

#include <stdint.h>

#include "base/arena.h"
#include "json/json.h"

typedef struct kg_json_index {
    uint32_t *slot;
    uint32_t mask, n;
} kg_json_index;

/* Index obj's members, with room for `extra` more inserts (allocated in a). */
void kg_json_index_build(kg_arena *a, kg_json_index *x, const kg_json *obj, uint32_t extra);
/* Add member idx of obj (after appending it to obj). */
void kg_json_index_insert(kg_json_index *x, const kg_json *obj, uint32_t idx);
/* Member index of key k, or -1. */
int64_t kg_json_index_find(const kg_json_index *x, const kg_json *obj, const char *k, size_t n);

#endif
