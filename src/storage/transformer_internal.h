/* The parsed EncryptionConfiguration shared by transformer.c (the crypto) and transformer_config.c (the parser). */
#ifndef KG_STORAGE_TRANSFORMER_INTERNAL_H
#define KG_STORAGE_TRANSFORMER_INTERNAL_H

#include <stdlib.h>

#include "storage/transformer.h"

typedef enum kg_xf_type { KG_XF_IDENTITY = 1, KG_XF_AESCBC, KG_XF_AESGCM, KG_XF_SECRETBOX } kg_xf_type;

/* One entry of resources[].resources: "secrets", "deployments.apps", "*.apps", "*." (core), "*.*". */
typedef struct kg_xf_pattern {
    const char *group, *resource;
    bool any_group, any_resource;
} kg_xf_pattern;

/* One provider key (identity has none), flattened in the order the providers and their keys are listed: the
 * first encrypts, every one may decrypt. */
typedef struct kg_xf_key {
    kg_xf_type type;
    const char *prefix; /* "k8s:enc:aescbc:v1:<name>:" (aesgcm, secretbox alike); "" for identity */
    size_t plen;
    unsigned char secret[32];
    size_t secret_len;
} kg_xf_key;

typedef struct kg_xf_rule {
    kg_xf_pattern *patterns;
    size_t npatterns;
    kg_xf_key *keys;
    size_t nkeys;
} kg_xf_rule;

struct kg_transformer {
    kg_arena arena;
    kg_xf_rule *rules;
    size_t nrules;
};

#endif
