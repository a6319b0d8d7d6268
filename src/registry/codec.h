/* The storage encoding of objects, shared by every store and every door.
 *
 * An object is stored as compact JSON with apiVersion, kind and metadata first and without
 * metadata.resourceVersion: the store's mod revision is the resourceVersion, spliced in when the object is served
 * (kg_obj_splice_rv, no parse) or decoded (kg_obj_decode). */
#ifndef KG_REGISTRY_CODEC_H
#define KG_REGISTRY_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "json/json.h"

/* Serialize obj for storage (reorders obj's top-level members and drops metadata.resourceVersion in place). */
const char *kg_obj_encode(kg_arena *a, kg_json *obj, size_t *len);
/* Decode stored bytes into a DOM with metadata.resourceVersion set to rev. NULL on corrupt data. */
kg_json *kg_obj_decode(kg_arena *a, const char *bytes, size_t len, int64_t rev, kg_error *err);
/* Append stored bytes to out with metadata.resourceVersion = rev spliced in (no parse). */
void kg_obj_splice_rv(kg_buf *out, const char *bytes, size_t len, int64_t rev);

/* metadata helpers: the current time as RFC 3339 (creationTimestamp, deletionTimestamp) and a fresh v4 UID */
char *kg_obj_now_rfc3339(kg_arena *a);
char *kg_obj_new_uid(kg_arena *a);

#endif
