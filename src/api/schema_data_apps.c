#include "api/schema_data.h"

const char *const kg_schema_data_apps[] = {
    NULL,
};
