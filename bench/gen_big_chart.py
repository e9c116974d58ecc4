#!/usr/bin/env python3
"""Writes a chart shaped like the biggest public ones (kube-prometheus-stack, Bitnami's
umbrella charts), for bench/render.sh --big. Deterministic: the same tree every time.

    gen_big_chart.py OUT_DIR

The tree (3 levels of subcharts below the umbrella; every chart vendors the `common` library
chart, as Bitnami's do):

    big                      umbrella, 2 components,   values.yaml of thousands of lines
    ├── common               library: Bitnami-style named templates (names, labels,
    │                        tplvalues.render through tpl, images, affinities, merge)
    ├── app1 … app4          3 components each
    │   ├── common
    │   └── worker           2 components
    │       ├── common
    │       └── sidecar      2 components (disabled by its condition in app4)
    │           └── common

Each component renders a Deployment, a Service, a ConfigMap (toYaml of a large config tree,
nindent), a ServiceAccount and a PodDisruptionBudget, every one through the library's named
templates (include, tpl of values that hold templates, toYaml | nindent, fromYaml, merge).
"""
import sys
from pathlib import Path

LIBRARY = {
    "_names.tpl": r'''{{- define "common.names.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "common.names.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "common.names.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "common.names.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "common.names.component" -}}
{{- printf "%s-%s" (include "common.names.fullname" .context) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}
''',
    "_tplvalues.tpl": r'''{{- define "common.tplvalues.render" -}}
{{- $value := typeIs "string" .value | ternary .value (.value | toYaml) }}
{{- if contains "{{" (toJson .value) }}
  {{- if .scope }}
      {{- tpl (cat "{{- with $.RelativeScope -}}" $value "{{- end }}") (merge (dict "RelativeScope" .scope) .context) }}
  {{- else }}
    {{- tpl $value .context }}
  {{- end }}
{{- else }}
    {{- $value }}
{{- end }}
{{- end -}}

{{- define "common.tplvalues.merge" -}}
{{- $dst := dict -}}
{{- range .values -}}
{{- $dst = include "common.tplvalues.render" (dict "value" . "context" $.context "scope" $.scope) | fromYaml | merge $dst -}}
{{- end -}}
{{ $dst | toYaml }}
{{- end -}}
''',
    "_labels.tpl": r'''{{- define "common.labels.standard" -}}
{{- $default := dict "app.kubernetes.io/name" (include "common.names.name" .context) "helm.sh/chart" (include "common.names.chart" .context) "app.kubernetes.io/instance" .context.Release.Name "app.kubernetes.io/managed-by" .context.Release.Service -}}
{{- with .context.Chart.AppVersion -}}
{{- $_ := set $default "app.kubernetes.io/version" . -}}
{{- end -}}
{{ template "common.tplvalues.merge" (dict "values" (list .customLabels $default) "context" .context) }}
{{- end -}}

{{- define "common.labels.matchLabels" -}}
{{- $default := dict "app.kubernetes.io/name" (include "common.names.name" .context) "app.kubernetes.io/instance" .context.Release.Name -}}
{{- if .customLabels -}}
{{- $default = merge (pick (include "common.tplvalues.render" (dict "value" .customLabels "context" .context) | fromYaml) "app.kubernetes.io/part-of") $default -}}
{{- end -}}
{{ $default | toYaml }}
{{- end -}}
''',
    "_images.tpl": r'''{{- define "common.images.image" -}}
{{- $registryName := default .imageRoot.registry ((.global).imageRegistry) -}}
{{- $repositoryName := .imageRoot.repository -}}
{{- $separator := ":" -}}
{{- $termination := .imageRoot.tag | toString -}}
{{- if .imageRoot.digest -}}
{{- $separator = "@" -}}
{{- $termination = .imageRoot.digest | toString -}}
{{- end -}}
{{- if $registryName -}}
{{- printf "%s/%s%s%s" $registryName $repositoryName $separator $termination -}}
{{- else -}}
{{- printf "%s%s%s" $repositoryName $separator $termination -}}
{{- end -}}
{{- end -}}

{{- define "common.images.pullPolicy" -}}
{{- .imageRoot.pullPolicy | default "IfNotPresent" -}}
{{- end -}}
''',
    "_affinities.tpl": r'''{{- define "common.affinities.pods.soft" -}}
{{- $component := default "" .component -}}
{{- $customLabels := default (dict) .customLabels -}}
{{- $extraMatchLabels := default (dict) .extraMatchLabels -}}
preferredDuringSchedulingIgnoredDuringExecution:
  - podAffinityTerm:
      labelSelector:
        matchLabels: {{- (include "common.labels.matchLabels" (dict "customLabels" $customLabels "context" .context)) | nindent 10 }}
          {{- if not (empty $component) }}
          {{ printf "app.kubernetes.io/component: %s" $component }}
          {{- end }}
          {{- range $key, $value := $extraMatchLabels }}
          {{ $key }}: {{ $value | quote }}
          {{- end }}
      topologyKey: kubernetes.io/hostname
    weight: 1
{{- end -}}

{{- define "common.affinities.nodes" -}}
{{- if .values }}
nodeAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - preference:
        matchExpressions:
          - key: {{ .key }}
            operator: In
            values:
              {{- range .values }}
              - {{ . | quote }}
              {{- end }}
      weight: 1
{{- end }}
{{- end -}}

{{- define "common.resources.preset" -}}
{{- $presets := dict
  "nano" (dict "requests" (dict "cpu" "100m" "memory" "128Mi") "limits" (dict "cpu" "150m" "memory" "192Mi"))
  "small" (dict "requests" (dict "cpu" "500m" "memory" "512Mi") "limits" (dict "cpu" "750m" "memory" "768Mi"))
  "large" (dict "requests" (dict "cpu" "1" "memory" "2048Mi") "limits" (dict "cpu" "1.5" "memory" "3072Mi"))
-}}
{{- if hasKey $presets .type -}}
{{- index $presets .type | toYaml -}}
{{- else -}}
{{- printf "ERROR: Preset key '%s' invalid. Allowed values are %s" .type (join "," (keys $presets | sortAlpha)) | fail -}}
{{- end -}}
{{- end -}}
''',
}

