/* The compact type descriptions behind schema.c: NULL-terminated arrays of lines (format in docs/openapi.md). */
#ifndef KG_API_SCHEMA_DATA_H
#define KG_API_SCHEMA_DATA_H

#include <stddef.h>

extern const char *const kg_schema_data_meta[];
extern const char *const kg_schema_data_core[];
extern const char *const kg_schema_data_core_pod[];
extern const char *const kg_schema_data_core_volume[];
extern const char *const kg_schema_data_core_misc[];
extern const char *const kg_schema_data_apps[];
extern const char *const kg_schema_data_batch[];
extern const char *const kg_schema_data_groups[];
extern const char *const kg_schema_data_admission[];
extern const char *const kg_schema_data_apiext[];
extern const char *const kg_schema_data_policy[];
extern const char *const kg_schema_data_more[];
extern const char *const kg_schema_data_autoscaling[];
extern const char *const kg_schema_data_flowcontrol[];
extern const char *const kg_schema_data_reviews[];

#endif
