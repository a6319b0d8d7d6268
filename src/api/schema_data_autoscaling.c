/* autoscaling/v2: HorizontalPodAutoscaler. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |metadata is the standard object metadata. More "       \
    "info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define LS "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"
#define Q "io.k8s.apimachinery.pkg.api.resource.Quantity"

const char *const kg_schema_data_autoscaling[] = {
    "=io.k8s.api.autoscaling.v2",
    "@HorizontalPodAutoscaler HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which "
    "automatically manages the replica count of any resource implementing the scale subresource based on the "
    "metrics specified.",
    TM,
    META,
    ".spec HorizontalPodAutoscalerSpec |spec is the specification for the behaviour of the autoscaler.",
    ".status HorizontalPodAutoscalerStatus |status is the current information about the autoscaler.",
    "@HorizontalPodAutoscalerSpec HorizontalPodAutoscalerSpec describes the desired functionality of the "
    "HorizontalPodAutoscaler.",
    ".behavior HorizontalPodAutoscalerBehavior |behavior configures the scaling behavior of the target in both Up "
    "and Down directions (scaleUp and scaleDown fields respectively).",
    ".maxReplicas i32 ! |maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale "
    "up. It cannot be less that minReplicas.",
    ".metrics []MetricSpec lt=atomic |metrics contains the specifications for which to use to calculate the desired "
    "replica count (the maximum replica count across all metrics will be used).",
    ".minReplicas i32 |minReplicas is the lower limit for the number of replicas to which the autoscaler can scale "
    "down. It defaults to 1 pod.",
    ".scaleTargetRef CrossVersionObjectReference ! |scaleTargetRef points to the target resource to scale, and is "
    "used to the pods for which metrics should be collected, as well as to actually change the replica count.",
    "@CrossVersionObjectReference CrossVersionObjectReference contains enough information to let you identify the "
    "referred resource.",
    ".apiVersion s |apiVersion is the API version of the referent",
    ".kind s ! |kind is the kind of the referent",
    ".name s ! |name is the name of the referent",
    "@MetricSpec MetricSpec specifies how to scale based on a single metric (only `type` and one other matching "
    "field should be set at once).",
    ".containerResource ContainerResourceMetricSource |containerResource refers to a resource metric (such as those "
    "specified in requests and limits) known to Kubernetes describing a single container in each pod of the current "
    "scale target (e.g. CPU or memory).",
    ".external ExternalMetricSource |external refers to a global metric that is not associated with any Kubernetes "
    "object.",
    ".object ObjectMetricSource |object refers to a metric describing a single kubernetes object (for example, "
    "hits-per-second on an Ingress object).",
    ".pods PodsMetricSource |pods refers to a metric describing each pod in the current scale target (for example, "
    "transactions-processed-per-second).",
    ".resource ResourceMetricSource |resource refers to a resource metric (such as those specified in requests and "
    "limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory).",
    ".type s ! |type is the type of metric source.  It should be one of \"ContainerResource\", \"External\", "
    "\"Object\", \"Pods\" or \"Resource\", each mapping to a matching field in the object.",
    "@ContainerResourceMetricSource ContainerResourceMetricSource indicates how to scale on a resource metric known "
    "to Kubernetes, as specified in requests and limits, describing each pod in the current scale target.",
    ".container s ! |container is the name of the container in the pods of the scaling target",
    ".name s ! |name is the name of the resource in question.",
    ".target MetricTarget ! |target specifies the target value for the given metric",
    "@ExternalMetricSource ExternalMetricSource indicates how to scale on a metric not associated with any "
    "Kubernetes object.",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    ".target MetricTarget ! |target specifies the target value for the given metric",
    "@ObjectMetricSource ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for "
    "example, hits-per-second on an Ingress object).",
    ".describedObject CrossVersionObjectReference ! |describedObject specifies the descriptions of a object,such as "
    "kind,name apiVersion",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    ".target MetricTarget ! |target specifies the target value for the given metric",
    "@PodsMetricSource PodsMetricSource indicates how to scale on a metric describing each pod in the current scale "
    "target.",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    ".target MetricTarget ! |target specifies the target value for the given metric",
    "@ResourceMetricSource ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as "
    "specified in requests and limits, describing each pod in the current scale target.",
    ".name s ! |name is the name of the resource in question.",
    ".target MetricTarget ! |target specifies the target value for the given metric",
    "@MetricIdentifier MetricIdentifier defines the name and optionally selector for a metric",
    ".name s ! |name is the name of the given metric",
    ".selector " LS " |selector is the string-encoded form of a standard kubernetes label selector for the given "
    "metric.",
    "@MetricTarget MetricTarget defines the target value, average value, or average utilization of a specific metric",
    ".averageUtilization i32 |averageUtilization is the target value of the average of the resource metric across "
    "all relevant pods, represented as a percentage of the requested value of the resource for the pods.",
    ".averageValue " Q " |averageValue is the target value of the average of the metric across all relevant pods "
    "(as a quantity)",
    ".type s ! |type represents whether the metric type is Utilization, Value, or AverageValue",
    ".value " Q " |value is the target value of the metric (as a quantity).",
    "@HorizontalPodAutoscalerBehavior HorizontalPodAutoscalerBehavior configures the scaling behavior of the target "
    "in both Up and Down directions (scaleUp and scaleDown fields respectively).",
    ".scaleDown HPAScalingRules |scaleDown is scaling policy for scaling Down.",
    ".scaleUp HPAScalingRules |scaleUp is scaling policy for scaling Up.",
    "@HPAScalingRules HPAScalingRules configures the scaling behavior for one direction via scaling Policy Rules and "
    "a configurable metric tolerance.",
    ".policies []HPAScalingPolicy lt=atomic |policies is a list of potential scaling polices which can be used "
    "during scaling.",
    ".selectPolicy s |selectPolicy is used to specify which policy should be used. If not set, the default value Max "
    "is used.",
    ".stabilizationWindowSeconds i32 |stabilizationWindowSeconds is the number of seconds for which past "
    "recommendations should be considered while scaling up or scaling down.",
    ".tolerance " Q " |tolerance is the tolerance on the ratio between the current and desired metric value under "
    "which no updates are made to the desired number of replicas (e.g. 0.01 for 1%).",
    "@HPAScalingPolicy HPAScalingPolicy is a single policy which must hold true for a specified past interval.",
    ".periodSeconds i32 ! |periodSeconds specifies the window of time for which the policy should hold true.",
    ".type s ! |type is used to specify the scaling policy.",
    ".value i32 ! |value contains the amount of change which is permitted by the policy. It must be greater than "
    "zero",
    "@HorizontalPodAutoscalerStatus HorizontalPodAutoscalerStatus describes the current status of a horizontal pod "
    "autoscaler.",
    ".conditions []HorizontalPodAutoscalerCondition lt=map lk=type mk=type ps=merge |conditions is the set of "
    "conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are "
    "met.",
    ".currentMetrics []MetricStatus lt=atomic |currentMetrics is the last read state of the metrics used by this "
    "autoscaler.",
    ".currentReplicas i32 |currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
    "seen by the autoscaler.",
    ".desiredReplicas i32 ! |desiredReplicas is the desired number of replicas of pods managed by this autoscaler, "
    "as last calculated by the autoscaler.",
    ".lastScaleTime io.k8s.apimachinery.pkg.apis.meta.v1.Time |lastScaleTime is the last time the "
    "HorizontalPodAutoscaler scaled the number of pods, used by the autoscaler to control how often the number of "
    "pods is changed.",
    ".observedGeneration i64 |observedGeneration is the most recent generation observed by this autoscaler.",
    "@HorizontalPodAutoscalerCondition HorizontalPodAutoscalerCondition describes the state of a "
    "HorizontalPodAutoscaler at a certain point.",
    ".lastTransitionTime io.k8s.apimachinery.pkg.apis.meta.v1.Time |lastTransitionTime is the last time the "
    "condition transitioned from one status to another",
    ".message s |message is a human-readable explanation containing details about the transition",
    ".reason s |reason is the reason for the condition's last transition.",
    ".status s ! |status is the status of the condition (True, False, Unknown)",
    ".type s ! |type describes the current condition",
    "@MetricStatus MetricStatus describes the last-read state of a single metric.",
    ".containerResource ContainerResourceMetricStatus |container resource refers to a resource metric (such as those "
    "specified in requests and limits) known to Kubernetes describing a single container in each pod in the current "
    "scale target (e.g. CPU or memory).",
    ".external ExternalMetricStatus |external refers to a global metric that is not associated with any Kubernetes "
    "object.",
    ".object ObjectMetricStatus |object refers to a metric describing a single kubernetes object (for example, "
    "hits-per-second on an Ingress object).",
    ".pods PodsMetricStatus |pods refers to a metric describing each pod in the current scale target (for example, "
    "transactions-processed-per-second).",
    ".resource ResourceMetricStatus |resource refers to a resource metric (such as those specified in requests and "
    "limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory).",
    ".type s ! |type is the type of metric source.",
    "@ContainerResourceMetricStatus ContainerResourceMetricStatus indicates the current value of a resource metric "
    "known to Kubernetes, as specified in requests and limits, describing a single container in each pod in the "
    "current scale target (e.g. CPU or memory).",
    ".container s ! |container is the name of the container in the pods of the scaling target",
    ".current MetricValueStatus ! |current contains the current value for the given metric",
    ".name s ! |name is the name of the resource in question.",
    "@ExternalMetricStatus ExternalMetricStatus indicates the current value of a global metric not associated with "
    "any Kubernetes object.",
    ".current MetricValueStatus ! |current contains the current value for the given metric",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    "@ObjectMetricStatus ObjectMetricStatus indicates the current value of a metric describing a kubernetes object "
    "(for example, hits-per-second on an Ingress object).",
    ".current MetricValueStatus ! |current contains the current value for the given metric",
    ".describedObject CrossVersionObjectReference ! |DescribedObject specifies the descriptions of a object,such as "
    "kind,name apiVersion",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    "@PodsMetricStatus PodsMetricStatus indicates the current value of a metric describing each pod in the current "
    "scale target (for example, transactions-processed-per-second).",
    ".current MetricValueStatus ! |current contains the current value for the given metric",
    ".metric MetricIdentifier ! |metric identifies the target metric by name and selector",
    "@ResourceMetricStatus ResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, "
    "as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).",
    ".current MetricValueStatus ! |current contains the current value for the given metric",
    ".name s ! |name is the name of the resource in question.",
    "@MetricValueStatus MetricValueStatus holds the current value for a metric",
    ".averageUtilization i32 |currentAverageUtilization is the current value of the average of the resource metric "
    "across all relevant pods, represented as a percentage of the requested value of the resource for the pods.",
    ".averageValue " Q " |averageValue is the current value of the average of the metric across all relevant pods "
    "(as a quantity)",
    ".value " Q " |value is the current value of the metric (as a quantity).",

    /* autoscaling/v1 HorizontalPodAutoscaler (served from the autoscaling/v2 storage, api/versions.h) */
    "=io.k8s.api.autoscaling.v1",
    "@HorizontalPodAutoscaler configuration of a horizontal pod autoscaler.",
    TM,
    ".metadata io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta |Standard object metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    ".spec HorizontalPodAutoscalerSpec |spec defines the behaviour of autoscaler. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.",
    ".status HorizontalPodAutoscalerStatus |status is the current information about the autoscaler.",
    "@HorizontalPodAutoscalerSpec specification of a horizontal pod autoscaler.",
    ".maxReplicas i32 ! |maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; "
    "cannot be smaller than MinReplicas.",
    ".minReplicas i32 |minReplicas is the lower limit for the number of replicas to which the autoscaler can scale "
    "down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is "
    "enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one "
    "metric value is available.",
    ".scaleTargetRef CrossVersionObjectReference ! |reference to scaled resource; horizontal pod autoscaler will "
    "learn the current resource consumption and will set the desired number of pods by using its Scale subresource.",
    ".targetCPUUtilizationPercentage i32 |targetCPUUtilizationPercentage is the target average CPU utilization "
    "(represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling "
    "policy will be used.",
    "@CrossVersionObjectReference CrossVersionObjectReference contains enough information to let you identify the "
    "referred resource.",
    ".apiVersion s |apiVersion is the API version of the referent",
    ".kind s ! |kind is the kind of the referent; More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
    ".name s ! |name is the name of the referent; More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
    "@HorizontalPodAutoscalerStatus current status of a horizontal pod autoscaler",
    ".currentCPUUtilizationPercentage i32 |currentCPUUtilizationPercentage is the current average CPU utilization "
    "over all pods, represented as a percentage of requested CPU, e.g. 70 means that an average pod is using now "
    "70% of its requested CPU.",
    ".currentReplicas i32 ! |currentReplicas is the current number of replicas of pods managed by this autoscaler.",
    ".desiredReplicas i32 ! |desiredReplicas is the  desired number of replicas of pods managed by this autoscaler.",
    ".lastScaleTime io.k8s.apimachinery.pkg.apis.meta.v1.Time |lastScaleTime is the last time the "
    "HorizontalPodAutoscaler scaled the number of pods; used by the autoscaler to control how often the number of "
    "pods is changed.",
    ".observedGeneration i64 |observedGeneration is the most recent generation observed by this autoscaler.",
    NULL,
};
