/* The storage encoding of objects, shared by every store and every door.
 *
 * An object is stored as compact JSON with apiVersion, kind and metadata first and without
 * metadata.resourceVersion: the store's mod revision is the resourceVersion, spliced in when the object is served
 * (kg_obj_splice_rv, no parse) or decoded (kg_obj_decode). */
#ifndef KG_REGISTRY_CODEC_H
#define KG_REGISTRY_CODEC_H

#include <stdbool.h>
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
/* The same with the top-level apiVersion rewritten to api_version (NULL: as stored) — conversion None of custom
 * resources (api/dynamic.h kg_dynamic_read_as). No parse when apiVersion leads the bytes, as kg_obj_encode puts it. */
void kg_obj_splice_rv_as(kg_arena *a, kg_buf *out, const char *bytes, size_t len, int64_t rev, const char *api_version);
/* The stored bytes with their apiVersion rewritten (bytes itself when it already is api_version, or NULL). */
const char *kg_obj_with_api_version(kg_arena *a, const char *bytes, size_t len, const char *api_version,
                                    size_t *out_len);
/* Whether the stored bytes' apiVersion is api_version (NULL: always true). */
bool kg_obj_api_version_is(const char *bytes, size_t len, const char *api_version);
/* Set obj's apiVersion to api_version when both are set (a decoded object served or written in another version). */
void kg_obj_set_api_version(kg_arena *a, kg_json *obj, const char *api_version);

/* metadata helpers: the current time as RFC 3339 (creationTimestamp, deletionTimestamp) and a fresh v4 UID */
char *kg_obj_now_rfc3339(kg_arena *a);
char *kg_obj_new_uid(kg_arena *a);

#endif
