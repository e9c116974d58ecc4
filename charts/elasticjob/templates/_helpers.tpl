{{/*
Labels of every object of the job: the user's `labels` plus ours (ours win).
Call with (dict "root" $ "component" "etcd").
*/}}
{{- define "elasticjob.labels" -}}
{{- $own := dict "app.kubernetes.io/name" .root.Chart.Name "app.kubernetes.io/instance" .root.Release.Name "app.kubernetes.io/component" .component "app.kubernetes.io/managed-by" "ejob" -}}
{{- toYaml (merge $own (default (dict) .root.Values.labels)) }}
{{- end }}

{{/*
Labels that select the pods of one component. Call like elasticjob.labels.
*/}}
{{- define "elasticjob.selectorLabels" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The metadata block shared by every namespaced object: name, namespace, labels, annotations.
Call with (dict "root" $ "name" NAME "component" COMPONENT).
*/}}
{{- define "elasticjob.metadata" -}}
name: {{ .name }}
namespace: {{ .root.Release.Namespace }}
labels:
  {{- include "elasticjob.labels" . | nindent 2 }}
{{- with .root.Values.annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Name of the etcd rendezvous Service; the ElasticJob's rdzvEndpoint points at it.
*/}}
{{- define "elasticjob.etcdService" -}}
{{ .Release.Name }}-etcd-service
{{- end }}

{{/*
The value of --nproc_per_node: a number, `gpu` (= gpus, at least 1) or `auto` (= gpus, or 1).
*/}}
{{- define "elasticjob.nprocPerNode" -}}
{{- $gpus := int64 .Values.gpus -}}
{{- $nproc := toString .Values.nprocPerNode -}}
{{- if eq $nproc "gpu" -}}
{{- if lt $gpus 1 -}}
{{- fail "nprocPerNode: gpu needs gpus of at least 1" -}}
{{- end -}}
{{- $gpus -}}
{{- else if eq $nproc "auto" -}}
{{- max $gpus 1 -}}
{{- else -}}
{{- $nproc -}}
{{- end -}}
{{- end }}

{{/*
The engine the chart renders: `engine`, where `auto` (what `ejob template` and `helm template`
see when the job names none) is elasticjob; `ejob submit` resolves auto against the cluster
before rendering (docs/engines.md).
*/}}
{{- define "elasticjob.engine" -}}
{{- $e := default "auto" .Values.engine -}}
{{- if eq $e "auto" }}elasticjob{{ else }}{{ $e }}{{ end -}}
{{- end }}

{{/*
The worker settings every engine renders, checked and computed once: sets min, max,
replicas, requests, limits, affinity and tolerations on the dict it is called with
(dict "root" $); prints nothing.
*/}}
{{- define "elasticjob.workerSettings" -}}
{{- $v := .root.Values }}
{{- /* A local job (backend: local, as submit --local writes it) runs its script here: no image. */}}
{{- if and (not $v.image) (ne $v.backend "local") }}{{ fail "image: the worker image is required (--image IMAGE or image: in the job file)" }}{{ end }}
{{- if not $v.script }}{{ fail "script: the training script is required (-- SCRIPT [ARGS...] or script: in the job file)" }}{{ end }}
{{- $min := int64 $v.workers.min }}
{{- $max := int64 (default $v.workers.min $v.workers.max) }}
{{- $replicas := $min }}
{{- if not (kindIs "invalid" $v.workers.replicas) }}{{ $replicas = int64 $v.workers.replicas }}{{ end }}
{{- if lt $max $min }}{{ fail (printf "workers: max (%d) is below min (%d)" $max $min) }}{{ end }}
{{- if or (lt $replicas $min) (gt $replicas $max) }}{{ fail (printf "workers.replicas: %d is outside min:max (%d:%d)" $replicas $min $max) }}{{ end }}
{{- /* Requests and limits: the user's extras, then cpu/memory/gpus on top. */}}
{{- $requests := deepCopy (default (dict) $v.resources.requests) }}
{{- $limits := deepCopy (default (dict) $v.resources.limits) }}
{{- with $v.cpu }}{{ $_ := set $requests "cpu" . }}{{ end }}
{{- with $v.memory }}{{ $_ := set $requests "memory" . }}{{ $_ := set $limits "memory" . }}{{ end }}
{{- if gt (int64 $v.gpus) 0 }}{{ $_ := set $limits $v.gpuResource (int64 $v.gpus) }}{{ end }}
{{- /* Node affinity: spot terms (required or preferred) beside the user's own affinity. */}}
{{- $affinity := deepCopy (default (dict) $v.affinity) }}
{{- with $v.spot.nodeSelectorTerms }}
{{- $node := default (dict) $affinity.nodeAffinity }}
{{- if eq $v.spot.mode "required" }}
{{- if hasKey $node "requiredDuringSchedulingIgnoredDuringExecution" }}{{ fail "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution cannot be combined with spot.mode required" }}{{ end }}
{{- $_ := set $node "requiredDuringSchedulingIgnoredDuringExecution" (dict "nodeSelectorTerms" .) }}
{{- else }}
{{- $prefs := default (list) $node.preferredDuringSchedulingIgnoredDuringExecution }}
{{- range . }}{{ $prefs = append $prefs (dict "weight" 100 "preference" .) }}{{ end }}
{{- $_ := set $node "preferredDuringSchedulingIgnoredDuringExecution" $prefs }}
{{- end }}
{{- $_ := set $affinity "nodeAffinity" $node }}
{{- end }}
{{- $tolerations := concat (default (list) $v.tolerations) (default (list) $v.spot.tolerations) }}
{{- $_ := set . "min" $min }}
{{- $_ := set . "max" $max }}
{{- $_ := set . "replicas" $replicas }}
{{- $_ := set . "requests" $requests }}
{{- $_ := set . "limits" $limits }}
{{- $_ := set . "affinity" $affinity }}
{{- $_ := set . "tolerations" $tolerations }}
{{- end }}

