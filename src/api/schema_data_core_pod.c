/* core/v1 Pod, PodSpec, Container and what they use (except volumes and scheduling types). */
#include "api/schema_data.h"

#define META_DESC                                                                                                      \
    "|Standard object's metadata. More info: "                                                                         \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define SPEC_DESC "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"

const char *const kg_schema_data_core_pod[] = {
    "=io.k8s.api.core.v1",
    "@Pod Pod is a collection of containers that can run on a host. This resource is created by clients and "
    "scheduled onto hosts.",
    ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta",
    ".metadata ObjectMeta " META_DESC,
    ".spec PodSpec |Specification of the desired behavior of the pod. More info: " SPEC_DESC,
    ".status PodStatus |Most recently observed status of the pod. This data may not be up to date. Populated by the "
    "system. Read-only. More info: " SPEC_DESC,

    "@PodTemplateSpec PodTemplateSpec describes the data a pod should have when created from a template",
    ".metadata ObjectMeta " META_DESC,
    ".spec PodSpec |Specification of the desired behavior of the pod. More info: " SPEC_DESC,

    "@PodSpec PodSpec is a description of a pod.",
    ".activeDeadlineSeconds i64 |Optional duration in seconds the pod may be active on the node relative to "
    "StartTime before the system will actively try to mark it failed and kill associated containers. Value must be "
    "a positive integer.",
    ".affinity Affinity |If specified, the pod's scheduling constraints",
    ".automountServiceAccountToken b |AutomountServiceAccountToken indicates whether a service account token should "
    "be automatically mounted.",
    ".containers []Container ! lt=map lk=name mk=name ps=merge |List of containers belonging to the pod. Containers "
    "cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated.",
    ".dnsConfig PodDNSConfig |Specifies the DNS parameters of a pod. Parameters specified here will be merged to the "
    "generated DNS configuration based on DNSPolicy.",
    ".dnsPolicy s e=ClusterFirst,ClusterFirstWithHostNet,Default,None |Set DNS policy for the pod. Defaults to "
    "'ClusterFirst'. Valid values are 'ClusterFirstWithHostNet', 'ClusterFirst', 'Default' or 'None'. DNS "
    "parameters given in DNSConfig will be merged with the policy selected with DNSPolicy.",
    ".enableServiceLinks b |EnableServiceLinks indicates whether information about services should be injected into "
    "pod's environment variables, matching the syntax of Docker links. Optional: Defaults to true.",
    ".ephemeralContainers []EphemeralContainer lt=map lk=name mk=name ps=merge |List of ephemeral containers run in "
    "this pod. Ephemeral containers may be run in an existing pod to perform user-initiated actions such as "
    "debugging. This list cannot be specified when creating a pod, and it cannot be modified by updating the pod "
    "spec. In order to add an ephemeral container to an existing pod, use the pod's ephemeralcontainers "
    "subresource.",
    ".hostAliases []HostAlias lt=map lk=ip mk=ip ps=merge |HostAliases is an optional list of hosts and IPs that "
    "will be injected into the pod's hosts file if specified.",
    ".hostIPC b |Use the host's ipc namespace. Optional: Default to false.",
    ".hostNetwork b |Host networking requested for this pod. Use the host's network namespace. When using "
    "HostNetwork you should specify ports so the scheduler is aware. Default to false.",
    ".hostPID b |Use the host's pid namespace. Optional: Default to false.",
    ".hostUsers b |Use the host's user namespace. Optional: Default to true. If set to true or not present, the pod "
    "will be run in the host user namespace.",
    ".hostname s |Specifies the hostname of the Pod. If not specified, the pod's hostname will be set to a "
    "system-defined value.",
    ".imagePullSecrets []LocalObjectReference lt=map lk=name mk=name ps=merge |ImagePullSecrets is an optional list "
    "of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec. More "
    "info: https://kubernetes.io/docs/concepts/containers/images#specifying-imagepullsecrets-on-a-pod",
    ".initContainers []Container lt=map lk=name mk=name ps=merge |List of initialization containers belonging to the "
    "pod. Init containers are executed in order prior to containers being started. If any init container fails, "
    "the pod is considered to have failed and is handled according to its restartPolicy. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/init-containers/",
    ".nodeName s |NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
    "scheduling by the scheduler defined in schedulerName.",
    ".nodeSelector {}s |NodeSelector is a selector which must be true for the pod to fit on a node. Selector which "
    "must match a node's labels for the pod to be scheduled on that node. More info: "
    "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
    ".os PodOS |Specifies the OS of the containers in the pod. Some pod and container fields are restricted if this "
    "is set.",
    ".overhead {}q |Overhead represents the resource overhead associated with running a pod for a given "
    "RuntimeClass. This field will be autopopulated at admission time by the RuntimeClass admission controller.",
    ".preemptionPolicy s e=Never,PreemptLowerPriority |PreemptionPolicy is the Policy for preempting pods with lower "
    "priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
    ".priority i32 |The priority value. Various system components use this field to find the priority of the pod. "
    "When Priority Admission Controller is enabled, it prevents users from setting this field. The admission "
    "controller populates this field from PriorityClassName. The higher the value, the higher the priority.",
    ".priorityClassName s |If specified, indicates the pod's priority. 'system-node-critical' and "
    "'system-cluster-critical' are two special keywords which indicate the highest priorities. Any other name must "
    "be defined by creating a PriorityClass object with that name.",
    ".readinessGates []PodReadinessGate lt=atomic |If specified, all readiness gates will be evaluated for pod "
    "readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness "
    "gates have status equal to 'True'.",
    ".resourceClaims []PodResourceClaim lt=map lk=name mk=name ps=merge,retainKeys |ResourceClaims defines which "
    "ResourceClaims must be allocated and reserved before the Pod is allowed to start. The resources will be made "
    "available to those containers which consume them by name.",
    ".resources ResourceRequirements |Resources is the total amount of CPU and Memory resources required by all "
    "containers in the pod. It supports specifying Requests and Limits for 'cpu' and 'memory' resource names only.",
    ".restartPolicy s e=Always,Never,OnFailure |Restart policy for all containers within the pod. One of Always, "
    "OnFailure, Never. In some contexts, only a subset of those values may be permitted. Default to Always. More "
    "info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy",
    ".runtimeClassName s |RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be "
    "used to run this pod. If no RuntimeClass resource matches the named class, the pod will not be run.",
    ".schedulerName s |If specified, the pod will be dispatched by specified scheduler. If not specified, the pod "
    "will be dispatched by default scheduler.",
    ".schedulingGates []PodSchedulingGate lt=map lk=name mk=name ps=merge |SchedulingGates is an opaque list of "
    "values that if specified will block scheduling the pod. If schedulingGates is not empty, the pod will stay in "
    "the SchedulingGated state and the scheduler will not attempt to schedule the pod.",
    ".securityContext PodSecurityContext |SecurityContext holds pod-level security attributes and common container "
    "settings. Optional: Defaults to empty. See type description for default values of each field.",
    ".serviceAccount s |DeprecatedServiceAccount is a deprecated alias for ServiceAccountName. Deprecated: Use "
    "serviceAccountName instead.",
    ".serviceAccountName s |ServiceAccountName is the name of the ServiceAccount to use to run this pod. More info: "
    "https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/",
    ".setHostnameAsFQDN b |If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf "
    "name (the default). Default to false.",
    ".shareProcessNamespace b |Share a single process namespace between all of the containers in a pod. When this "
    "is set containers will be able to view and signal processes from other containers in the same pod, and the "
    "first process in each container will not be assigned PID 1. Optional: Default to false.",
    ".subdomain s |If specified, the fully qualified Pod hostname will be '<hostname>.<subdomain>.<pod "
    "namespace>.svc.<cluster domain>'. If not specified, the pod will not have a domainname at all.",
    ".terminationGracePeriodSeconds i64 |Optional duration in seconds the pod needs to terminate gracefully. May be "
    "decreased in delete request. Value must be non-negative integer. The value zero indicates stop immediately via "
    "the kill signal (no opportunity to shut down). Defaults to 30 seconds.",
    ".tolerations []Toleration lt=atomic |If specified, the pod's tolerations.",
    ".topologySpreadConstraints []TopologySpreadConstraint lt=map lk=topologyKey,whenUnsatisfiable mk=topologyKey "
    "ps=merge |TopologySpreadConstraints describes how a group of pods ought to spread across topology domains. "
    "Scheduler will schedule pods in a way which abides to the constraints. All topologySpreadConstraints are ANDed.",
    ".volumes []Volume lt=map lk=name mk=name ps=merge,retainKeys |List of volumes that can be mounted by containers "
    "belonging to the pod. More info: https://kubernetes.io/docs/concepts/storage/volumes",

    "@Container A single application container that you want to run within a pod.",
    ".args []s lt=atomic |Arguments to the entrypoint. The container image's CMD is used if this is not provided. "
    "Variable references $(VAR_NAME) are expanded using the container's environment. Cannot be updated. More info: "
    "https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/"
    "#running-a-command-in-a-shell",
    ".command []s lt=atomic |Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is "
    "used if this is not provided. Variable references $(VAR_NAME) are expanded using the container's environment. "
    "Cannot be updated. More info: "
    "https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/"
    "#running-a-command-in-a-shell",
    ".env []EnvVar lt=map lk=name mk=name ps=merge |List of environment variables to set in the container. Cannot be "
    "updated.",
    ".envFrom []EnvFromSource lt=atomic |List of sources to populate environment variables in the container. The "
    "keys defined within a source may consist of any printable ASCII characters except '='. When a key exists in "
    "multiple sources, the value associated with the last source will take precedence. Values defined by an Env "
    "with a duplicate key will take precedence. Cannot be updated.",
    ".image s |Container image name. More info: https://kubernetes.io/docs/concepts/containers/images This field is "
    "optional to allow higher level config management to default or override container images in workload "
    "controllers like Deployments and StatefulSets.",
    ".imagePullPolicy s e=Always,IfNotPresent,Never |Image pull policy. One of Always, Never, IfNotPresent. Defaults "
    "to Always if :latest tag is specified, or IfNotPresent otherwise. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/containers/images#updating-images",
    ".lifecycle Lifecycle |Actions that the management system should take in response to container lifecycle "
    "events. Cannot be updated.",
    ".livenessProbe Probe |Periodic probe of container liveness. Container will be restarted if the probe fails. "
    "Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes",
    ".name s ! |Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name "
    "(DNS_LABEL). Cannot be updated.",
    ".ports []ContainerPort lt=map lk=containerPort,protocol mk=containerPort ps=merge |List of ports to expose from "
    "the container. Not specifying a port here DOES NOT prevent that port from being exposed. Any port which is "
    "listening on the default '0.0.0.0' address inside a container will be accessible from the network. Cannot be "
    "updated.",
    ".readinessProbe Probe |Periodic probe of container service readiness. Container will be removed from service "
    "endpoints if the probe fails. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes",
    ".resizePolicy []ContainerResizePolicy lt=atomic |Resources resize policy for the container.",
    ".resources ResourceRequirements |Compute Resources required by this container. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    ".restartPolicy s |RestartPolicy defines the restart behavior of individual containers in a pod. This field may "
    "only be set for init containers, and the only allowed value is 'Always'. Setting it makes the init container a "
    "sidecar that keeps running for the lifetime of the pod.",
    ".securityContext SecurityContext |SecurityContext defines the security options the container should be run "
    "with. If set, the fields of SecurityContext override the equivalent fields of PodSecurityContext. More info: "
    "https://kubernetes.io/docs/tasks/configure-pod-container/security-context/",
    ".startupProbe Probe |StartupProbe indicates that the Pod has successfully initialized. If specified, no other "
    "probes are executed until this completes successfully. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes",
    ".stdin b |Whether this container should allocate a buffer for stdin in the container runtime. If this is not "
    "set, reads from stdin in the container will always result in EOF. Default is false.",
    ".stdinOnce b |Whether the container runtime should close the stdin channel after it has been opened by a "
    "single attach. When stdin is true the stdin stream will remain open across multiple attach sessions. Default is "
    "false",
    ".terminationMessagePath s |Optional: Path at which the file to which the container's termination message will "
    "be written is mounted into the container's filesystem. Defaults to /dev/termination-log. Cannot be updated.",
    ".terminationMessagePolicy s e=FallbackToLogsOnError,File |Indicate how the termination message should be "
    "populated. File will use the contents of terminationMessagePath to populate the container status message on "
    "both success and failure. FallbackToLogsOnError will use the last chunk of container log output if the "
    "termination message file is empty and the container exited with an error. Defaults to File. Cannot be "
    "updated.",
    ".tty b |Whether this container should allocate a TTY for itself, also requires 'stdin' to be true. Default is "
    "false.",
    ".volumeDevices []VolumeDevice lt=map lk=devicePath mk=devicePath ps=merge |volumeDevices is the list of block "
    "devices to be used by the container.",
    ".volumeMounts []VolumeMount lt=map lk=mountPath mk=mountPath ps=merge |Pod volumes to mount into the "
    "container's filesystem. Cannot be updated.",
    ".workingDir s |Container's working directory. If not specified, the container runtime's default will be used, "
    "which might be configured in the container image. Cannot be updated.",

    "@EphemeralContainer An EphemeralContainer is a temporary container that you may add to an existing Pod for "
    "user-initiated activities such as debugging. Ephemeral containers have no resource or scheduling guarantees, "
    "and they will not be restarted when they exit or when a Pod is removed or restarted.",
    ">Container",
    ".targetContainerName s |If set, the name of the container from PodSpec that this ephemeral container targets. "
    "The ephemeral container will be run in the namespaces (IPC, PID, etc) of this container.",

    "@ContainerPort ContainerPort represents a network port in a single container.",
    ".containerPort i32 ! |Number of port to expose on the pod's IP address. This must be a valid port number, 0 < "
    "x < 65536.",
    ".hostIP s |What host IP to bind the external port to.",
    ".hostPort i32 |Number of port to expose on the host. If specified, this must be a valid port number, 0 < x < "
    "65536. If HostNetwork is specified, this must match ContainerPort. Most containers do not need this.",
    ".name s |If specified, this must be an IANA_SVC_NAME and unique within the pod. Each named port in a pod must "
    "have a unique name. Name for the port that can be referred to by services.",
    ".protocol s e=SCTP,TCP,UDP |Protocol for port. Must be UDP, TCP, or SCTP. Defaults to 'TCP'.",

    "@EnvVar EnvVar represents an environment variable present in a Container.",
    ".name s ! |Name of the environment variable. Must be a C_IDENTIFIER.",
    ".value s |Variable references $(VAR_NAME) are expanded using the previously defined environment variables in "
    "the container and any service environment variables. If a variable cannot be resolved, the reference in the "
    "input string will be unchanged. Defaults to ''.",
    ".valueFrom EnvVarSource |Source for the environment variable's value. Cannot be used if value is not empty.",
    "@EnvVarSource EnvVarSource represents a source for the value of an EnvVar.",
    ".configMapKeyRef ConfigMapKeySelector |Selects a key of a ConfigMap.",
    ".fieldRef ObjectFieldSelector |Selects a field of the pod: supports metadata.name, metadata.namespace, "
    "`metadata.labels['<KEY>']`, `metadata.annotations['<KEY>']`, spec.nodeName, spec.serviceAccountName, "
    "status.hostIP, status.podIP, status.podIPs.",
    ".resourceFieldRef ResourceFieldSelector |Selects a resource of the container: only resources limits and "
    "requests (limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory and "
    "requests.ephemeral-storage) are currently supported.",
    ".secretKeyRef SecretKeySelector |Selects a key of a secret in the pod's namespace",
    "@ObjectFieldSelector ObjectFieldSelector selects an APIVersioned field of an object.",
    ".apiVersion s |Version of the schema the FieldPath is written in terms of, defaults to 'v1'.",
    ".fieldPath s ! |Path of the field to select in the specified API version.",
    "@ResourceFieldSelector ResourceFieldSelector represents container resources (cpu, memory) and their output "
    "format",
    ".containerName s |Container name: required for volumes, optional for env vars",
    ".divisor q |Specifies the output format of the exposed resources, defaults to '1'",
    ".resource s ! |Required: resource to select",
    "@ConfigMapKeySelector Selects a key from a ConfigMap.",
    ".key s ! |The key to select.",
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".optional b |Specify whether the ConfigMap or its key must be defined",
    "@SecretKeySelector SecretKeySelector selects a key of a Secret.",
    ".key s ! |The key of the secret to select from. Must be a valid secret key.",
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".optional b |Specify whether the Secret or its key must be defined",
    "@EnvFromSource EnvFromSource represents the source of a set of ConfigMaps or Secrets",
    ".configMapRef ConfigMapEnvSource |The ConfigMap to select from",
    ".prefix s |Optional text to prepend to the name of each environment variable. Must be a C_IDENTIFIER.",
    ".secretRef SecretEnvSource |The Secret to select from",
    "@ConfigMapEnvSource ConfigMapEnvSource selects a ConfigMap to populate the environment variables with. The "
    "contents of the target ConfigMap's Data field will represent the key-value pairs as environment variables.",
    ".name s |Name of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".optional b |Specify whether the ConfigMap must be defined",
    "@SecretEnvSource SecretEnvSource selects a Secret to populate the environment variables with. The contents of "
    "the target Secret's Data field will represent the key-value pairs as environment variables.",
    ".name s |Name of the referent. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    ".optional b |Specify whether the Secret must be defined",

    "@ResourceRequirements ResourceRequirements describes the compute resource requirements.",
    ".claims []ResourceClaim lt=map lk=name |Claims lists the names of resources, defined in spec.resourceClaims, "
    "that are used by this container. This field depends on the DynamicResourceAllocation feature gate. This field "
    "is immutable. It can only be set for containers.",
    ".limits {}q |Limits describes the maximum amount of compute resources allowed. More info: "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    ".requests {}q |Requests describes the minimum amount of compute resources required. If Requests is omitted for "
    "a container, it defaults to Limits if that is explicitly specified, otherwise to an implementation-defined "
    "value. Requests cannot exceed Limits. More info: "
    "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
    "@ResourceClaim ResourceClaim references one entry in PodSpec.ResourceClaims.",
    ".name s ! |Name must match the name of one entry in pod.spec.resourceClaims of the Pod where this field is "
    "used. It makes that resource available inside a container.",
    ".request s |Request is the name chosen for a request in the referenced claim. If empty, everything from the "
    "claim is made available, otherwise only the result of this request.",
    "@VolumeMount VolumeMount describes a mounting of a Volume within a container.",
    ".mountPath s ! |Path within the container at which the volume should be mounted. Must not contain ':'.",
    ".mountPropagation s e=Bidirectional,HostToContainer,None |mountPropagation determines how mounts are propagated "
    "from the host to container and the other way around. When not set, MountPropagationNone is used.",
    ".name s ! |This must match the Name of a Volume.",
    ".readOnly b |Mounted read-only if true, read-write otherwise (false or unspecified). Defaults to false.",
    ".recursiveReadOnly s |RecursiveReadOnly specifies whether read-only mounts should be handled recursively. If "
    "ReadOnly is false, this field has no meaning and must be unspecified. One of Disabled, IfPossible, Enabled.",
    ".subPath s |Path within the volume from which the container's volume should be mounted. Defaults to '' "
    "(volume's root).",
    ".subPathExpr s |Expanded path within the volume from which the container's volume should be mounted. Behaves "
    "similarly to SubPath but environment variable references $(VAR_NAME) are expanded using the container's "
    "environment. SubPathExpr and SubPath are mutually exclusive.",
    "@VolumeDevice volumeDevice describes a mapping of a raw block device within a container.",
    ".devicePath s ! |devicePath is the path inside of the container that the device will be mapped to.",
    ".name s ! |name must match the name of a persistentVolumeClaim in the pod",

    "@Probe Probe describes a health check to be performed against a container to determine whether it is "
    "alive or ready to receive traffic.",
    ".exec ExecAction |Exec specifies a command to execute in the container.",
    ".failureThreshold i32 |Minimum consecutive failures for the probe to be considered failed after having "
    "succeeded. Defaults to 3. Minimum value is 1.",
    ".grpc GRPCAction |GRPC specifies a GRPC HealthCheckRequest.",
    ".httpGet HTTPGetAction |HTTPGet specifies an HTTP GET request to perform.",
    ".initialDelaySeconds i32 |Number of seconds after the container has started before liveness probes are "
    "initiated. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes",
    ".periodSeconds i32 |How often (in seconds) to perform the probe. Default to 10 seconds. Minimum value is 1.",
    ".successThreshold i32 |Minimum consecutive successes for the probe to be considered successful after having "
    "failed. Defaults to 1. Must be 1 for liveness and startup. Minimum value is 1.",
    ".tcpSocket TCPSocketAction |TCPSocket specifies a connection to a TCP port.",
    ".terminationGracePeriodSeconds i64 |Optional duration in seconds the pod needs to terminate gracefully upon "
    "probe failure. If this value is nil, the pod's terminationGracePeriodSeconds will be used. Otherwise, this "
    "value overrides the value provided by the pod spec.",
    ".timeoutSeconds i32 |Number of seconds after which the probe times out. Defaults to 1 second. Minimum value is "
    "1. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes",
    "@ExecAction ExecAction describes a 'run in container' action.",
    ".command []s lt=atomic |Command is the command line to execute inside the container, the working directory for "
    "the command is root ('/') in the container's filesystem. The command is simply exec'd, it is not run inside a "
    "shell, so traditional shell instructions ('|', etc) won't work. To use a shell, you need to explicitly call "
    "out to that shell. Exit status of 0 is treated as live/healthy and non-zero is unhealthy.",
    "@HTTPGetAction HTTPGetAction describes an action based on HTTP Get requests.",
    ".host s |Host name to connect to, defaults to the pod IP. You probably want to set 'Host' in httpHeaders "
    "instead.",
    ".httpHeaders []HTTPHeader lt=atomic |Custom headers to set in the request. HTTP allows repeated headers.",
    ".path s |Path to access on the HTTP server.",
    ".port ios ! |Name or number of the port to access on the container. Number must be in the range 1 to 65535. "
    "Name must be an IANA_SVC_NAME.",
    ".scheme s e=HTTP,HTTPS |Scheme to use for connecting to the host. Defaults to HTTP.",
    "@HTTPHeader HTTPHeader describes a custom header to be used in HTTP probes",
    ".name s ! |The header field name. This will be canonicalized upon output, so case-variant names will be "
    "understood as the same header.",
    ".value s ! |The header field value",
    "@TCPSocketAction TCPSocketAction describes an action based on opening a socket",
    ".host s |Optional: Host name to connect to, defaults to the pod IP.",
    ".port ios ! |Number or name of the port to access on the container. Number must be in the range 1 to 65535. "
    "Name must be an IANA_SVC_NAME.",
    "@GRPCAction GRPCAction specifies an action involving a GRPC service.",
    ".port i32 ! |Port number of the gRPC service. Number must be in the range 1 to 65535.",
    ".service s |Service is the name of the service to place in the gRPC HealthCheckRequest (see "
    "https://github.com/grpc/grpc/blob/master/doc/health-checking.md). If this is not specified, the default "
    "behavior is defined by gRPC.",
    "@Lifecycle Lifecycle describes actions that the management system should take in response to container "
    "lifecycle events. For the PostStart and PreStop lifecycle handlers, management of the container blocks until "
    "the action is complete, unless the container process fails, in which case the handler is aborted.",
    ".postStart LifecycleHandler |PostStart is called immediately after a container is created. If the handler "
    "fails, the container is terminated and restarted according to its restart policy. Other management of the "
    "container blocks until the hook completes. More info: "
    "https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/#container-hooks",
    ".preStop LifecycleHandler |PreStop is called immediately before a container is terminated due to an API request "
    "or management event such as liveness/startup probe failure, preemption, resource contention, etc. The "
    "container's termination grace period countdown begins before the PreStop hook is executed. More info: "
    "https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/#container-hooks",
    ".stopSignal s |StopSignal defines which signal will be sent to a container when it is being stopped. If not "
    "specified, the default is defined by the container runtime in use. StopSignal can only be set for Pods with a "
    "non-empty .spec.os.name",
    "@LifecycleHandler LifecycleHandler defines a specific action that should be taken in a lifecycle hook. One and "
    "only one of the fields, except TCPSocket must be specified.",
    ".exec ExecAction |Exec specifies a command to execute in the container.",
    ".httpGet HTTPGetAction |HTTPGet specifies an HTTP GET request to perform.",
    ".sleep SleepAction |Sleep represents a duration that the container should sleep.",
    ".tcpSocket TCPSocketAction |Deprecated. TCPSocket is NOT supported as a LifecycleHandler and kept for backward "
    "compatibility. There is no validation of this field and lifecycle hooks will fail at runtime when it is "
    "specified.",
    "@SleepAction SleepAction describes a 'sleep' action.",
    ".seconds i64 ! |Seconds is the number of seconds to sleep.",

    "@SecurityContext SecurityContext holds security configuration that will be applied to a container. Some fields "
    "are present in both SecurityContext and PodSecurityContext. When both are set, the values in SecurityContext "
    "take precedence.",
    ".allowPrivilegeEscalation b |AllowPrivilegeEscalation controls whether a process can gain more privileges than "
    "its parent process. This bool directly controls if the no_new_privs flag will be set on the container process. "
    "AllowPrivilegeEscalation is true always when the container is: 1) run as Privileged 2) has CAP_SYS_ADMIN. Note "
    "that this field cannot be set when spec.os.name is windows.",
    ".appArmorProfile AppArmorProfile |appArmorProfile is the AppArmor options to use by this container. If set, "
    "this profile overrides the pod's appArmorProfile. Note that this field cannot be set when spec.os.name is "
    "windows.",
    ".capabilities Capabilities |The capabilities to add/drop when running containers. Defaults to the default set "
    "of capabilities granted by the container runtime. Note that this field cannot be set when spec.os.name is "
    "windows.",
    ".privileged b |Run container in privileged mode. Processes in privileged containers are essentially equivalent "
    "to root on the host. Defaults to false. Note that this field cannot be set when spec.os.name is windows.",
    ".procMount s e=Default,Unmasked |procMount denotes the type of proc mount to use for the containers. The default "
    "value is Default which uses the container runtime defaults for readonly paths and masked paths. This requires "
    "the ProcMountType feature flag to be enabled. Note that this field cannot be set when spec.os.name is windows.",
    ".readOnlyRootFilesystem b |Whether this container has a read-only root filesystem. Default is false. Note that "
    "this field cannot be set when spec.os.name is windows.",
    ".runAsGroup i64 |The GID to run the entrypoint of the container process. Uses runtime default if unset. May "
    "also be set in PodSecurityContext. Note that this field cannot be set when spec.os.name is windows.",
    ".runAsNonRoot b |Indicates that the container must run as a non-root user. If true, the Kubelet will validate "
    "the image at runtime to ensure that it does not run as UID 0 (root) and fail to start the container if it "
    "does.",
    ".runAsUser i64 |The UID to run the entrypoint of the container process. Defaults to user specified in image "
    "metadata if unspecified. May also be set in PodSecurityContext. Note that this field cannot be set when "
    "spec.os.name is windows.",
    ".seLinuxOptions SELinuxOptions |The SELinux context to be applied to the container. If unspecified, the "
    "container runtime will allocate a random SELinux context for each container. Note that this field cannot be "
    "set when spec.os.name is windows.",
    ".seccompProfile SeccompProfile |The seccomp options to use by this container. If seccomp options are provided "
    "at both the pod & container level, the container options override the pod options. Note that this field "
    "cannot be set when spec.os.name is windows.",
    ".windowsOptions WindowsSecurityContextOptions |The Windows specific settings applied to all containers. If "
    "unspecified, the options from the PodSecurityContext will be used. Note that this field cannot be set when "
    "spec.os.name is linux.",
    "@Capabilities Adds and removes POSIX capabilities from running containers.",
    ".add []s lt=atomic |Added capabilities",
    ".drop []s lt=atomic |Removed capabilities",
    "@SELinuxOptions SELinuxOptions are the labels to be applied to the container",
    ".level s |Level is SELinux level label that applies to the container.",
    ".role s |Role is a SELinux role label that applies to the container.",
    ".type s |Type is a SELinux type label that applies to the container.",
    ".user s |User is a SELinux user label that applies to the container.",
    "@WindowsSecurityContextOptions WindowsSecurityContextOptions contain Windows-specific options and credentials.",
    ".gmsaCredentialSpec s |GMSACredentialSpec is where the GMSA admission webhook inlines the contents of the GMSA "
    "credential spec named by the GMSACredentialSpecName field.",
    ".gmsaCredentialSpecName s |GMSACredentialSpecName is the name of the GMSA credential spec to use.",
    ".hostProcess b |HostProcess determines if a container should be run as a 'Host Process' container. All of a "
    "Pod's containers must have the same effective HostProcess value.",
    ".runAsUserName s |The UserName in Windows to run the entrypoint of the container process. Defaults to the user "
    "specified in image metadata if unspecified.",
    "@SeccompProfile SeccompProfile defines a pod/container's seccomp profile settings. Only one profile source may "
    "be set.",
    ".localhostProfile s |localhostProfile indicates a profile defined in a file on the node should be used. The "
    "profile must be preconfigured on the node to work. Must be a descending path, relative to the kubelet's "
    "configured seccomp profile location. Must be set if type is 'Localhost'. Must NOT be set for any other type.",
    ".type s ! e=Localhost,RuntimeDefault,Unconfined |type indicates which kind of seccomp profile will be applied. "
    "Valid options are: Localhost - a profile defined in a file on the node should be used. RuntimeDefault - the "
    "container runtime default profile should be used. Unconfined - no profile should be applied.",
    "@AppArmorProfile AppArmorProfile defines a pod or container's AppArmor settings.",
    ".localhostProfile s |localhostProfile indicates a profile loaded on the node that should be used. The profile "
    "must be preconfigured on the node to work. Must match the loaded name of the profile. Must be set if and only "
    "if type is 'Localhost'.",
    ".type s ! e=Localhost,RuntimeDefault,Unconfined |type indicates which kind of AppArmor profile will be applied. "
    "Valid options are: Localhost - a profile pre-loaded on the node. RuntimeDefault - the container runtime's "
    "default profile. Unconfined - no AppArmor enforcement.",
    "@ContainerResizePolicy ContainerResizePolicy represents resource resize policy for the container.",
    ".resourceName s ! |Name of the resource to which this resource resize policy applies. Supported values: cpu, "
    "memory.",
    ".restartPolicy s ! |Restart policy to apply when specified resource is resized. If not specified, it defaults "
    "to NotRequired.",
    "@PodSecurityContext PodSecurityContext holds pod-level security attributes and common container settings. Some "
    "fields are also present in container.securityContext. Field values of container.securityContext take "
    "precedence over field values of PodSecurityContext.",
    ".appArmorProfile AppArmorProfile |appArmorProfile is the AppArmor options to use by the containers in this pod. "
    "Note that this field cannot be set when spec.os.name is windows.",
    ".fsGroup i64 |A special supplemental group that applies to all containers in a pod. Some volume types allow the "
    "Kubelet to change the ownership of that volume to be owned by the pod. Note that this field cannot be set when "
    "spec.os.name is windows.",
    ".fsGroupChangePolicy s e=Always,OnRootMismatch |fsGroupChangePolicy defines behavior of changing ownership and "
    "permission of the volume before being exposed inside Pod. Valid values are 'OnRootMismatch' and 'Always'. If "
    "not specified, 'Always' is used. Note that this field cannot be set when spec.os.name is windows.",
    ".runAsGroup i64 |The GID to run the entrypoint of the container process. Uses runtime default if unset. Note "
    "that this field cannot be set when spec.os.name is windows.",
    ".runAsNonRoot b |Indicates that the container must run as a non-root user. If true, the Kubelet will validate "
    "the image at runtime to ensure that it does not run as UID 0 (root) and fail to start the container if it "
    "does.",
    ".runAsUser i64 |The UID to run the entrypoint of the container process. Defaults to user specified in image "
    "metadata if unspecified. Note that this field cannot be set when spec.os.name is windows.",
    ".seLinuxChangePolicy s |seLinuxChangePolicy defines how the container's SELinux label is applied to all volumes "
    "used by the Pod. Valid values are 'MountOption' and 'Recursive'.",
    ".seLinuxOptions SELinuxOptions |The SELinux context to be applied to all containers. If unspecified, the "
    "container runtime will allocate a random SELinux context for each container. Note that this field cannot be "
    "set when spec.os.name is windows.",
    ".seccompProfile SeccompProfile |The seccomp options to use by the containers in this pod. Note that this field "
    "cannot be set when spec.os.name is windows.",
    ".supplementalGroups []i64 lt=atomic |A list of groups applied to the first process run in each container, in "
    "addition to the container's primary GID and fsGroup (if specified). Note that this field cannot be set when "
    "spec.os.name is windows.",
    ".supplementalGroupsPolicy s e=Merge,Strict |Defines how supplemental groups of the first container processes "
    "are calculated. Valid values are 'Merge' and 'Strict'. If not specified, 'Merge' is used.",
    ".sysctls []Sysctl lt=atomic |Sysctls hold a list of namespaced sysctls used for the pod. Pods with unsupported "
    "sysctls (by the container runtime) might fail to launch. Note that this field cannot be set when spec.os.name "
    "is windows.",
    ".windowsOptions WindowsSecurityContextOptions |The Windows specific settings applied to all containers. Note "
    "that this field cannot be set when spec.os.name is linux.",
    "@Sysctl Sysctl defines a kernel parameter to be set",
    ".name s ! |Name of a property to set",
    ".value s ! |Value of a property to set",

    "@LocalObjectReference LocalObjectReference contains enough information to let you locate the referenced object "
    "inside the same namespace.",
    ".name s |Name of the referent. This field is effectively required, but due to backwards compatibility is "
    "allowed to be empty. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    "@HostAlias HostAlias holds the mapping between IP and hostnames that will be injected as an entry in the pod's "
    "hosts file.",
    ".hostnames []s lt=atomic |Hostnames for the above IP address.",
    ".ip s ! |IP address of the host file entry.",
    "@PodDNSConfig PodDNSConfig defines the DNS parameters of a pod in addition to those generated from DNSPolicy.",
    ".nameservers []s lt=atomic |A list of DNS name server IP addresses. This will be appended to the base "
    "nameservers generated from DNSPolicy. Duplicated nameservers will be removed.",
    ".options []PodDNSConfigOption lt=atomic |A list of DNS resolver options. This will be merged with the base "
    "options generated from DNSPolicy. Duplicated entries will be removed.",
    ".searches []s lt=atomic |A list of DNS search domains for host-name lookup. This will be appended to the base "
    "search paths generated from DNSPolicy. Duplicated search paths will be removed.",
    "@PodDNSConfigOption PodDNSConfigOption defines DNS resolver options of a pod.",
    ".name s |Name is this DNS resolver option's name. Required.",
    ".value s |Value is this DNS resolver option's value.",
    "@PodReadinessGate PodReadinessGate contains the reference to a pod condition",
    ".conditionType s ! |ConditionType refers to a condition in the pod's condition list with matching type.",
    "@PodOS PodOS defines the OS parameters of a pod.",
    ".name s ! |Name is the name of the operating system. The currently supported values are linux and windows.",
    "@PodSchedulingGate PodSchedulingGate is associated to a Pod to guard its scheduling.",
    ".name s ! |Name of the scheduling gate. Each scheduling gate must have a unique name field.",
    "@PodResourceClaim PodResourceClaim references exactly one ResourceClaim, either directly or by naming a "
    "ResourceClaimTemplate which is then turned into a ResourceClaim for the pod.",
    ".name s ! |Name uniquely identifies this resource claim inside the pod. This must be a DNS_LABEL.",
    ".resourceClaimName s |ResourceClaimName is the name of a ResourceClaim object in the same namespace as this "
    "pod. Exactly one of ResourceClaimName and ResourceClaimTemplateName must be set.",
    ".resourceClaimTemplateName s |ResourceClaimTemplateName is the name of a ResourceClaimTemplate object in the "
    "same namespace as this pod. The template will be used to create a new ResourceClaim, which will be bound to "
    "this pod.",

    "@PodStatus PodStatus represents information about the status of a pod. Status may trail the actual state of a "
    "system, especially if the node that hosts the pod cannot contact the control plane.",
    ".conditions []PodCondition lt=map lk=type mk=type ps=merge |Current service state of pod. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#pod-conditions",
    ".containerStatuses []ContainerStatus lt=atomic |Statuses of containers in this pod. Each container in the pod "
    "should have at most one status in this list, and all statuses should be for containers in the pod.",
    ".ephemeralContainerStatuses []ContainerStatus lt=atomic |Statuses for any ephemeral containers that have run in "
    "this pod.",
    ".hostIP s |hostIP holds the IP address of the host to which the pod is assigned. Empty if the pod has not "
    "started yet.",
    ".hostIPs []HostIP lt=atomic mk=ip ps=merge |hostIPs holds the IP addresses allocated to the host. If this field "
    "is specified, the first entry must match the hostIP field.",
    ".initContainerStatuses []ContainerStatus lt=atomic |Statuses of init containers in this pod.",
    ".message s |A human readable message indicating details about why the pod is in this condition.",
    ".nominatedNodeName s |nominatedNodeName is set only when this pod preempts other pods on the node, but it "
    "cannot be scheduled right away as preemption victims receive their graceful termination periods.",
    ".observedGeneration i64 |If set, this represents the .metadata.generation that the pod status was set based "
    "upon.",
    ".phase s e=Failed,Pending,Running,Succeeded,Unknown |The phase of a Pod is a simple, high-level summary of where "
    "the Pod is in its lifecycle: Pending, Running, Succeeded, Failed or Unknown. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#pod-phase",
    ".podIP s |podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
    ".podIPs []PodIP lt=map lk=ip mk=ip ps=merge |podIPs holds the IP addresses allocated to the pod. If this field "
    "is specified, the 0th entry must match the podIP field.",
    ".qosClass s e=BestEffort,Burstable,Guaranteed |The Quality of Service (QOS) classification assigned to the pod "
    "based on resource requirements. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/#quality-of-service-classes",
    ".reason s |A brief CamelCase message indicating details about why the pod is in this state. e.g. 'Evicted'",
    ".resize s |Status of resources resize desired for pod's containers. Deprecated: use the PodResizePending and "
    "PodResizeInProgress conditions.",
    ".resourceClaimStatuses []obj lt=map lk=name mk=name ps=merge,retainKeys |Status of resource claims.",
    ".startTime t |RFC 3339 date and time at which the object was acknowledged by the Kubelet. This is before the "
    "Kubelet pulled the container image(s) for the pod.",
    "@PodCondition PodCondition contains details for the current condition of this pod.",
    ".lastProbeTime t |Last time we probed the condition.",
    ".lastTransitionTime t |Last time the condition transitioned from one status to another.",
    ".message s |Human-readable message indicating details about last transition.",
    ".observedGeneration i64 |If set, this represents the .metadata.generation that the pod condition was set based "
    "upon.",
    ".reason s |Unique, one-word, CamelCase reason for the condition's last transition.",
    ".status s ! |Status is the status of the condition. Can be True, False, Unknown. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#pod-conditions",
    ".type s ! |Type is the type of the condition. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#pod-conditions",
    "@PodIP PodIP represents a single IP address allocated to the pod.",
    ".ip s ! |IP is the IP address assigned to the pod",
    "@HostIP HostIP represents a single IP address allocated to the host.",
    ".ip s ! |IP is the IP address assigned to the host",
    "@ContainerStatus ContainerStatus contains details for the current status of this container.",
    ".allocatedResources {}q |AllocatedResources represents the compute resources allocated for this container by "
    "the node.",
    ".allocatedResourcesStatus []obj lt=map lk=name mk=name ps=merge |AllocatedResourcesStatus represents the status "
    "of various resources allocated for this Pod.",
    ".containerID s |ContainerID is the ID of the container in the format '<type>://<container_id>'.",
    ".image s ! |Image is the name of container image that the container is running.",
    ".imageID s ! |ImageID is the image ID of the container's image.",
    ".lastState ContainerState |LastTerminationState holds the last termination state of the container to help "
    "debug container crashes and restarts.",
    ".name s ! |Name is a DNS_LABEL representing the unique name of the container.",
    ".ready b ! |Ready specifies whether the container is currently passing its readiness check.",
    ".resources ResourceRequirements |Resources represents the compute resource requests and limits that have been "
    "successfully enacted on the running container after it has been started or has been successfully resized.",
    ".restartCount i32 ! |RestartCount holds the number of times the container has been restarted.",
    ".started b |Started indicates whether the container has finished its postStart lifecycle hook and passed its "
    "startup probe.",
    ".state ContainerState |State holds details about the container's current condition.",
    ".stopSignal s |StopSignal reports the effective stop signal for this container",
    ".user obj |User represents user identity information initially attached to the first process of the container",
    ".volumeMounts []obj lt=map lk=mountPath mk=mountPath ps=merge |Status of volume mounts.",
    "@ContainerState ContainerState holds a possible state of container. Only one of its members may be specified. "
    "If none of them is specified, the default one is ContainerStateWaiting.",
    ".running ContainerStateRunning |Details about a running container",
    ".terminated ContainerStateTerminated |Details about a terminated container",
    ".waiting ContainerStateWaiting |Details about a waiting container",
    "@ContainerStateRunning ContainerStateRunning is a running state of a container.",
    ".startedAt t |Time at which the container was last (re-)started",
    "@ContainerStateTerminated ContainerStateTerminated is a terminated state of a container.",
    ".containerID s |Container's ID in the format '<type>://<container_id>'",
    ".exitCode i32 ! |Exit status from the last termination of the container",
    ".finishedAt t |Time at which the container last terminated",
    ".message s |Message regarding the last termination of the container",
    ".reason s |(brief) reason from the last termination of the container",
    ".signal i32 |Signal from the last termination of the container",
    ".startedAt t |Time at which previous execution of the container started",
    "@ContainerStateWaiting ContainerStateWaiting is a waiting state of a container.",
    ".message s |Message regarding why the container is not yet running.",
    ".reason s |(brief) reason the container is not yet running.",
    NULL,
};
