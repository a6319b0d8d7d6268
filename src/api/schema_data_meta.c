/* apimachinery types: ObjectMeta and friends, Time, Quantity, IntOrString, LabelSelector, Condition. */
#include "api/schema_data.h"

const char *const kg_schema_data_meta[] = {
    "=io.k8s.apimachinery.pkg.util.intstr",
    "@IntOrString:integer|string:int-or-string IntOrString is a type that can hold an int32 or a string. When used in "
    "JSON "
    "or YAML marshalling and unmarshalling, it produces or consumes the inner type. This allows you to have, for "
    "example, a JSON field that can accept a name or number.",
    "=io.k8s.apimachinery.pkg.api.resource",
    "@Quantity:string|number Quantity is a fixed-point representation of a number. It provides convenient "
    "marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors. The serialization "
    "format is: <quantity> ::= <signedNumber><suffix> where <suffix> is a binary SI suffix (Ki | Mi | Gi | Ti | Pi "
    "| Ei), a decimal SI suffix (n | u | m | '' | k | M | G | T | P | E) or a decimal exponent (e<signedNumber>). "
    "Examples: 100m (0.1), 1.5Gi, 512Mi, 2.",
    "=io.k8s.apimachinery.pkg.runtime",
    "@RawExtension:object RawExtension holds an arbitrary embedded object (any serialized API object with "
    "apiVersion and kind).",
    "=io.k8s.apimachinery.pkg.apis.meta.v1",
    "@_TypeMeta",
    ".apiVersion s |APIVersion defines the versioned schema of this representation of an object. Servers should "
    "convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
    ".kind s |Kind is a string value representing the REST resource this object represents. Servers may infer this "
    "from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
    "@Time:string:date-time Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON. "
    "It is serialized in RFC 3339 form, e.g. 2006-01-02T15:04:05Z.",
    "@MicroTime:string:date-time MicroTime is version of Time with microsecond level precision, serialized in RFC "
    "3339 form with six fractional digits.",
    "@FieldsV1:object FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format. Each key is "
    "either a '.' representing the field itself, or a string 'f:<name>', 'v:<value>', 'i:<index>' or 'k:<keys>' "
    "naming a sub-field or item.",
    "@ObjectMeta ObjectMeta is metadata that all persisted resources must have, which includes all objects users "
    "must create.",
    ".annotations {}s |Annotations is an unstructured key value map stored with a resource that may be set by "
    "external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when "
    "modifying objects. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations",
    ".creationTimestamp t |CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not "
    "set this value. It is represented in RFC3339 form and is in UTC. Populated by the system. Read-only.",
    ".deletionGracePeriodSeconds i64 |Number of seconds allowed for this object to gracefully terminate before it "
    "will be removed from the system. Only set when deletionTimestamp is also set. May only be shortened. "
    "Read-only.",
    ".deletionTimestamp t |DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted. This "
    "field is set by the server when a graceful deletion is requested by the user, and is not directly settable by "
    "a client. Populated by the system when a graceful deletion is requested. Read-only.",
    ".finalizers []s lt=set ps=merge |Must be empty before the object is deleted from the registry. Each entry is "
    "an identifier for the responsible component that will remove the entry from the list. If the deletionTimestamp "
    "of the object is non-nil, entries in this list can only be removed. Finalizers may be processed and removed in "
    "any order.",
    ".generateName s |GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the "
    "Name field has not been provided. If this field is used, the name returned to the client will be different "
    "than the name passed. The value of this field will be combined with a unique suffix. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#idempotency",
    ".generation i64 |A sequence number representing a specific generation of the desired state. Populated by the "
    "system. Read-only.",
    ".labels {}s |Map of string keys and values that can be used to organize and categorize (scope and select) "
    "objects. May match selectors of replication controllers and services. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels",
    ".managedFields []ManagedFieldsEntry lt=atomic |ManagedFields maps workflow-id and version to the set of fields "
    "that are managed by that workflow. This is mostly for internal housekeeping, and users typically shouldn't "
    "need to set or understand this field.",
    ".name s |Name must be unique within a namespace. Is required when creating resources, although some resources "
    "may allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    ".namespace s |Namespace defines the space within which each name must be unique. An empty namespace is "
    "equivalent to the 'default' namespace, but 'default' is the canonical representation. Not all objects are "
    "required to be scoped to a namespace - the value of this field for those objects will be empty. Must be a "
    "DNS_LABEL. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces",
    ".ownerReferences []OwnerReference lt=map lk=uid mk=uid ps=merge |List of objects depended by this object. If "
    "ALL objects in the list have been deleted, this object will be garbage collected. If this object is managed by "
    "a controller, then an entry in this list will point to this controller, with the controller field set to "
    "true. There cannot be more than one managing controller.",
    ".resourceVersion s |An opaque value that represents the internal version of this object that can be used by "
    "clients to determine when objects have changed. May be used for optimistic concurrency, change detection, and "
    "the watch operation on a resource or set of resources. Clients must treat these values as opaque. Populated by "
    "the system. Read-only. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#concurrency-control-and-consistency",
    ".selfLink s |Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
    ".uid s |UID is the unique in time and space value for this object. It is typically generated by the server on "
    "successful creation of a resource and is not allowed to change on PUT operations. Populated by the system. "
    "Read-only. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids",
    "@OwnerReference OwnerReference contains enough information to let you identify an owning object. An owning "
    "object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.",
    ".apiVersion s ! |API version of the referent.",
    ".blockOwnerDeletion b |If true, AND if the owner has the 'foregroundDeletion' finalizer, then the owner cannot "
    "be deleted from the key-value store until this reference is removed. Defaults to false.",
    ".controller b |If true, this reference points to the managing controller.",
    ".kind s ! |Kind of the referent. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
    ".name s ! |Name of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
    ".uid s ! |UID of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids",
    "@ManagedFieldsEntry ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that "
    "the fieldset applies to.",
    ".apiVersion s |APIVersion defines the version of this resource that this field set applies to.",
    ".fieldsType s |FieldsType is the discriminator for the different fields format and version. There is "
    "currently only one possible value: 'FieldsV1'",
    ".fieldsV1 FieldsV1 |FieldsV1 holds the first JSON version format as described in the 'FieldsV1' type.",
    ".manager s |Manager is an identifier of the workflow managing these fields.",
    ".operation s |Operation is the type of operation which lead to this ManagedFieldsEntry being created. The only "
    "valid values for this field are 'Apply' and 'Update'.",
    ".subresource s |Subresource is the name of the subresource used to update that object, or empty string if the "
    "object was updated through the main resource.",
    ".time t |Time is the timestamp of when the ManagedFields entry was added.",
    "@ListMeta ListMeta describes metadata that synthetic resources must have, including lists.",
    ".continue s |continue may be set if the user set a limit on the number of items returned, and indicates that "
    "the server has more data available.",
    ".remainingItemCount i64 |remainingItemCount is the number of subsequent items in the list which are not "
    "included in this list response.",
    ".resourceVersion s |String that identifies the server's internal version of this object that can be used by "
    "clients to determine when objects have changed. Read-only.",
    ".selfLink s |Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.",
    "@LabelSelector A label selector is a label query over a set of resources. The result of matchLabels and "
    "matchExpressions are ANDed. An empty label selector matches all objects. A null label selector matches no "
    "objects.",
    ".matchExpressions []LabelSelectorRequirement lt=atomic |matchExpressions is a list of label selector "
    "requirements. The requirements are ANDed.",
    ".matchLabels {}s |matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is "
    "equivalent to an element of matchExpressions, whose key field is 'key', the operator is 'In', and the values "
    "array contains only 'value'. The requirements are ANDed.",
    "@LabelSelectorRequirement A label selector requirement is a selector that contains values, a key, and an "
    "operator that relates the key and values.",
    ".key s ! |key is the label key that the selector applies to.",
    ".operator s ! |operator represents a key's relationship to a set of values. Valid operators are In, NotIn, "
    "Exists and DoesNotExist.",
    ".values []s lt=atomic |values is an array of string values. If the operator is In or NotIn, the values array "
    "must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.",
    "@Condition Condition contains details for one aspect of the current state of this API Resource.",
    ".lastTransitionTime t ! |lastTransitionTime is the last time the condition transitioned from one status to "
    "another.",
    ".message s ! |message is a human readable message indicating details about the transition. This may be an "
    "empty string.",
    ".observedGeneration i64 |observedGeneration represents the .metadata.generation that the condition was set "
    "based upon.",
    ".reason s ! |reason contains a programmatic identifier indicating the reason for the condition's last "
    "transition. The value should be a CamelCase string.",
    ".status s ! |status of the condition, one of True, False, Unknown.",
    ".type s ! |type of condition in CamelCase or in foo.example.com/CamelCase.",
    NULL,
};