DEPLOYMENT = r'''{{- $c := .Values.@C@ }}
{{- if $c.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
  {{- if .Values.commonAnnotations }}
  annotations: {{- include "common.tplvalues.render" (dict "value" .Values.commonAnnotations "context" $) | nindent 4 }}
  {{- end }}
spec:
  replicas: {{ $c.replicaCount }}
  revisionHistoryLimit: {{ $c.revisionHistoryLimit }}
  {{- if $c.updateStrategy }}
  strategy: {{- toYaml $c.updateStrategy | nindent 4 }}
  {{- end }}
  selector:
    matchLabels: {{- include "common.labels.matchLabels" (dict "customLabels" .Values.commonLabels "context" $) | nindent 6 }}
      app.kubernetes.io/component: @C@
  template:
    metadata:
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/@C@-configmap.yaml") . | sha256sum }}
        {{- if $c.podAnnotations }}
        {{- include "common.tplvalues.render" (dict "value" $c.podAnnotations "context" $) | nindent 8 }}
        {{- end }}
      labels: {{- include "common.labels.standard" (dict "customLabels" (merge (dict) $c.podLabels .Values.commonLabels) "context" $) | nindent 8 }}
        app.kubernetes.io/component: @C@
    spec:
      serviceAccountName: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
      {{- if $c.affinity }}
      affinity: {{- include "common.tplvalues.render" (dict "value" $c.affinity "context" $) | nindent 8 }}
      {{- else }}
      affinity:
        podAntiAffinity: {{- include "common.affinities.pods.soft" (dict "component" "@C@" "customLabels" .Values.commonLabels "context" $) | nindent 10 }}
        {{- include "common.affinities.nodes" (dict "key" $c.nodeAffinityPreset.key "values" $c.nodeAffinityPreset.values) | nindent 8 }}
      {{- end }}
      {{- if $c.nodeSelector }}
      nodeSelector: {{- include "common.tplvalues.render" (dict "value" $c.nodeSelector "context" $) | nindent 8 }}
      {{- end }}
      {{- if $c.tolerations }}
      tolerations: {{- include "common.tplvalues.render" (dict "value" $c.tolerations "context" $) | nindent 8 }}
      {{- end }}
      securityContext: {{- omit $c.podSecurityContext "enabled" | toYaml | nindent 8 }}
      containers:
        - name: @C@
          image: {{ include "common.images.image" (dict "imageRoot" $c.image "global" .Values.global) }}
          imagePullPolicy: {{ include "common.images.pullPolicy" (dict "imageRoot" $c.image) }}
          {{- if $c.command }}
          command: {{- include "common.tplvalues.render" (dict "value" $c.command "context" $) | nindent 12 }}
          {{- end }}
          args: {{- include "common.tplvalues.render" (dict "value" $c.args "context" $) | nindent 12 }}
          env:
            - name: POD_NAME
              valueFrom:
                fieldRef:
                  fieldPath: metadata.name
            {{- range $k, $v := $c.env }}
            - name: {{ $k | upper | replace "." "_" | replace "-" "_" }}
              value: {{ tpl (toString $v) $ | quote }}
            {{- end }}
            {{- if $c.extraEnvVars }}
            {{- include "common.tplvalues.render" (dict "value" $c.extraEnvVars "context" $) | nindent 12 }}
            {{- end }}
          ports:
            {{- range $name, $port := $c.ports }}
            - name: {{ $name }}
              containerPort: {{ $port }}
              protocol: TCP
            {{- end }}
          {{- if $c.resources }}
          resources: {{- toYaml $c.resources | nindent 12 }}
          {{- else }}
          resources: {{- include "common.resources.preset" (dict "type" $c.resourcesPreset) | nindent 12 }}
          {{- end }}
          livenessProbe: {{- omit $c.livenessProbe "enabled" | toYaml | nindent 12 }}
          readinessProbe: {{- omit $c.readinessProbe "enabled" | toYaml | nindent 12 }}
          volumeMounts:
            - name: config
              mountPath: /etc/@C@
            {{- if $c.extraVolumeMounts }}
            {{- include "common.tplvalues.render" (dict "value" $c.extraVolumeMounts "context" $) | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
{{- end }}
'''

