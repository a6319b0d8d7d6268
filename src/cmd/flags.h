/* Command-line helpers shared by the doors (serve, check): pflag-style `--name=value` / `--name value` parsing and
 * the engine flags every door takes with kube-apiserver's names and meaning:
 *   --enable-admission-plugins, --disable-admission-plugins, --admission-control (deprecated),
 *   --admission-control-config-file, --feature-gates.
 * One parser, so a flag cannot mean one thing to `kgate serve` and another to `kgate check`. */
#ifndef KG_CMD_FLAGS_H
#define KG_CMD_FLAGS_H

#include <stdbool.h>
#include <stdio.h>

#include "admission/options.h"

/* argv[*i] is `name=value` or `name` followed by the value (then *i advances). Returns the value, or NULL when the
 * flag is absent (*matched false) or its value is missing (*matched true). */
const char *kg_flag_value(int argc, char **argv, int *i, const char *name, bool *matched);
/* Go's strconv.ParseBool; v NULL (a bare `--flag`) is true. */
bool kg_flag_parse_bool(const char *v, bool *out);

typedef enum kg_flag_result {
    KG_FLAG_NOMATCH = 0, /* not an engine flag */
    KG_FLAG_MATCHED = 1, /* consumed (and the value stored) */
    KG_FLAG_ERROR = -1,  /* an engine flag without its value: the error was printed to stderr */
} kg_flag_result;

/* The engine flags: admission options into *adm, --feature-gates into *feature_gates. */
kg_flag_result kg_flags_engine(int argc, char **argv, int *i, kg_admission_options *adm, const char **feature_gates);

/* Help text: the plugin lists (execution order, default-on, not implemented), as under "Admission flags". */
void kg_flags_admission_plugins_usage(FILE *f);
/* Help text of the engine flags (admission flags, plugin lists, feature gates), for doors other than serve. */
void kg_flags_engine_usage(FILE *f);

#endif
