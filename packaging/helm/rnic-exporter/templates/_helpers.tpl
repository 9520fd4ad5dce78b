{{- define "rnic-exporter.labels" -}}
app.kubernetes.io/name: rnic-exporter
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "rnic-exporter.selectorLabels" -}}
app.kubernetes.io/name: rnic-exporter
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* True when the exporter gets a --web.config.file. */}}
{{- define "rnic-exporter.webConfig" -}}
{{- if or .Values.web.tls.enabled .Values.web.basicAuthUsers .Values.web.headers -}}true{{- end -}}
{{- end }}