SERVICE = r'''{{- $c := .Values.@C@ }}
{{- if $c.enabled }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
  {{- if or $c.service.annotations .Values.commonAnnotations }}
  {{- $annotations := include "common.tplvalues.merge" (dict "values" (list $c.service.annotations .Values.commonAnnotations) "context" .) }}
  annotations: {{- include "common.tplvalues.render" (dict "value" $annotations "context" $) | nindent 4 }}
  {{- end }}
spec:
  type: {{ $c.service.type }}
  ports:
    {{- range $name, $port := $c.ports }}
    - name: {{ $name }}
      port: {{ $port }}
      targetPort: {{ $name }}
      protocol: TCP
    {{- end }}
  selector: {{- include "common.labels.matchLabels" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
{{- end }}
'''

CONFIGMAP = r'''{{- $c := .Values.@C@ }}
{{- if $c.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
data:
  config.yaml: |
    {{- include "common.tplvalues.render" (dict "value" $c.config "context" $) | nindent 4 }}
  settings.json: {{ $c.config | toJson | quote }}
  {{- range $k, $v := $c.files }}
  {{ $k }}: |
    {{- tpl $v $ | nindent 4 }}
  {{- end }}
{{- end }}
'''

SERVICEACCOUNT = r'''{{- $c := .Values.@C@ }}
{{- if and $c.enabled $c.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
  {{- if or $c.serviceAccount.annotations .Values.commonAnnotations }}
  {{- $annotations := include "common.tplvalues.merge" (dict "values" (list $c.serviceAccount.annotations .Values.commonAnnotations) "context" .) }}
  annotations: {{- include "common.tplvalues.render" (dict "value" $annotations "context" $) | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ $c.serviceAccount.automountServiceAccountToken }}
{{- end }}
'''

PDB = r'''{{- $c := .Values.@C@ }}
{{- if and $c.enabled $c.pdb.create }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "common.names.component" (dict "component" "@C@" "context" $) }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
    app.kubernetes.io/component: @C@
spec:
  {{- if $c.pdb.minAvailable }}
  minAvailable: {{ $c.pdb.minAvailable }}
  {{- end }}
  {{- if or $c.pdb.maxUnavailable (not $c.pdb.minAvailable) }}
  maxUnavailable: {{ $c.pdb.maxUnavailable | default 1 }}
  {{- end }}
  selector:
    matchLabels: {{- include "common.labels.matchLabels" (dict "customLabels" .Values.commonLabels "context" $) | nindent 6 }}
      app.kubernetes.io/component: @C@
{{- end }}
'''

