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
