/* --admission-control-config-file: AdmissionConfiguration (apiserver.config.k8s.io/v1 and
 * apiserver.k8s.io/v1alpha1), YAML or JSON, strict fields. Each plugins[] entry gives a plugin's configuration
 * either embedded (`configuration`, wins) or in a file (`path`, relative to the config file's directory).
 * Legacy: a file without apiVersion/kind whose top level has `imagePolicy` or `podNodeSelectorPluginConfig` is the
 * configuration of ImagePolicyWebhook and PodNodeSelector. Errors name the file and the field. */
#ifndef KG_ADMISSION_CONFIG_H
#define KG_ADMISSION_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "json/json.h"

typedef struct kg_admission_config_entry {
    const char *name;
    const char *path;             /* resolved path ("" when none) */
    const kg_json *configuration; /* embedded object, or NULL */
    const kg_json *loaded;        /* the `path` file once kg_admission_config_for parsed it */
} kg_admission_config_entry;

typedef struct kg_admission_config {
    kg_arena arena; /* owns everything below and every loaded plugin configuration */
    const char *file;
    kg_admission_config_entry *entries;
    size_t nentries;
    const kg_json *legacy; /* whole legacy file, or NULL */
} kg_admission_config;

/* Initialise an empty configuration (what an empty flag means). */
void kg_admission_config_init(kg_admission_config *c);
void kg_admission_config_free(kg_admission_config *c);
/* Read and decode the file. Missing file → `unable to read admission control configuration from "<path>" [<err>]`;
 * decode errors → `"<file>": <field>: <problem>` (e.g. `strict decoding error: unknown field "plugins[0].foo"`). */
bool kg_admission_config_load(kg_admission_config *c, const char *file, kg_error *err);
/* Decode text as if read from file (file is used for error messages and relative paths). */
bool kg_admission_config_parse(kg_admission_config *c, const char *file, const char *text, size_t len, kg_error *err);
/* The configuration for plugin name: the embedded object, else the parsed `path` file (YAML or JSON), else the
 * legacy file for ImagePolicyWebhook/PodNodeSelector, else NULL with err->code KG_OK. Failure (unreadable or
 * unparsable path file) → NULL with err set naming the file. The result lives as long as c. */
const kg_json *kg_admission_config_for(kg_admission_config *c, const char *name, kg_error *err);

#endif