KINDS = {"deployment": DEPLOYMENT, "service": SERVICE, "configmap": CONFIGMAP,
         "serviceaccount": SERVICEACCOUNT, "pdb": PDB}

NOTES = r'''CHART NAME: {{ .Chart.Name }}
CHART VERSION: {{ .Chart.Version }}
APP VERSION: {{ .Chart.AppVersion }}

** Please be patient while the chart is being deployed **
{{- range $name, $sub := .Values }}
{{- if and (kindIs "map" $sub) (hasKey $sub "enabled") }}
  {{ $name }}: {{ ternary "enabled" "disabled" (eq (toString $sub.enabled) "true") }}
{{- end }}
{{- end }}
'''

EXTRA_TEMPLATES = {
    "networkpolicy.yaml": r'''{{- if .Values.networkPolicy.enabled }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "common.names.fullname" . }}
  namespace: {{ include "common.names.namespace" . | quote }}
  labels: {{- include "common.labels.standard" (dict "customLabels" .Values.commonLabels "context" $) | nindent 4 }}
spec:
  podSelector:
    matchLabels: {{- include "common.labels.matchLabels" (dict "customLabels" .Values.commonLabels "context" $) | nindent 6 }}
  policyTypes: {{- toYaml .Values.networkPolicy.policyTypes | nindent 4 }}
  ingress:
    {{- range .Values.networkPolicy.allowedPorts }}
    - ports:
        - port: {{ . }}
    {{- end }}
    {{- if .Values.networkPolicy.extraIngress }}
    {{- include "common.tplvalues.render" (dict "value" .Values.networkPolicy.extraIngress "context" $) | nindent 4 }}
    {{- end }}
{{- end }}
''',
    "extra-list.yaml": r'''{{- range .Values.extraDeploy }}
---
{{ include "common.tplvalues.render" (dict "value" . "context" $) }}
{{- end }}
''',
}


def pod_values(chart, comp, n):
    """A component's image, scheduling, pod and container settings (YAML lines, indent 2)."""
    fullname = "{{ include \\\"common.names.fullname\\\" . }}"  # escaped, as values files do
    return [
        "  image:", "    registry: docker.io", f"    repository: bench/{chart}-{comp}",
        f"    tag: 1.{n % 7}.{n % 11}", "    digest: \"\"", "    pullPolicy: IfNotPresent",
        "  updateStrategy:", "    type: RollingUpdate", "    rollingUpdate:",
        "      maxSurge: 25%", "      maxUnavailable: 0",
        "  podAnnotations:", "    prometheus.io/scrape: \"true\"",
        f"    prometheus.io/port: \"{9000 + n}\"",
        "    bench/release: \"{{ .Release.Name }}-{{ .Release.Namespace }}\"",
        "  podLabels:", f"    team: team-{n % 5}", f"    tier: tier-{n % 3}",
        "  nodeAffinityPreset:", "    key: node.kubernetes.io/instance-type",
        "    values:", "      - m5.large", "      - m5.xlarge", f"      - c5.{n % 4 + 1}xlarge",
        "  affinity: {}", "  nodeSelector:", "    kubernetes.io/os: linux",
        "  tolerations:", "    - key: dedicated", "      operator: Equal",
        f"      value: {chart}", "      effect: NoSchedule",
        "  podSecurityContext:", "    enabled: true", "    fsGroup: 1001",
        "    fsGroupChangePolicy: Always", "    sysctls: []", "    supplementalGroups: []",
        "  command: []", "  args:", f"    - --config=/etc/{comp}/config.yaml",
        "    - --log-level={{ .Values.global.logLevel }}", f"    - --port={8000 + n}",
        "  env:", f"    service.name: {comp}", "    release: \"{{ .Release.Name }}\"",
        f"    shard-count: \"{n % 8 + 1}\"", "    chart: \"{{ .Chart.Name }}\"",
        "  extraEnvVars:", "    - name: EXTRA_ONE", "      value: \"1\"",
        "    - name: RELEASE_FULL", f"      value: \"{fullname}\"",
        "  ports:", f"    http: {8000 + n}", f"    metrics: {9000 + n}",
        f"    grpc: {10000 + n}",
    ]


