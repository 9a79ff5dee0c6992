{{/* Names and labels shared by every template. */}}
{{- define "platform.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The resource name of one app: <release>-platform-<app>. */}}
{{- define "platform.appName" -}}
{{- printf "%s-%s" (include "platform.fullname" .root) .app | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "platform.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "platform.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .app }}
{{- end -}}

{{/* The Secret every app reads INTERNAL_SECRET, MONGO_URL and REDIS_URL from. */}}
{{- define "platform.secretName" -}}
{{- default (include "platform.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/*
  The service manifest services.json, read by npm start and the tests too: one entry per app, in the file's order,
  with its name, valuesKey (the key of its values), port and metricsPort (in development; the chart's come from
  the values) and whom it serves (public: the edge; internal: this release's pods; none: no Service).
*/}}
{{- define "platform.services" -}}
{{- .Files.Get "services.json" -}}
{{- end -}}

{{/* The same entries by values key: a map, so `range` visits the apps sorted by that key. */}}
{{- define "platform.apps" -}}
{{- range include "platform.services" . | fromJsonArray }}
{{ .valuesKey }}: {{ toJson . }}
{{- end }}
{{- end -}}
