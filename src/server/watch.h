/* The watch pump: services every open watch stream with a small thread pool. */
#ifndef KG_SERVER_WATCH_H
#define KG_SERVER_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/resources.h"
#include "base/buf.h"
#include "meta/status.h"

typedef struct kg_watch_pump kg_watch_pump;

kg_watch_pump *kg_watch_pump_start(size_t threads, int64_t bookmark_ms);
/* Ends every watch stream and joins the threads. */
void kg_watch_pump_stop(kg_watch_pump *p);
size_t kg_watch_pump_active(kg_watch_pump *p);

/* One watch frame (`{"type":..,"object":..}\n`) for stored bytes with revision rev; as a Table row when table. */
void kg_watch_encode_event(kg_buf *b, kg_arena *a, const kg_resource *r, bool table, const char *type,
                           const char *bytes, size_t len, int64_t rev);
void kg_watch_encode_error(kg_buf *b, const kg_status *st);

#endif