def resource_values(n):
    """Resources given outright (even seeds) or left to the library's presets (odd ones)."""
    if n % 2:
        return ["  resources: {}", f"  resourcesPreset: {['nano', 'small', 'large'][n % 3]}"]
    return ["  resources:", "    requests:", "      cpu: 250m", "      memory: 256Mi",
            "    limits:", "      cpu: \"1\"", "      memory: 1Gi",
            f"  resourcesPreset: {['nano', 'small', 'large'][n % 3]}"]


def probe_values(kind, path, delay):
    return [f"  {kind}:", "    enabled: true", "    httpGet:", f"      path: {path}",
            "      port: http", f"    initialDelaySeconds: {delay}", "    periodSeconds: 10",
            "    timeoutSeconds: 5", "    failureThreshold: 6", "    successThreshold: 1"]


def component_values(chart, comp, seed):
    """One component's values (YAML lines at indent 0), sized like a real chart's."""
    n = seed
    lines = [f"{comp}:", "  enabled: true", f"  replicaCount: {1 + n % 3}",
             "  revisionHistoryLimit: 10"]
    lines += pod_values(chart, comp, n) + resource_values(n)
    lines += probe_values("livenessProbe", "/healthz", 30)
    lines += probe_values("readinessProbe", "/ready", 5)
    lines += ["  extraVolumeMounts: []",
              "  service:", "    type: ClusterIP", "    annotations:",
              f"      bench/owner: {chart}-{comp}", "  serviceAccount:", "    create: true",
              "    automountServiceAccountToken: false", "    annotations: {}",
              "  pdb:", "    create: true", "    minAvailable: \"\"", "    maxUnavailable: \"\"",
              "  files:", "    banner.txt: |", "      {{ .Chart.Name }} {{ .Chart.Version }} on",
              "      {{ .Release.Namespace }}", "  config:"]
    return lines + config_tree(n, 4)


def config_tree(seed, indent):
    """A large nested configuration (~130 lines): what toYaml and toJson print."""
    pad = " " * indent
    out = []
    for s in range(4):
        out.append(f"{pad}section{s}:")
        out.append(f"{pad}  name: section-{seed}-{s}")
        out.append(f"{pad}  enabled: {'true' if (seed + s) % 2 else 'false'}")
        out.append(f"{pad}  ratio: {seed % 10}.{s}5")
        out.append(f"{pad}  timeout: {30 + s}s")
        out.append(f"{pad}  endpoint: \"http://{{{{ .Release.Name }}}}-svc{s}:{8000 + s}\"")
        out.append(f"{pad}  limits:")
        for k in range(6):
            out.append(f"{pad}    key{k}: {seed * 7 + s * 13 + k}")
        out.append(f"{pad}  hosts:")
        for h in range(5):
            out.append(f"{pad}    - host{h}.section{s}.example.com")
        out.append(f"{pad}  rules:")
        for r in range(3):
            out.append(f"{pad}    - match: \"^/api/v{r}/.*\"")
            out.append(f"{pad}      backend: backend-{s}-{r}")
            out.append(f"{pad}      weight: {r * 10 + s}")
            out.append(f"{pad}      headers:")
            out.append(f"{pad}        x-bench-{r}: value-{seed}")
            out.append(f"{pad}        x-trace: \"on\"")
    return out


def chart_values(chart, comps, seed):
    lines = ["global:", "  imageRegistry: \"\"", "  logLevel: info",
             "nameOverride: \"\"", "fullnameOverride: \"\"", "namespaceOverride: \"\"",
             "commonLabels:", f"  app.kubernetes.io/part-of: {chart}",
             "  bench/env: \"{{ .Release.Namespace }}\"",
             "commonAnnotations:", f"  bench/chart: {chart}",
             "networkPolicy:", "  enabled: true", "  policyTypes:", "    - Ingress",
             "  allowedPorts:", "    - 8080", "    - 9090", "  extraIngress:",
             "    - from:", "        - podSelector:", "            matchLabels:",
             "              app.kubernetes.io/instance: \"{{ .Release.Name }}\"",
             "extraDeploy:", "  - apiVersion: v1", "    kind: Secret", "    metadata:",
             f"      name: \"{{{{ .Release.Name }}}}-{chart}-extra\"", "    stringData:",
             "      token: \"{{ .Release.Name | sha256sum | trunc 16 }}\""]
    for i, comp in enumerate(comps):
        lines += component_values(chart, comp, seed + i)
    return lines


