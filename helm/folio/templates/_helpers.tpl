{{/* Names: <release>-folio unless the release name already says folio. */}}
{{- define "folio.fullname" -}}
{{- if contains "folio" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-folio" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "folio.labels" -}}
app.kubernetes.io/name: folio
app.kubernetes.io/instance: {{ .Release.Name }}
{{ include "folio.commonLabels" . }}
{{- end -}}

{{/* labels that are not selectors */}}
{{- define "folio.commonLabels" -}}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* selector labels of one component: (dict "root" $ "component" "worker" "site" "emea") */}}
{{- define "folio.selectorLabels" -}}
app.kubernetes.io/name: folio
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- if .site }}
folio.dev/site: {{ .site }}
{{- end }}
{{- if .connector }}
folio.dev/connector: {{ .connector }}
{{- end }}
{{- end -}}

{{- define "folio.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ $tag }}
{{- end -}}
{{- end -}}

{{- define "folio.siteServiceAccount" -}}
{{ include "folio.fullname" .root }}-{{ .site.name }}
{{- end -}}

{{- define "folio.centralServiceAccount" -}}
{{ include "folio.fullname" . }}-central
{{- end -}}

{{/* the identity Fulcio certifies for a projected token of this service account */}}
{{- define "folio.builderId" -}}
https://kubernetes.io/namespaces/{{ .root.Release.Namespace }}/serviceaccounts/{{ .sa }}
{{- end -}}

{{/* Pod-level settings shared by every Folio pod: (dict "root" $ "sa" NAME) */}}
{{- define "folio.podSpec" -}}
serviceAccountName: {{ .sa }}
automountServiceAccountToken: false
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.image.pullSecrets }}
imagePullSecrets:
  {{- range . }}
  - name: {{ . }}
  {{- end }}
{{- end }}
{{- with .root.Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "folio.podMeta" -}}
labels:
  {{- include "folio.selectorLabels" . | nindent 2 }}
  {{- include "folio.commonLabels" .root | nindent 2 }}
  {{- with .root.Values.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
annotations:
  checksum/config: {{ include (print .root.Template.BasePath "/configmap.yaml") .root | sha256sum }}
  {{- with .root.Values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{- define "folio.containerBase" -}}
image: {{ include "folio.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
{{- end -}}

{{- define "folio.secretEnv" -}}
{{- if .secret.name }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret.name }}
      key: {{ .secret.key }}
{{- end }}
{{- end -}}

{{/* Environment of every Folio container: (dict "root" $ "sa" NAME "signs" BOOL) */}}
{{- define "folio.env" -}}
{{- $v := .root.Values -}}
- name: HOME
  value: /tmp
- name: XDG_CACHE_HOME
  value: /tmp/cache
- name: PREFECT_HOME
  value: /tmp/prefect
- name: PREFECT_API_URL
  value: {{ $v.prefect.apiUrl | quote }}
- name: PREFECT_SERVER_ANALYTICS_ENABLED
  value: "false"
{{- include "folio.secretEnv" (dict "env" "PREFECT_API_AUTH_STRING" "secret" $v.prefect.authStringSecret) }}
{{- include "folio.secretEnv" (dict "env" "PREFECT_API_KEY" "secret" $v.prefect.apiKeySecret) }}
- name: FOLIO_EVENTS_KAFKA_BOOTSTRAP
  value: {{ $v.kafka.bootstrap | quote }}
- name: FOLIO_EVENTS_KAFKA_SECURITY_PROTOCOL
  value: {{ $v.kafka.securityProtocol | quote }}
{{- if $v.kafka.saslMechanism }}
- name: FOLIO_EVENTS_KAFKA_SASL_MECHANISM
  value: {{ $v.kafka.saslMechanism | quote }}
- name: FOLIO_EVENTS_KAFKA_SASL_USERNAME
  value: {{ $v.kafka.saslUsername | quote }}
{{- end }}
{{- include "folio.secretEnv" (dict "env" "FOLIO_EVENTS_KAFKA_SASL_PASSWORD" "secret" $v.kafka.saslPasswordSecret) }}
{{- if $v.kafka.caSecret }}
- name: FOLIO_EVENTS_KAFKA_SSL_CAFILE
  value: /etc/folio/kafka-ca/ca.crt
{{- end }}
- name: FOLIO_EVENTS_TOPIC_PREFIX
  value: {{ $v.kafka.topicPrefix | quote }}
- name: FOLIO_EVENTS_PARTITIONS
  value: {{ $v.kafka.partitions | quote }}
- name: FOLIO_EVENTS_REPLICATION_FACTOR
  value: {{ $v.kafka.replicationFactor | quote }}
- name: FOLIO_EVENTS_SESSION_TIMEOUT_MS
  value: {{ $v.kafka.sessionTimeoutMs | quote }}
{{- if $v.store.endpointUrl }}
- name: FOLIO_S3_ENDPOINT_URL
  value: {{ $v.store.endpointUrl | quote }}
{{- end }}
- name: FOLIO_EVENTS_CLAIM_CHECK_STORE
  value: {{ $v.store.claimChecks | default (printf "%s/claim-checks" (trimSuffix "/" $v.store.url)) | quote }}
{{- if $v.store.region }}
- name: FOLIO_S3_REGION
  value: {{ $v.store.region | quote }}
- name: AWS_REGION
  value: {{ $v.store.region | quote }}
{{- end }}
{{- if $v.store.credentialsSecret }}
{{- include "folio.secretEnv" (dict "env" "AWS_ACCESS_KEY_ID" "secret" (dict "name" $v.store.credentialsSecret "key" "AWS_ACCESS_KEY_ID")) }}
{{- include "folio.secretEnv" (dict "env" "AWS_SECRET_ACCESS_KEY" "secret" (dict "name" $v.store.credentialsSecret "key" "AWS_SECRET_ACCESS_KEY")) }}
{{- end }}
- name: FOLIO_BACKEND
  value: {{ $v.llm.backend | quote }}
{{- if $v.llm.model }}
- name: FOLIO_LLM_MODEL
  value: {{ $v.llm.model | quote }}
{{- end }}
{{- if $v.llm.apiBase }}
- name: FOLIO_LLM_API_BASE
  value: {{ $v.llm.apiBase | quote }}
{{- end }}
{{- include "folio.secretEnv" (dict "env" "FOLIO_LLM_API_KEY" "secret" $v.llm.apiKeySecret) }}
{{- if $v.llm.rateLimit.name }}
- name: FOLIO_LLM_RATE_LIMIT
  value: {{ $v.llm.rateLimit.name | quote }}
{{- end }}
{{- if .signs }}
- name: FOLIO_SIGNING
  value: {{ $v.signing.mode | quote }}
- name: FOLIO_BUILDER_ID
  value: {{ include "folio.builderId" . | quote }}
{{- if eq $v.signing.mode "sigstore" }}
- name: FOLIO_SIGSTORE_TOKEN_FILE
  value: /var/run/secrets/folio/sigstore-token
- name: FOLIO_SIGSTORE_ISSUER
  value: {{ $v.signing.sigstore.issuer | quote }}
{{- if $v.signing.sigstore.trustConfigMap }}
- name: FOLIO_SIGSTORE_TRUST_CONFIG
  value: /etc/folio/sigstore/trust_config.json
{{- end }}
{{- else if eq $v.signing.mode "local" }}
- name: FOLIO_KEY_PATH
  value: /etc/folio/signing/signing-key.pem
{{- end }}
{{- end }}
{{- with $v.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Volumes every Folio pod has: (dict "root" $ "signs" BOOL) */}}
{{- define "folio.volumes" -}}
{{- $v := .root.Values -}}
- name: tmp
  emptyDir:
    sizeLimit: 1Gi
{{- if $v.kafka.caSecret }}
- name: kafka-ca
  secret:
    secretName: {{ $v.kafka.caSecret }}
{{- end }}
{{- if .signs }}
{{- if eq $v.signing.mode "sigstore" }}
- name: sigstore-token
  projected:
    sources:
      - serviceAccountToken:
          audience: {{ $v.signing.sigstore.audience }}
          expirationSeconds: {{ $v.signing.sigstore.tokenExpirationSeconds }}
          path: sigstore-token
{{- if $v.signing.sigstore.trustConfigMap }}
- name: sigstore-trust
  configMap:
    name: {{ $v.signing.sigstore.trustConfigMap }}
{{- end }}
{{- else if eq $v.signing.mode "local" }}
- name: signing-key
  secret:
    secretName: {{ $v.signing.local.keySecret }}
    defaultMode: 0400
{{- end }}
{{- end }}
{{- end -}}

{{- define "folio.volumeMounts" -}}
{{- $v := .root.Values -}}
- name: tmp
  mountPath: /tmp
{{- if $v.kafka.caSecret }}
- name: kafka-ca
  mountPath: /etc/folio/kafka-ca
  readOnly: true
{{- end }}
{{- if .signs }}
{{- if eq $v.signing.mode "sigstore" }}
- name: sigstore-token
  mountPath: /var/run/secrets/folio
  readOnly: true
{{- if $v.signing.sigstore.trustConfigMap }}
- name: sigstore-trust
  mountPath: /etc/folio/sigstore
  readOnly: true
{{- end }}
{{- else if eq $v.signing.mode "local" }}
- name: signing-key
  mountPath: /etc/folio/signing
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{- define "folio.envFrom" -}}
{{- with .root.Values.extraEnvFrom -}}
envFrom:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{/* a site merged over siteDefaults */}}
{{- define "folio.site" -}}
{{- $d := deepCopy .root.Values.siteDefaults -}}
{{- $s := mergeOverwrite $d (deepCopy .site) -}}
{{- toYaml $s -}}
{{- end -}}

{{/* a connector pod: (dict "ctx" … "args" … "token" … "resources" … "name" … "siteConfig" … "probes" BOOL "webhook" PORT) */}}
{{- define "folio.connectorPod" -}}
{{- $ctx := .ctx }}
{{- include "folio.podSpec" $ctx }}
containers:
  - name: connector
    {{- include "folio.containerBase" $ctx | nindent 4 }}
    args:
      {{- toYaml .args | nindent 6 }}
    env:
      {{- include "folio.env" $ctx | nindent 6 }}
      {{- if .token }}
      - name: FOLIO_SOURCE_TOKEN
        valueFrom:
          secretKeyRef:
            name: {{ .token.name }}
            key: {{ .token.key }}
      {{- end }}
    {{- with include "folio.envFrom" $ctx }}
    {{- . | nindent 4 }}
    {{- end }}
    {{- if .probes }}
    ports:
      - name: health
        containerPort: 8081
      {{- if .webhook }}
      - name: webhook
        containerPort: {{ .webhook }}
      {{- end }}
    startupProbe:
      httpGet: {path: /healthz, port: health}
      periodSeconds: 5
      failureThreshold: 24
    livenessProbe:
      httpGet: {path: /healthz, port: health}
      periodSeconds: 30
      timeoutSeconds: 5
      failureThreshold: 4
    readinessProbe:
      httpGet: {path: /readyz, port: health}
      periodSeconds: 15
    {{- end }}
    resources:
      {{- toYaml .resources | nindent 6 }}
    volumeMounts:
      {{- include "folio.volumeMounts" $ctx | nindent 6 }}
      - name: site-config
        mountPath: /etc/folio/site
        readOnly: true
      - name: cursor
        mountPath: /var/lib/folio/connectors
volumes:
  {{- include "folio.volumes" $ctx | nindent 2 }}
  - name: site-config
    configMap:
      name: {{ .siteConfig }}
  - name: cursor
    persistentVolumeClaim:
      claimName: {{ .name }}-cursor
{{- end -}}
