#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool kg_err_set(kg_error *err, kg_errcode code, const char *fmt, ...)
{
    if (!err)
        return false;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return false;
}

bool kg_err_prefix(kg_error *err, const char *fmt, ...)
{
    if (!err)
        return false;
    char prefix[KG_ERR_MSG_MAX], old[KG_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
    return false;
}

void kg_err_clear(kg_error *err)
{
    if (err) {
        err->code = KG_OK;
        err->msg[0] = 0;
    }
}

const char *kg_errcode_name(kg_errcode code)
{
    static const char *names[] = {"OK",       "Invalid", "NotFound", "AlreadyExists", "Conflict",   "Gone",
                                  "TooLarge", "Timeout", "IO",       "Forbidden",     "Unsupported", "Internal"};
    if ((unsigned)code < sizeof names / sizeof names[0])
        return names[code];
    return "Unknown";
}
