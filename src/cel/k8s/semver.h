/* semver.h - blang/semver v4 Parse/Compare as the Kubernetes semver CEL library uses it, plus the library's
 * normalizeAndParse (v1: semver(s, true)). Error texts are blang's. */
#ifndef KG_CEL_K8S_SEMVER_H
#define KG_CEL_K8S_SEMVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"

typedef struct cel_k8s_semver_pr {
    bool is_num;
    uint64_t num;
    const char *str;
    size_t n;
} cel_k8s_semver_pr;

typedef struct cel_k8s_semver {
    uint64_t major, minor, patch;
    size_t npre;
    const cel_k8s_semver_pr *pre;
    size_t nbuild;
    const char *const *build; /* NUL-terminated in the arena */
} cel_k8s_semver;

bool cel_k8s_semver_parse(kg_arena *a, const char *s, size_t n, cel_k8s_semver *out, const char **err);
/* normalizeAndParse: strip one "v", drop leading zeros per part, fill missing minor/patch with 0. */
bool cel_k8s_semver_parse_normalize(kg_arena *a, const char *s, size_t n, cel_k8s_semver *out, const char **err);
/* Version.Compare: -1, 0, 1 (build metadata ignored). */
int cel_k8s_semver_compare(const cel_k8s_semver *x, const cel_k8s_semver *y);

#endif
