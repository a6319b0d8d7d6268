/* apiextensions.k8s.io/v1: CustomResourceDefinition (the schema itself, JSONSchemaProps, is a free-form object here:
 * CRD validation checks it, docs/crd.md). */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object's metadata More info: "                \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

const char *const kg_schema_data_apiext[] = {
    "=io.k8s.api.apiextensions.v1",
    "@CustomResourceDefinition CustomResourceDefinition represents a resource that should be exposed on the API "
    "server.  Its name MUST be in the format <.spec.name>.<.spec.group>.",
    TM,
    META,
    ".spec CustomResourceDefinitionSpec ! |spec describes how the user wants the resources to appear",
    ".status CustomResourceDefinitionStatus |status indicates the actual state of the CustomResourceDefinition",
    "@CustomResourceDefinitionSpec CustomResourceDefinitionSpec describes how a user wants their resource to appear",
    ".group s ! |group is the API group of the defined custom resource. The custom resources are served under "
    "`/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form "
    "`<names.plural>.<group>`).",
    ".names CustomResourceDefinitionNames ! |names specify the resource and kind names for the custom resource.",
    ".scope s ! |scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values "
    "are `Cluster` and `Namespaced`.",
    ".versions []CustomResourceDefinitionVersion ! lt=atomic |versions is the list of all API versions of the defined "
    "custom resource. Version names are used to compute the order in which served versions are listed in API "
    "discovery.",
    ".conversion CustomResourceConversion |conversion defines conversion settings for the CRD.",
    ".preserveUnknownFields b |preserveUnknownFields indicates that object fields which are not specified in the "
    "OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields "
    "inside metadata are always preserved. This field is deprecated in favor of setting "
    "`x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`.",
    "@CustomResourceDefinitionNames CustomResourceDefinitionNames indicates the names to serve this "
    "CustomResourceDefinition",
    ".plural s ! |plural is the plural name of the resource to serve. The custom resources are served under "
    "`/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form "
    "`<names.plural>.<group>`). Must be all lowercase.",
    ".singular s |singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased "
    "`kind`.",
    ".shortNames []s lt=atomic |shortNames are short names for the resource, exposed in API discovery documents, "
    "and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.",
    ".kind s ! |kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource "
    "instances will use this value as the `kind` attribute in API calls.",
    ".listKind s |listKind is the serialized kind of the list for this resource. Defaults to \"`kind`List\".",
    ".categories []s lt=atomic |categories is a list of grouped resources this custom resource belongs to (e.g. "
    "'all'). This is published in API discovery documents, and used by clients to support invocations like "
    "`kubectl get all`.",
    "@CustomResourceDefinitionVersion CustomResourceDefinitionVersion describes a version for CRD.",
    ".name s ! |name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this "
    "version at `/apis/<group>/<version>/...` if `served` is true.",
    ".served b ! |served is a flag enabling/disabling this version from being served via REST APIs",
    ".storage b ! |storage indicates this version should be used when persisting custom resources to storage. There "
    "must be exactly one version with storage=true.",
    ".deprecated b |deprecated indicates this version of the custom resource API is deprecated. When set to true, "
    "API requests to this version receive a warning header in the server response. Defaults to false.",
    ".deprecationWarning s |deprecationWarning overrides the default warning returned to API clients. May only be "
    "set when `deprecated` is true.",
    ".schema CustomResourceValidation |schema describes the schema used for validation, pruning, and defaulting of "
    "this version of the custom resource.",
    ".subresources CustomResourceSubresources |subresources specify what subresources this version of the defined "
    "custom resource have.",
    ".additionalPrinterColumns []CustomResourceColumnDefinition lt=atomic |additionalPrinterColumns specifies "
    "additional columns returned in Table output. If no columns are specified, a single column displaying the age of "
    "the custom resource is used.",
    ".selectableFields []SelectableField lt=atomic |selectableFields specifies paths to fields that may be used as "
    "field selectors. A maximum of 8 selectable fields are allowed.",
    "@CustomResourceValidation CustomResourceValidation is a list of validation methods for CustomResources.",
    ".openAPIV3Schema obj |openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.",
    "@CustomResourceSubresources CustomResourceSubresources defines the status and scale subresources for "
    "CustomResources.",
    ".status obj |status indicates the custom resource should serve a `/status` subresource. When enabled: 1. "
    "requests to the custom resource primary endpoint ignore changes to the `status` stanza of the object. 2. "
    "requests to the custom resource `/status` subresource ignore changes to anything other than the `status` stanza "
    "of the object.",
    ".scale CustomResourceSubresourceScale |scale indicates the custom resource should serve a `/scale` subresource "
    "that returns an `autoscaling/v1` Scale object.",
    "@CustomResourceSubresourceScale CustomResourceSubresourceScale defines how to serve the scale subresource for "
    "CustomResources.",
    ".specReplicasPath s ! |specReplicasPath defines the JSON path inside of a custom resource that corresponds to "
    "Scale `spec.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under "
    "`.spec`.",
    ".statusReplicasPath s ! |statusReplicasPath defines the JSON path inside of a custom resource that corresponds "
    "to Scale `status.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under "
    "`.status`.",
    ".labelSelectorPath s |labelSelectorPath defines the JSON path inside of a custom resource that corresponds to "
    "Scale `status.selector`. Only JSON paths without the array notation are allowed. Must be a JSON Path under "
    "`.status` or `.spec`.",
    "@CustomResourceColumnDefinition CustomResourceColumnDefinition specifies a column for server side printing.",
    ".name s ! |name is a human readable name for the column.",
    ".type s ! |type is an OpenAPI type definition for this column. See "
    "https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.",
    ".format s |format is an optional OpenAPI type definition for this column. The 'name' format is applied to the "
    "primary identifier column to assist in clients identifying column is the resource name.",
    ".description s |description is a human readable description of this column.",
    ".priority i32 |priority is an integer defining the relative importance of this column compared to others. Lower "
    "numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a "
    "priority greater than 0.",
    ".jsonPath s ! |jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom "
    "resource to produce the value for this column.",
    "@SelectableField SelectableField specifies the JSON path of a field that may be used with field selectors.",
    ".jsonPath s ! |jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field "
    "selector value. Only JSON paths without the array notation are allowed. Must point to a field of type string, "
    "boolean or integer.",
    "@CustomResourceConversion CustomResourceConversion describes how to convert different versions of a CR.",
    ".strategy s ! |strategy specifies how custom resources are converted between versions. Allowed values are: - "
    "`\"None\"`: The converter only change the apiVersion and would not touch any other field in the custom resource. "
    "- `\"Webhook\"`: API Server will call to an external webhook to do the conversion.",
    ".webhook obj |webhook describes how to call the conversion webhook. Required when `strategy` is set to "
    "`\"Webhook\"`.",
    "@CustomResourceDefinitionStatus CustomResourceDefinitionStatus indicates the state of the "
    "CustomResourceDefinition",
    ".conditions []CustomResourceDefinitionCondition lt=map lk=type |conditions indicate state for particular "
    "aspects of a CustomResourceDefinition",
    ".acceptedNames CustomResourceDefinitionNames |acceptedNames are the names that are actually being used to serve "
    "discovery. They may be different than the names in spec.",
    ".storedVersions []s lt=atomic |storedVersions lists all versions of CustomResources that were ever persisted. "
    "Tracking these versions allows a migration path for stored versions in etcd. The field is mutable so a "
    "migration controller can finish a migration to another version (ensuring no old objects are left in storage), "
    "and then remove the rest of the versions from this list. Versions may not be removed from `spec.versions` while "
    "they exist in this list.",
    "@CustomResourceDefinitionCondition CustomResourceDefinitionCondition contains details for the current condition "
    "of this pod.",
    ".type s ! |type is the type of the condition. Types include Established, NamesAccepted and Terminating.",
    ".status s ! |status is the status of the condition. Can be True, False, Unknown.",
    ".lastTransitionTime t |lastTransitionTime last time the condition transitioned from one status to another.",
    ".reason s |reason is a unique, one-word, CamelCase reason for the condition's last transition.",
    ".message s |message is a human-readable message indicating details about last transition.",
    ".observedGeneration i64 |observedGeneration represents the .metadata.generation that the condition was set based "
    "upon.",
    NULL,
};