{{/*
The worker's launcher arguments: --nproc_per_node, the script, its arguments. The image's
entrypoint (ejob-agent or torchrun) takes them; the engine's operator adds the rendezvous
(ElasticJob: flags before them; PyTorchJob, TrainJob: PET_* variables).
*/}}
{{- define "elasticjob.args" -}}
- --nproc_per_node={{ include "elasticjob.nprocPerNode" . }}
- {{ .Values.script | quote }}
{{- range .Values.scriptArgs }}
- {{ toString . | quote }}
{{- end }}
{{- end }}

{{/*
The worker container's env entries (`env`: NAME → value or NAME → a valueFrom source).
*/}}
{{- define "elasticjob.env" -}}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  {{- if kindIs "map" $value }}
  valueFrom:
    {{- toYaml $value | nindent 4 }}
  {{- else }}
  value: {{ toString $value | quote }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
The worker's volume mounts: the memory-backed /dev/shm, then each `storage` volume.
*/}}
{{- define "elasticjob.volumeMounts" -}}
- name: dshm
  mountPath: /dev/shm
{{- range $key, $s := .Values.storage }}
- name: {{ $key }}
  mountPath: {{ $s.mountPath }}
  {{- with $s.subPath }}
  subPath: {{ . }}
  {{- end }}
  {{- if $s.readOnly }}
  readOnly: true
  {{- end }}
{{- end }}
{{- end }}

{{/*
The worker's volumes: /dev/shm in memory (`shm` its size), and each `storage` volume's claim.
*/}}
{{- define "elasticjob.volumes" -}}
- name: dshm
  emptyDir:
    medium: Memory
    {{- with .Values.shm }}
    sizeLimit: {{ . }}
    {{- end }}
{{- range $key, $s := .Values.storage }}
- name: {{ $key }}
  persistentVolumeClaim:
    claimName: {{ default (printf "%s-%s" $.Release.Name $key) $s.existingClaim }}
    {{- if $s.readOnly }}
    readOnly: true
    {{- end }}
{{- end }}
{{- end }}

