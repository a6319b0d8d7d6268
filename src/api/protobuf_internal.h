/* Private to src/api/protobuf*.c: the schema tables that map protobuf field numbers to JSON names and types. */
#ifndef KG_API_PROTOBUF_INTERNAL_H
#define KG_API_PROTOBUF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

typedef enum kg_pb_kind {
    KG_PB_STRING = 1, /* string */
    KG_PB_BYTES,      /* bytes -> base64 string (Go's []byte JSON form) */
    KG_PB_INT32,      /* varint int32 */
    KG_PB_INT64,      /* varint int64 */
    KG_PB_BOOL,       /* varint bool */
    KG_PB_DOUBLE,     /* fixed64 double */
    KG_PB_MSG,        /* nested message -> JSON object */
    KG_PB_INLINE,     /* nested message whose fields are inlined into the parent (Go embedded struct) */
    KG_PB_TIME,       /* metav1.Time {seconds=1,nanos=2} -> "2006-01-02T15:04:05Z" (empty message -> null) */
    KG_PB_MICROTIME,  /* metav1.MicroTime -> "2006-01-02T15:04:05.000000Z" */
    KG_PB_DURATION,   /* metav1.Duration {duration=1 ns} -> Go duration string */
    KG_PB_INTSTR,     /* intstr.IntOrString {type=1,intVal=2,strVal=3} -> number or string */
    KG_PB_QUANTITY,   /* resource.Quantity {string=1} -> string */
    KG_PB_RAW,        /* runtime.RawExtension {raw=1} -> the embedded JSON value */
    KG_PB_STRINGS,    /* a message {items=1 repeated string} (authentication/certificates ExtraValue) -> array */
} kg_pb_kind;

enum {
    KG_PB_REPEATED = 1u << 0, /* JSON array */
    KG_PB_MAP = 1u << 1,      /* repeated entry message {key=1 string, value=2 of `kind`} -> JSON object */
    KG_PB_KEEP = 1u << 2,     /* emit zero values: a Go pointer field or one without omitempty */
};

typedef struct kg_pb_msg kg_pb_msg;

typedef struct kg_pb_field {
    uint32_t num;
    uint8_t kind;
    uint8_t flags;
    const char *json;
    const kg_pb_msg *msg; /* KG_PB_MSG / KG_PB_INLINE (also map values of kind KG_PB_MSG) */
} kg_pb_field;

struct kg_pb_msg {
    const char *name;
    const kg_pb_field *fields;
    uint32_t nfields;
};

typedef struct kg_pb_type {
    const char *api_version; /* NULL: any version (meta/v1 types registered in every group) */
    const char *kind;
    const kg_pb_msg *msg;
} kg_pb_type;

/* Table builders: F scalar (zero value omitted, Go omitempty value field), K scalar kept when zero, R repeated
 * scalar, M / RM (repeated) message, IN inlined message, MAP map<string, kind>, MAPM map<string, message>. */
#define KG_PB_F(n, k, j)                                                                                               \
    {                                                                                                                  \
        (n), (k), 0, (j), NULL                                                                                         \
    }
#define KG_PB_K(n, k, j)                                                                                               \
    {                                                                                                                  \
        (n), (k), KG_PB_KEEP, (j), NULL                                                                                \
    }
#define KG_PB_R(n, k, j)                                                                                               \
    {                                                                                                                  \
        (n), (k), KG_PB_REPEATED, (j), NULL                                                                            \
    }
#define KG_PB_M(n, j, m)                                                                                               \
    {                                                                                                                  \
        (n), KG_PB_MSG, 0, (j), &(m)                                                                                   \
    }
#define KG_PB_RM(n, j, m)                                                                                              \
    {                                                                                                                  \
        (n), KG_PB_MSG, KG_PB_REPEATED, (j), &(m)                                                                      \
    }
#define KG_PB_IN(n, m)                                                                                                 \
    {                                                                                                                  \
        (n), KG_PB_INLINE, 0, NULL, &(m)                                                                               \
    }
#define KG_PB_MAPF(n, k, j)                                                                                            \
    {                                                                                                                  \
        (n), (k), KG_PB_MAP, (j), NULL                                                                                 \
    }
#define KG_PB_MAPM(n, j, m)                                                                                            \
    {                                                                                                                  \
        (n), KG_PB_MSG, KG_PB_MAP, (j), &(m)                                                                           \
    }

