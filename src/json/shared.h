/* Shared immutable JSON documents: one decoded object held by a cache and read by many request threads at once
 * without copying. A reader pins the document to its request arena (a reference released when that arena is reset
 * or freed); the owner replaces or drops its own reference whenever the object changes; the last reference frees
 * the document. Nobody may modify a shared document (clone it to edit).
 *
 * Memo slots hold data derived from the document (parsed quantities, compiled selectors...), built once per
 * document by the first reader that needs it and freed with the document: derived data is therefore cached per
 * object version, for free, and never stale. Slot numbers are per resource (see kg_admission_memo_* in
 * admission/services.h). */
#ifndef KG_JSON_SHARED_H
#define KG_JSON_SHARED_H

#include "base/arena.h"
#include "json/json.h"

#define KG_JSON_SHARED_MEMO_SLOTS 4

typedef struct kg_json_shared kg_json_shared;

/* A document holding a deep copy of v (one reference, owned by the caller). */
kg_json_shared *kg_json_shared_new(const kg_json *v);
/* A document taking over arena *a (moved: *a is left empty and must be re-initialised before reuse) with root v
 * allocated in it. */
kg_json_shared *kg_json_shared_adopt(kg_arena *a, const kg_json *v);
const kg_json *kg_json_shared_root(const kg_json_shared *s);
kg_json_shared *kg_json_shared_ref(kg_json_shared *s);
void kg_json_shared_unref(kg_json_shared *s);
/* Take a reference released when arena a is reset or freed; returns s. */
kg_json_shared *kg_json_shared_pin(kg_json_shared *s, kg_arena *a);
/* A private document holding a copy of v, owned by arena a (freed when a is reset or freed): how readers without a
 * shared cache hand out documents. */
kg_json_shared *kg_json_shared_new_pinned(kg_arena *a, const kg_json *v);

/* Derived data of slot (0..KG_JSON_SHARED_MEMO_SLOTS-1): built on first use by build(arena, root, ud) into a private
 * arena that lives as long as the document, then returned to every later caller. Concurrent first uses may both
 * build; one result wins, the other is freed. build may return NULL (memoised as "nothing"). */
typedef void *(*kg_json_memo_build)(kg_arena *a, const kg_json *root, void *ud);
const void *kg_json_shared_memo(kg_json_shared *s, unsigned slot, kg_json_memo_build build, void *ud);

#endif