{{/*
A worker pod's spec as ElasticJob and PyTorchJob take it. Call with (dict "root" $ "w"
WORKER_SETTINGS "container" NAME): training-operator only sets its env on a container named
`pytorch`.
*/}}
{{- define "elasticjob.podSpec" -}}
{{- $root := .root }}
{{- $v := .root.Values }}
{{- $w := .w }}
{{- with $v.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
{{- with $v.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $v.imagePullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $w.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $w.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
containers:
  - name: {{ .container }}
    image: {{ $v.image | quote }}
    imagePullPolicy: {{ $v.imagePullPolicy }}
    args:
      {{- include "elasticjob.args" $root | nindent 6 }}
    {{- with $v.env }}
    env:
      {{- include "elasticjob.env" $root | trim | nindent 6 }}
    {{- end }}
    {{- with $v.envFrom }}
    envFrom:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    {{- if or $w.requests $w.limits }}
    resources:
      {{- with $w.requests }}
      requests:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $w.limits }}
      limits:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    volumeMounts:
      {{- include "elasticjob.volumeMounts" $root | nindent 6 }}
volumes:
  {{- include "elasticjob.volumes" $root | nindent 2 }}
{{- end }}

{{/*
The labels and annotations of a worker pod template's metadata. Call like elasticjob.labels.
*/}}
{{- define "elasticjob.podMetadata" -}}
labels:
  {{- include "elasticjob.labels" . | nindent 2 }}
{{- with .root.Values.annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Kubeflow's RunPolicy from `runPolicy` (the keys set, in YAML), "" when none is.
*/}}
{{- define "elasticjob.runPolicy" -}}
{{- $run := dict }}
{{- with .Values.runPolicy }}
{{- with .cleanPodPolicy }}{{ $_ := set $run "cleanPodPolicy" . }}{{ end }}
{{- range $key := list "activeDeadlineSeconds" "backoffLimit" "ttlSecondsAfterFinished" }}
{{- $value := index $.Values.runPolicy $key }}
{{- if not (kindIs "invalid" $value) }}{{ $_ := set $run $key (int64 $value) }}{{ end }}
{{- end }}
{{- end }}
{{- with $run }}{{ toYaml . }}{{ end }}
{{- end }}

{{/*
What a TrainJob (Trainer v2.3.0) cannot express, refused by key: an elastic range (its world
size is static), the run policy fields it lacks, settings no runtime patch reaches, and the
variables its torch plugin sets itself. Call with the worker settings (elasticjob.workerSettings).
*/}}
{{- define "elasticjob.trainjobRefusals" -}}
{{- $v := .root.Values }}
{{- $why := "engine trainjob cannot express it" }}
{{- if or (ne .min .max) (ne .replicas .min) }}{{ fail (printf "workers: engine trainjob runs a static world size (a TrainJob's numNodes), so workers.min, max and replicas must be equal; %d:%d starting at %d needs engine pytorchjob or elasticjob" .min .max .replicas) }}{{ end }}
{{- if not (kindIs "invalid" $v.runPolicy.backoffLimit) }}{{ fail (printf "runPolicy.backoffLimit: %s (a TrainJob has no such field; its runtime's JobSet failure policy decides the retries)" $why) }}{{ end }}
{{- if not (kindIs "invalid" $v.runPolicy.ttlSecondsAfterFinished) }}{{ fail (printf "runPolicy.ttlSecondsAfterFinished: %s (a TrainJob has no such field; a finished one stays until deleted)" $why) }}{{ end }}
{{- with $v.runPolicy.cleanPodPolicy }}{{ fail (printf "runPolicy.cleanPodPolicy: %s (a TrainJob has no such field)" $why) }}{{ end }}
{{- with $v.priorityClassName }}{{ fail (printf "priorityClassName: %s (runtimePatches cannot set a pod's priority class; set it in the TrainingRuntime)" $why) }}{{ end }}
{{- with $v.envFrom }}{{ fail (printf "envFrom: %s (a TrainJob's trainer takes env only: list the variables under env)" $why) }}{{ end }}
{{- if ne $v.imagePullPolicy "IfNotPresent" }}{{ fail (printf "imagePullPolicy: %s (the runtime's container decides it; set it in the TrainingRuntime)" $why) }}{{ end }}
{{- range $name, $_ := $v.env }}
{{- if has $name (list "PET_NNODES" "PET_NPROC_PER_NODE" "PET_NODE_RANK" "PET_MASTER_ADDR" "PET_MASTER_PORT") }}{{ fail (printf "env.%s: engine trainjob sets it itself (Trainer's torch plugin refuses it in env)" $name) }}{{ end }}
{{- end }}
{{- end }}

{{/*
The variables training-operator sets on a PyTorchJob's `pytorch` container itself (its values
would replace the job's), refused in `env` by name.
*/}}
{{- define "elasticjob.pytorchjobRefusals" -}}
{{- range $name, $_ := .Values.env }}
{{- if has $name (list "PET_RDZV_BACKEND" "PET_RDZV_ENDPOINT" "PET_RDZV_ID" "PET_NNODES" "PET_NPROC_PER_NODE") }}{{ fail (printf "env.%s: engine pytorchjob sets it itself (training-operator's elasticPolicy; workers.min/max and nprocPerNode say it)" $name) }}{{ end }}
{{- end }}
{{- end }}
