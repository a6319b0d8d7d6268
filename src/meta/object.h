/* ObjectMeta helpers over kg_json objects, plus apiVersion/kind <-> GVK (see gvk.h for the types).
 * Getters return NULL (or the given default) when a field is absent or has the wrong type; setters create
 * "metadata" when missing. Strings passed to setters are copied into the arena. */
#ifndef KG_META_OBJECT_H
#define KG_META_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"
#include "meta/gvk.h"

/* metadata object (NULL if absent); kg_meta_ensure creates it. */
kg_json *kg_meta_get(const kg_json *obj);
kg_json *kg_meta_ensure(kg_arena *a, kg_json *obj);

/* String fields of metadata. */
const char *kg_meta_name(const kg_json *obj);
const char *kg_meta_namespace(const kg_json *obj);
const char *kg_meta_generate_name(const kg_json *obj);
const char *kg_meta_uid(const kg_json *obj);
const char *kg_meta_resource_version(const kg_json *obj);
const char *kg_meta_creation_timestamp(const kg_json *obj);
const char *kg_meta_deletion_timestamp(const kg_json *obj);
/* Generic: metadata.<key> as a string. */
const char *kg_meta_get_str(const kg_json *obj, const char *key);
/* Set metadata.<key> to a string (value NULL removes the key). */
void kg_meta_set_str(kg_arena *a, kg_json *obj, const char *key, const char *value);
static inline void kg_meta_set_name(kg_arena *a, kg_json *o, const char *v)
{
    kg_meta_set_str(a, o, "name", v);
}
static inline void kg_meta_set_namespace(kg_arena *a, kg_json *o, const char *v)
{
    kg_meta_set_str(a, o, "namespace", v);
}
static inline void kg_meta_set_generate_name(kg_arena *a, kg_json *o, const char *v)
{
    kg_meta_set_str(a, o, "generateName", v);
}
static inline void kg_meta_set_uid(kg_arena *a, kg_json *o, const char *v)
{
    kg_meta_set_str(a, o, "uid", v);
}
static inline void kg_meta_set_resource_version(kg_arena *a, kg_json *o, const char *v)
{
    kg_meta_set_str(a, o, "resourceVersion", v);
}

/* metadata.generation (0 when absent) and metadata.deletionGracePeriodSeconds (-1 when absent). */
int64_t kg_meta_generation(const kg_json *obj);
void kg_meta_set_generation(kg_arena *a, kg_json *obj, int64_t gen);
int64_t kg_meta_deletion_grace_period(const kg_json *obj);
void kg_meta_set_deletion_grace_period(kg_arena *a, kg_json *obj, int64_t seconds);

/* Timestamps: metav1.Time text is RFC 3339 in UTC at second precision, "2006-01-02T15:04:05Z". */
#define KG_TIME_BUF 32
/* Format t (seconds since the epoch) into buf (>= KG_TIME_BUF bytes); returns buf. */
char *kg_time_format(time_t t, char *buf);
/* metav1.MicroTime of now (RFC 3339 with microseconds, UTC: "2026-11-27T23:40:01.123456Z"), in a. */
char *kg_micro_time_now(kg_arena *a);
/* Parse RFC 3339 ("Z" or a numeric offset, optional fractional seconds, truncated) into seconds since the epoch. */
bool kg_time_parse(const char *s, time_t *out);
void kg_meta_set_creation_timestamp(kg_arena *a, kg_json *obj, time_t t);
void kg_meta_set_deletion_timestamp(kg_arena *a, kg_json *obj, time_t t);

/* Random UUID v4 in canonical lowercase form (36 chars + NUL). */
void kg_uuid_v4(char out[37]);
/* Set metadata.uid to a fresh UUID; returns it. */
const char *kg_meta_new_uid(kg_arena *a, kg_json *obj);

/* labels / annotations */
kg_json *kg_meta_labels(const kg_json *obj);      /* object or NULL */
kg_json *kg_meta_annotations(const kg_json *obj); /* object or NULL */
const char *kg_meta_label(const kg_json *obj, const char *key);
const char *kg_meta_annotation(const kg_json *obj, const char *key);
void kg_meta_set_label(kg_arena *a, kg_json *obj, const char *key, const char *value);      /* NULL removes */
void kg_meta_set_annotation(kg_arena *a, kg_json *obj, const char *key, const char *value); /* NULL removes */

/* finalizers */
kg_json *kg_meta_finalizers(const kg_json *obj); /* array or NULL */
bool kg_meta_has_finalizer(const kg_json *obj, const char *name);
/* Append if missing; returns true if added. */
bool kg_meta_add_finalizer(kg_arena *a, kg_json *obj, const char *name);
/* Remove every occurrence; returns true if one was removed. */
bool kg_meta_remove_finalizer(kg_json *obj, const char *name);

/* ownerReferences */
kg_json *kg_meta_owner_references(const kg_json *obj); /* array or NULL */
/* The ownerReference with controller: true (metav1.GetControllerOf), or NULL. */
const kg_json *kg_meta_controller_ref(const kg_json *obj);

/* apiVersion/kind */
/* GVK from apiVersion + kind (schema.FromAPIVersionAndKind: an unparsable apiVersion gives only the kind). */
kg_gvk kg_object_gvk(kg_arena *a, const kg_json *obj);
void kg_object_set_gvk(kg_arena *a, kg_json *obj, kg_gvk gvk);

/* "<namespace>/<name>" or "<name>" (cache.MetaNamespaceKeyFunc). */
char *kg_meta_namespace_key(kg_arena *a, const kg_json *obj);

#endif