def override_values(prefix_indent, chart, comps, seed):
    """The umbrella's overrides of a subchart's components: a part of its big values file."""
    pad = " " * prefix_indent
    out = []
    for i, comp in enumerate(comps):
        out += [f"{pad}{comp}:", f"{pad}  replicaCount: {2 + (seed + i) % 4}",
                f"{pad}  podLabels:", f"{pad}    override: \"{chart}-{comp}\"", f"{pad}  config:"]
        out += config_tree(seed * 3 + i, prefix_indent + 4)
    return out


def write_library(base):
    (base / "templates").mkdir(parents=True)
    (base / "Chart.yaml").write_text(
        "apiVersion: v2\nname: common\ntype: library\nversion: 2.31.4\nappVersion: 2.31.4\n")
    for name, text in LIBRARY.items():
        (base / "templates" / name).write_text(text)


def write_chart(base, name, comps, seed, deps, extra):
    """A chart with COMPS' five templates each, the library, and DEPS [(name, condition)]."""
    (base / "templates").mkdir(parents=True)
    chart = [f"apiVersion: v2", f"name: {name}", f"version: 1.{seed}.0",
             f"appVersion: \"3.{seed}.1\"", "dependencies:",
             "  - name: common", "    version: 2.x.x", "    repository: oci://registry/charts",
             "    tags:", "      - bitnami-common"]
    for dep, cond in deps:
        chart += [f"  - name: {dep}", "    version: 1.x.x", f"    condition: {cond}"]
    (base / "Chart.yaml").write_text("\n".join(chart) + "\n")
    for comp in comps:
        for kind, text in KINDS.items():
            (base / "templates" / f"{comp}-{kind}.yaml").write_text(text.replace("@C@", comp))
    if extra:
        for fname, text in EXTRA_TEMPLATES.items():
            (base / "templates" / fname).write_text(text)
        (base / "templates" / "NOTES.txt").write_text(NOTES)
    write_library(base / "charts" / "common")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_big_chart.py OUT_DIR")
    root = Path(sys.argv[1])
    if root.exists():
        sys.exit(f"gen_big_chart.py: {root} exists; give a new directory")
    umbrella = ["gateway", "ui"]
    apps = [f"app{i}" for i in range(1, 5)]
    app_comps = ["server", "scheduler", "exporter"]
    worker_comps = ["worker", "reaper"]
    sidecar_comps = ["proxy", "agent"]
    write_chart(root, "big", umbrella, 0, [(a, f"{a}.enabled") for a in apps], True)
    values = chart_values("big", umbrella, 0)
    for i, app in enumerate(apps):
        app_dir = root / "charts" / app
        write_chart(app_dir, app, app_comps, 10 * (i + 1), [("worker", "worker.enabled")], True)
        worker_dir = app_dir / "charts" / "worker"
        write_chart(worker_dir, "worker", worker_comps, 10 * (i + 1) + 5,
                    [("sidecar", "sidecar.enabled")], True)
        write_chart(worker_dir / "charts" / "sidecar", "sidecar", sidecar_comps,
                    10 * (i + 1) + 7, [], False)
        (app_dir / "values.yaml").write_text(
            "\n".join(chart_values(app, app_comps, 10 * (i + 1))
                      + ["worker:", "  enabled: true"]) + "\n")
        (worker_dir / "values.yaml").write_text(
            "\n".join(chart_values("worker", worker_comps, 10 * (i + 1) + 5)
                      + ["sidecar:", "  enabled: true"]) + "\n")
        (worker_dir / "charts" / "sidecar" / "values.yaml").write_text(
            "\n".join(chart_values("sidecar", sidecar_comps, 10 * (i + 1) + 7)) + "\n")
        values += [f"{app}:", "  enabled: true"]
        values += override_values(2, app, app_comps, i)
        values += ["  worker:", "    enabled: true"]
        values += override_values(4, "worker", worker_comps, i + 5)
        values += ["    sidecar:", f"      enabled: {'false' if app == 'app4' else 'true'}"]
        values += override_values(6, "sidecar", sidecar_comps, i + 9)
    (root / "values.yaml").write_text("\n".join(values) + "\n")


if __name__ == "__main__":
    main()
