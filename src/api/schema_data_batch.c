/* batch/v1: Job, CronJob. */
#include "api/schema_data.h"

#define TM ">io.k8s.apimachinery.pkg.apis.meta.v1._TypeMeta"
#define META                                                                                                           \
    ".metadata ObjectMeta |Standard object's metadata. More info: "                                                    \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
#define SPEC_DESC "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status"

const char *const kg_schema_data_batch[] = {
    "=io.k8s.api.batch.v1",
    "@Job Job represents the configuration of a single job.",
    TM,
    META,
    ".spec JobSpec |Specification of the desired behavior of a job. More info: " SPEC_DESC,
    ".status JobStatus |Current status of a job. More info: " SPEC_DESC,
    "@JobSpec JobSpec describes how the job execution will look like.",
    ".activeDeadlineSeconds i64 |Specifies the duration in seconds relative to the startTime that the job may be "
    "continuously active before the system tries to terminate it; value must be positive integer. If a Job is "
    "suspended (at creation or through an update), this timer will effectively be stopped and reset when the Job is "
    "resumed again.",
    ".backoffLimit i32 |Specifies the number of retries before marking this job failed. Defaults to 6, unless "
    "backoffLimitPerIndex (only Indexed Job) is specified. When backoffLimitPerIndex is specified, backoffLimit "
    "defaults to 2147483647.",
    ".backoffLimitPerIndex i32 |Specifies the limit for the number of retries within an index before marking this "
    "index as failed. When enabled the number of failures per index is kept in the pod's "
    "batch.kubernetes.io/job-index-failure-count annotation. It can only be set when Job's completionMode=Indexed.",
    ".completionMode s e=Indexed,NonIndexed |completionMode specifies how Pod completions are tracked. It can be "
    "`NonIndexed` (default) or `Indexed`.",
    ".completions i32 |Specifies the desired number of successfully finished pods the job should be run with. "
    "Setting to null means that the success of any pod signals the success of all pods, and allows parallelism to "
    "have any positive value. Setting to 1 means that parallelism is limited to 1 and the success of that pod "
    "signals the success of the job. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/",
    ".managedBy s |ManagedBy field indicates the controller that manages a Job. The k8s Job controller reconciles "
    "jobs which don't have this field at all or the field value is the reserved string `kubernetes.io/job-controller`.",
    ".manualSelector b |manualSelector controls generation of pod labels and pod selectors. Leave `manualSelector` "
    "unset unless you are certain what you are doing. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/"
    "#specifying-your-own-pod-selector",
    ".maxFailedIndexes i32 |Specifies the maximal number of failed indexes before marking the Job as failed, when "
    "backoffLimitPerIndex is set. Once the number of failed indexes exceeds this number the entire Job is marked as "
    "Failed and its execution is terminated.",
    ".parallelism i32 |Specifies the maximum desired number of pods the job should run at any given time. The actual "
    "number of pods running in steady state will be less than this number when ((.spec.completions - "
    ".status.successful) < .spec.parallelism), i.e. when the work left to do is less than max parallelism. More "
    "info: https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/",
    ".podFailurePolicy PodFailurePolicy |Specifies the policy of handling failed pods. In particular, it allows to "
    "specify the set of actions and conditions which need to be satisfied to take the associated action. If empty, "
    "the default behaviour applies - the counter of failed pods, represented by the jobs's .status.failed field, is "
    "incremented and it is checked against the backoffLimit.",
    ".podReplacementPolicy s e=Failed,TerminatingOrFailed |podReplacementPolicy specifies when to create replacement "
    "Pods. Possible values are: - TerminatingOrFailed means that we recreate pods when they are terminating (has a "
    "metadata.deletionTimestamp) or failed. - Failed means to wait until a previously created Pod is fully "
    "terminated (has phase Failed or Succeeded) before creating a replacement Pod.",
    ".selector io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector |A label query over pods that should match the pod "
    "count. Normally, the system sets this field for you. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
    ".successPolicy SuccessPolicy |successPolicy specifies the policy when the Job can be declared as succeeded. If "
    "empty, the default behavior applies - the Job is declared as succeeded only when the number of succeeded pods "
    "equals to the completions.",
    ".suspend b |suspend specifies whether the Job controller should create Pods or not. If a Job is created with "
    "suspend set to true, no Pods are created by the Job controller. Defaults to false.",
    ".template io.k8s.api.core.v1.PodTemplateSpec ! |Describes the pod that will be created when executing a job. "
    "The only allowed template.spec.restartPolicy values are 'Never' or 'OnFailure'. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/",
    ".ttlSecondsAfterFinished i32 |ttlSecondsAfterFinished limits the lifetime of a Job that has finished execution "
    "(either Complete or Failed). If this field is set, ttlSecondsAfterFinished after the Job finishes, it is "
    "eligible to be automatically deleted.",
    "@PodFailurePolicy PodFailurePolicy describes how failed pods influence the backoffLimit.",
    ".rules []PodFailurePolicyRule ! lt=atomic |A list of pod failure policy rules. The rules are evaluated in order. "
    "Once a rule matches a Pod failure, the remaining of the rules are ignored. At most 20 elements are allowed.",
    "@PodFailurePolicyRule PodFailurePolicyRule describes how a pod failure is handled when the requirements are met. "
    "One of onExitCodes and onPodConditions, but not both, can be used in each rule.",
    ".action s ! e=Count,FailIndex,FailJob,Ignore |Specifies the action taken on a pod failure when the requirements "
    "are satisfied. Possible values are: FailJob, FailIndex, Ignore, Count.",
    ".onExitCodes PodFailurePolicyOnExitCodesRequirement |Represents the requirement on the container exit codes.",
    ".onPodConditions []PodFailurePolicyOnPodConditionsPattern lt=atomic |Represents the requirement on the pod "
    "conditions. The requirement is represented as a list of pod condition patterns. The requirement is satisfied if "
    "at least one pattern matches an actual pod condition. At most 20 elements are allowed.",
    "@PodFailurePolicyOnExitCodesRequirement PodFailurePolicyOnExitCodesRequirement describes the requirement for "
    "handling a failed pod based on its container exit codes.",
    ".containerName s |Restricts the check for exit codes to the container with the specified name. When null, the "
    "rule applies to all containers.",
    ".operator s ! e=In,NotIn |Represents the relationship between the container exit code(s) and the specified "
    "values. Containers completed with success (exit code 0) are excluded from the requirement check.",
    ".values []i32 ! lt=set |Specifies the set of values. Each returned container exit code (might be multiple in "
    "case of multiple containers) is checked against this set of values with respect to the operator.",
    "@PodFailurePolicyOnPodConditionsPattern PodFailurePolicyOnPodConditionsPattern describes a pattern for matching "
    "an actual pod condition type.",
    ".status s |Specifies the required Pod condition status. To match a pod condition it is required that the "
    "specified status equals the pod condition status. Defaults to True.",
    ".type s ! |Specifies the required Pod condition type. To match a pod condition it is required that specified "
    "type equals the pod condition type.",
    "@SuccessPolicy SuccessPolicy describes when a Job can be declared as succeeded based on the success of some "
    "indexes.",
    ".rules []SuccessPolicyRule ! lt=atomic |rules represents the list of alternative rules for the declaring the "
    "Jobs as successful before `.status.succeeded >= .spec.completions`.",
    "@SuccessPolicyRule SuccessPolicyRule describes rule for declaring a Job as succeeded. Each rule must have at "
    "least one of the 'succeededIndexes' or 'succeededCount' specified.",
    ".succeededCount i32 |succeededCount specifies the minimal required size of the actual set of the succeeded "
    "indexes for the Job.",
    ".succeededIndexes s |succeededIndexes specifies the set of indexes which need to be contained in the actual set "
    "of the succeeded indexes for the Job. The list of indexes must be within 0 to '.spec.completions-1'.",
    "@JobStatus JobStatus represents the current state of a Job.",
    ".active i32 |The number of pending and running pods which are not terminating (without a deletionTimestamp).",
    ".completedIndexes s |completedIndexes holds the completed indexes when .spec.completionMode = 'Indexed' in a "
    "text format. The indexes are represented as decimal integers separated by commas.",
    ".completionTime t |Represents time when the job was completed. It is not guaranteed to be set in happens-before "
    "order across separate operations.",
    ".conditions []JobCondition lt=atomic mk=type ps=merge |The latest available observations of an object's current "
    "state. When a Job fails, one of the conditions will have type 'Failed' and status true. When a Job is "
    "completed, one of the conditions will have type 'Complete' and status true. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/",
    ".failed i32 |The number of pods which reached phase Failed.",
    ".failedIndexes s |FailedIndexes holds the failed indexes when spec.backoffLimitPerIndex is set.",
    ".ready i32 |The number of active pods which have a Ready condition and are not terminating (without a "
    "deletionTimestamp).",
    ".startTime t |Represents time when the job controller started processing a job.",
    ".succeeded i32 |The number of pods which reached phase Succeeded.",
    ".terminating i32 |The number of pods which are terminating (in phase Pending or Running and have a "
    "deletionTimestamp).",
    ".uncountedTerminatedPods UncountedTerminatedPods |uncountedTerminatedPods holds the UIDs of Pods that have "
    "terminated but the job controller hasn't yet accounted for in the status counters.",
    "@JobCondition JobCondition describes current state of a job.",
    ".lastProbeTime t |Last time the condition was checked.",
    ".lastTransitionTime t |Last time the condition transit from one status to another.",
    ".message s |Human readable message indicating details about last transition.",
    ".reason s |(brief) reason for the condition's last transition.",
    ".status s ! |Status of the condition, one of True, False, Unknown.",
    ".type s ! |Type of job condition, Complete or Failed.",
    "@UncountedTerminatedPods UncountedTerminatedPods holds UIDs of Pods that have terminated but haven't been "
    "accounted in Job status counters.",
    ".failed []s lt=set |failed holds UIDs of failed Pods.",
    ".succeeded []s lt=set |succeeded holds UIDs of succeeded Pods.",

    "@CronJob CronJob represents the configuration of a single cron job.",
    TM,
    META,
    ".spec CronJobSpec |Specification of the desired behavior of a cron job, including the schedule. More "
    "info: " SPEC_DESC,
    ".status CronJobStatus |Current status of a cron job. More info: " SPEC_DESC,
    "@CronJobSpec CronJobSpec describes how the job execution will look like and when it will actually run.",
    ".concurrencyPolicy s e=Allow,Forbid,Replace |Specifies how to treat concurrent executions of a Job. Valid values "
    "are: - 'Allow' (default): allows CronJobs to run concurrently; - 'Forbid': forbids concurrent runs, skipping "
    "next run if previous run hasn't finished yet; - 'Replace': cancels currently running job and replaces it with a "
    "new one",
    ".failedJobsHistoryLimit i32 |The number of failed finished jobs to retain. Value must be non-negative integer. "
    "Defaults to 1.",
    ".jobTemplate JobTemplateSpec ! |Specifies the job that will be created when executing a CronJob.",
    ".schedule s ! |The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
    ".startingDeadlineSeconds i64 |Optional deadline in seconds for starting the job if it misses scheduled time for "
    "any reason. Missed jobs executions will be counted as failed ones.",
    ".successfulJobsHistoryLimit i32 |The number of successful finished jobs to retain. Value must be non-negative "
    "integer. Defaults to 3.",
    ".suspend b |This flag tells the controller to suspend subsequent executions, it does not apply to already "
    "started executions. Defaults to false.",
    ".timeZone s |The time zone name for the given schedule, see "
    "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time "
    "zone of the kube-controller-manager process.",
    "@JobTemplateSpec JobTemplateSpec describes the data a Job should have when created from a template",
    ".metadata ObjectMeta |Standard object's metadata of the jobs created from this template. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    ".spec JobSpec |Specification of the desired behavior of the job. More info: " SPEC_DESC,
    "@CronJobStatus CronJobStatus represents the current state of a cron job.",
    ".active []io.k8s.api.core.v1.ObjectReference lt=atomic |A list of pointers to currently running jobs.",
    ".lastScheduleTime t |Information when was the last time the job was successfully scheduled.",
    ".lastSuccessfulTime t |Information when was the last time the job successfully completed.",
    NULL,
};
