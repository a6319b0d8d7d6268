/* A live cluster's objects in the in-memory cluster (check/cluster.h), for the doors' --kubeconfig:
 *   - `kgate webhook --kubeconfig`: informers (client/watch.h) keep namespaces and policies in step with the cluster;
 *   - `kgate check --kubeconfig`: one read-only list of each as context.
 *
 * What is read is what the enabled plugins read (kg_check_mirror_resources): namespaces always (PodSecurity's
 * labels, namespaceSelectors), ValidatingAdmissionPolicies and their bindings with ValidatingAdmissionPolicy,
 * LimitRanges with LimitRanger, ResourceQuotas with ResourceQuota. Only the fields the plugins read are kept: a
 * namespace is its name, uid and labels (a few hundred bytes however large it is in the cluster); other objects lose
 * metadata.managedFields and the last-applied annotation. The store gives mirrored objects its own resourceVersion
 * (the cluster's is the informer's business).
 *
 * Mirror writes bypass admission and the controllers (the live cluster ran its own) and notify the cluster's
 * subscribers, so a changed policy is recompiled at once. */
#ifndef KG_CHECK_MIRROR_H
#define KG_CHECK_MIRROR_H

#include <stdbool.h>
#include <stddef.h>

#include "admission/options.h"
#include "check/cluster.h"
#include "client/client.h"

/* The resources (plurals, static strings) the plugins enabled by opts read from a cluster; returns the count
 * (at most cap). False with err for bad plugin flags. */
bool kg_check_mirror_resources(const kg_admission_options *opts, const char **out, size_t cap, size_t *n,
                               kg_error *err);
/* The collection path of a resource: "/api/v1/namespaces", "/apis/admissionregistration.k8s.io/v1/...". */
const char *kg_check_mirror_path(kg_arena *a, const char *resource);

/* Store obj (an object of resource as the cluster has it, trimmed as above), replacing a stored one of that name. */
bool kg_check_mirror_put(kg_check_cluster *c, const char *resource, const kg_json *obj, kg_error *err);
/* Remove the stored object of obj's namespace and name (absent: nothing to do). */
void kg_check_mirror_delete(kg_check_cluster *c, const char *resource, const kg_json *obj);
/* A full list: put every item, remove the stored objects of resource that are not among them — except the pinned
 * ones (sorted "namespace/name" keys: objects that were there before the mirror started, e.g. --policy-dir's). */
bool kg_check_mirror_replace(kg_check_cluster *c, const char *resource, const kg_json *items, const char *const *pinned,
                             size_t npinned, kg_error *err);
/* The sorted "namespace/name" keys of the stored objects of resource (in a), for pinning. */
const char **kg_check_mirror_keys(kg_check_cluster *c, kg_arena *a, const char *resource, size_t *n);

/* `kgate check --kubeconfig`: list each resource once (read-only) and load it as context. A resource the server
 * does not serve (404) is skipped. Errors name the kubeconfig and the request. */
bool kg_check_mirror_list_once(kg_check_cluster *c, kg_client *client, const kg_admission_options *opts, kg_error *err);

#endif
