/* Table columns and cells of custom resources (table_dynamic.c); kg_api_table uses them for r->ext resources. */
#ifndef KG_API_TABLE_DYNAMIC_H
#define KG_API_TABLE_DYNAMIC_H

#include <stdint.h>

#include "api/resources.h"
#include "base/arena.h"
#include "json/json.h"

kg_json *kg_dynamic_table_columns(kg_arena *a, const kg_resource *r);
void kg_dynamic_table_cells(kg_arena *a, const kg_resource *r, const kg_json *obj, kg_json *cells, int64_t now);

#endif