/* A message shared across files (kg_api_pb_<Name>, declared below) or private to one file (pb_<Name>). */
#define KG_PB_MESSAGE(id, ...)                                                                                         \
    static const kg_pb_field id##_fields[] = {__VA_ARGS__};                                                            \
    const kg_pb_msg id = {&#id[10], id##_fields, (uint32_t)(sizeof id##_fields / sizeof id##_fields[0])}
#define KG_PB_LOCAL(id, ...)                                                                                           \
    static const kg_pb_field id##_fields[] = {__VA_ARGS__};                                                            \
    static const kg_pb_msg id = {&#id[3], id##_fields, (uint32_t)(sizeof id##_fields / sizeof id##_fields[0])}

/* metav1.Duration's JSON form: Go's time.Duration.String() of ns nanoseconds ("1h2m3.5s", "1.5ms", "0s"). */
#include "json/json.h"
kg_json *kg_api_pb_duration(kg_arena *a, int64_t ns);

/* The kind index (protobuf_types_index.c). */
extern const kg_pb_type kg_api_pb_types[];
extern const size_t kg_api_pb_ntypes;

/* meta/v1 (protobuf_types_meta.c) */
extern const kg_pb_msg kg_api_pb_ObjectMeta, kg_api_pb_OwnerReference, kg_api_pb_LabelSelector,
    kg_api_pb_LabelSelectorRequirement, kg_api_pb_DeleteOptions, kg_api_pb_Preconditions, kg_api_pb_Condition,
    kg_api_pb_ListMeta;

/* core/v1 (protobuf_types_core*.c) */
extern const kg_pb_msg kg_api_pb_Namespace, kg_api_pb_ConfigMap, kg_api_pb_Secret, kg_api_pb_ServiceAccount,
    kg_api_pb_Pod, kg_api_pb_PodSpec, kg_api_pb_PodTemplateSpec, kg_api_pb_PodTemplate, kg_api_pb_Container,
    kg_api_pb_Volume, kg_api_pb_Service, kg_api_pb_ResourceQuota, kg_api_pb_LimitRange, kg_api_pb_PersistentVolumeClaim,
    kg_api_pb_PersistentVolumeClaimSpec, kg_api_pb_CoreEvent, kg_api_pb_ObjectReference, kg_api_pb_LocalObjectReference,
    kg_api_pb_TypedLocalObjectReference, kg_api_pb_Toleration, kg_api_pb_Affinity, kg_api_pb_NodeSelector,
    kg_api_pb_ResourceRequirements, kg_api_pb_Endpoints, kg_api_pb_ReplicationController, kg_api_pb_Binding,
    kg_api_pb_EventSource, kg_api_pb_EventSeries, kg_api_pb_Node, kg_api_pb_PersistentVolume;

/* apps/v1, batch/v1 (protobuf_types_apps.c) */
extern const kg_pb_msg kg_api_pb_Deployment, kg_api_pb_ReplicaSet, kg_api_pb_StatefulSet, kg_api_pb_DaemonSet,
    kg_api_pb_Job, kg_api_pb_CronJob, kg_api_pb_ControllerRevision;

/* rbac, networking, scheduling, storage, coordination, policy, events (protobuf_types_groups.c) */
extern const kg_pb_msg kg_api_pb_Role, kg_api_pb_ClusterRole, kg_api_pb_RoleBinding, kg_api_pb_ClusterRoleBinding,
    kg_api_pb_Ingress, kg_api_pb_IngressClass, kg_api_pb_NetworkPolicy, kg_api_pb_PriorityClass, kg_api_pb_StorageClass,
    kg_api_pb_Lease, kg_api_pb_PodDisruptionBudget, kg_api_pb_Eviction, kg_api_pb_EventsEvent, kg_api_pb_TokenRequest,
    kg_api_pb_CertificateSigningRequest, kg_api_pb_SelfSubjectAccessReview, kg_api_pb_SubjectAccessReview,
    kg_api_pb_SelfSubjectRulesReview, kg_api_pb_SelfSubjectReview, kg_api_pb_HorizontalPodAutoscalerV1;

/* admissionregistration.k8s.io/v1, node.k8s.io/v1 (protobuf_types_admission.c) */
extern const kg_pb_msg kg_api_pb_MutatingWebhookConfiguration, kg_api_pb_ValidatingWebhookConfiguration,
    kg_api_pb_ValidatingAdmissionPolicy, kg_api_pb_ValidatingAdmissionPolicyBinding, kg_api_pb_RuntimeClass;

#endif
