/* Protobuf schema tables: k8s.io/apimachinery meta/v1 (field numbers of apimachinery's generated.proto). */
#include "api/protobuf_internal.h"

#define F KG_PB_F
#define K KG_PB_K
#define R KG_PB_R
#define M KG_PB_M
#define RM KG_PB_RM
#define MAPF KG_PB_MAPF

KG_PB_MESSAGE(kg_api_pb_OwnerReference, K(5, KG_PB_STRING, "apiVersion"), K(1, KG_PB_STRING, "kind"),
              K(3, KG_PB_STRING, "name"), K(4, KG_PB_STRING, "uid"), K(6, KG_PB_BOOL, "controller"),
              K(7, KG_PB_BOOL, "blockOwnerDeletion"));

/* managedFields (17) is not decoded: typed clients never send it on create/update. */
KG_PB_MESSAGE(kg_api_pb_ObjectMeta, F(1, KG_PB_STRING, "name"), F(2, KG_PB_STRING, "generateName"),
              F(3, KG_PB_STRING, "namespace"), F(4, KG_PB_STRING, "selfLink"), F(5, KG_PB_STRING, "uid"),
              F(6, KG_PB_STRING, "resourceVersion"), F(7, KG_PB_INT64, "generation"),
              F(8, KG_PB_TIME, "creationTimestamp"), F(9, KG_PB_TIME, "deletionTimestamp"),
              K(10, KG_PB_INT64, "deletionGracePeriodSeconds"), MAPF(11, KG_PB_STRING, "labels"),
              MAPF(12, KG_PB_STRING, "annotations"), RM(13, "ownerReferences", kg_api_pb_OwnerReference),
              R(14, KG_PB_STRING, "finalizers"));

KG_PB_MESSAGE(kg_api_pb_ListMeta, F(1, KG_PB_STRING, "selfLink"), F(2, KG_PB_STRING, "resourceVersion"),
              F(3, KG_PB_STRING, "continue"), K(4, KG_PB_INT64, "remainingItemCount"));

KG_PB_MESSAGE(kg_api_pb_LabelSelectorRequirement, K(1, KG_PB_STRING, "key"), K(2, KG_PB_STRING, "operator"),
              R(3, KG_PB_STRING, "values"));

KG_PB_MESSAGE(kg_api_pb_LabelSelector, MAPF(1, KG_PB_STRING, "matchLabels"),
              RM(2, "matchExpressions", kg_api_pb_LabelSelectorRequirement));

KG_PB_MESSAGE(kg_api_pb_Preconditions, K(1, KG_PB_STRING, "uid"), K(2, KG_PB_STRING, "resourceVersion"));

KG_PB_MESSAGE(kg_api_pb_DeleteOptions, K(1, KG_PB_INT64, "gracePeriodSeconds"),
              M(2, "preconditions", kg_api_pb_Preconditions), K(3, KG_PB_BOOL, "orphanDependents"),
              K(4, KG_PB_STRING, "propagationPolicy"), R(5, KG_PB_STRING, "dryRun"),
              K(6, KG_PB_BOOL, "ignoreStoreReadErrorWithClusterBreakingPotential"));

KG_PB_MESSAGE(kg_api_pb_Condition, K(1, KG_PB_STRING, "type"), K(2, KG_PB_STRING, "status"),
              F(3, KG_PB_INT64, "observedGeneration"), F(4, KG_PB_TIME, "lastTransitionTime"),
              K(5, KG_PB_STRING, "reason"), K(6, KG_PB_STRING, "message"));
