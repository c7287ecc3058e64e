{{/*
The chart's name, truncated to fit DNS labels.
*/}}
{{- define "kvorum.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's full name: the StatefulSet, its pods (<fullname>-<i>) and the Services. At most 52
characters: a StatefulSet's pods carry a controller-revision-hash label made of its name and 11
more characters, and labels stop at 63.
*/}}
{{- define "kvorum.fullname" -}}
{{- $name := "" }}
{{- if .Values.fullnameOverride }}
{{- $name = .Values.fullnameOverride }}
{{- else }}
{{- $base := default .Chart.Name .Values.nameOverride }}
{{- if contains $base .Release.Name }}
{{- $name = .Release.Name }}
{{- else }}
{{- $name = printf "%s-%s" .Release.Name $base }}
{{- end }}
{{- end }}
{{- $name | trunc 52 | trimSuffix "-" }}
{{- end }}

{{/*
The headless Service: the DNS subdomain of the pods.
*/}}
{{- define "kvorum.headlessName" -}}
{{- printf "%s-headless" (include "kvorum.fullname" . | trunc 43 | trimSuffix "-") }}
{{- end }}

{{- define "kvorum.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels the pods are selected by; they never change over the life of a release.
*/}}
{{- define "kvorum.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kvorum.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "kvorum.labels" -}}
helm.sh/chart: {{ include "kvorum.chart" . }}
{{ include "kvorum.selectorLabels" . }}
app.kubernetes.io/version: {{ include "kvorum.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: node
app.kubernetes.io/part-of: kvorum
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "kvorum.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/*
The DNS name of pod i: <fullname>-<i>.<headless>.<namespace>.svc.<clusterDomain>.
*/}}
{{- define "kvorum.podHost" -}}
{{- $root := index . 0 }}
{{- $i := index . 1 }}
{{- printf "%s-%d.%s" (include "kvorum.fullname" $root) $i (include "kvorum.podDomain" $root) }}
{{- end }}

{{/*
The domain of every pod's DNS name: <headless>.<namespace>.svc.<clusterDomain>.
*/}}
{{- define "kvorum.podDomain" -}}
{{- printf "%s.%s.svc.%s" (include "kvorum.headlessName" .) .Release.Namespace .Values.clusterDomain }}
{{- end }}

{{/*
--peers: the seed set (pods 0 … cluster.initialSize-1), as <pod name>=<pod DNS name>:<gRPC port>.
Node ids are pod names, so each seed finds itself in the list by the name the downward API gives
it. It does not depend on replicaCount: scaling leaves the pod template, and so the running pods,
alone.
*/}}
{{- define "kvorum.peers" -}}
{{- if gt (int .Values.cluster.initialSize) (int .Values.replicaCount) }}
{{- fail (printf "cluster.initialSize (%d) is more than replicaCount (%d): a new cluster would wait for seed pods that are never created; lower cluster.initialSize with replicaCount" (int .Values.cluster.initialSize) (int .Values.replicaCount)) }}
{{- end }}
{{- $peers := list }}
{{- range $i := until (int .Values.cluster.initialSize) }}
{{- $peers = append $peers (printf "%s-%d=%s:%d" (include "kvorum.fullname" $) $i (include "kvorum.podHost" (list $ $i)) (int $.Values.ports.grpc)) }}
{{- end }}
{{- join "," $peers }}
{{- end }}

{{/*
--join: where a pod beyond the seed set joins the running cluster, pod 0 at its DNS name.
*/}}
{{- define "kvorum.join" -}}
{{- printf "%s:%d" (include "kvorum.podHost" (list . 0)) (int .Values.ports.grpc) }}
{{- end }}

{{/*
A value of the config section as the node reads it: whole numbers without an exponent (values
files give numbers as floats), booleans as true/false.
*/}}
{{- define "kvorum.configValue" -}}
{{- if or (kindIs "float64" .) (kindIs "int64" .) (kindIs "int" .) }}
{{- int64 . }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/*
Whole seconds of a duration in the node's syntax (500ms, 30s, 5m, 2h, 7d, bare seconds), rounded
up.
*/}}
{{- define "kvorum.seconds" -}}
{{- $text := toString . }}
{{- $amount := regexFind "^[0-9]+" $text | int64 }}
{{- $unit := trimPrefix (regexFind "^[0-9]+" $text) $text }}
{{- if eq $unit "ms" }}{{ div (add $amount 999) 1000 }}
{{- else if eq $unit "m" }}{{ mul $amount 60 }}
{{- else if eq $unit "h" }}{{ mul $amount 3600 }}
{{- else if eq $unit "d" }}{{ mul $amount 86400 }}
{{- else }}{{ $amount }}
{{- end }}
{{- end }}

{{/*
The node's --shutdown-grace in seconds (10 when left to the node's default).
*/}}
{{- define "kvorum.shutdownGraceSeconds" -}}
{{- include "kvorum.seconds" (.Values.config.shutdownGrace | default "10s") }}
{{- end }}

{{/*
What a graceful stop can take, before closing: the preStop delay, the drain of requests in flight
(shutdownGrace) and hint delivery (shutdownGrace, at most 10 s; KvorumServer.shutdown).
*/}}
{{- define "kvorum.stopSeconds" -}}
{{- $grace := include "kvorum.shutdownGraceSeconds" . | int64 }}
{{- add (int64 .Values.preStop.delaySeconds) $grace (min $grace 10) }}
{{- end }}

{{/*
The longest the node's closing can take after hint delivery (NodeResources.close): the
HTTP event loops 6 s, the gRPC server 2 s, 2 s per peer channel, the timer and storage executors
5 s each, and a margin for RocksDB's close: 26 s + 2 s per peer, 30 s for three nodes.
*/}}
{{- define "kvorum.closeSeconds" -}}
{{- add 26 (mul 2 (sub (max (int64 .Values.replicaCount) 1) 1)) }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the value given, refused when it cannot cover the preStop delay,
the drain and hint delivery; else those plus the closing allowance.
*/}}
{{- define "kvorum.terminationGracePeriodSeconds" -}}
{{- $needed := include "kvorum.stopSeconds" . | int64 }}
{{- if kindIs "invalid" .Values.terminationGracePeriodSeconds }}
{{- add $needed (include "kvorum.closeSeconds" . | int64) }}
{{- else }}
{{- $given := int64 .Values.terminationGracePeriodSeconds }}
{{- if lt $given $needed }}
{{- fail (printf "terminationGracePeriodSeconds %d is too short: a stopping node needs preStop.delaySeconds + config.shutdownGrace + hint delivery = %d s before it closes (leave it null to compute it)" $given $needed) }}
{{- end }}
{{- $given }}
{{- end }}
{{- end }}

{{/*
JAVA_OPTS: the heap from the container's memory limit, exit on OutOfMemoryError (so that the
kubelet restarts the node instead of it limping on), native access for RocksDB and Netty.
*/}}
{{- define "kvorum.javaOpts" -}}
{{- $opts := list (printf "-XX:MaxRAMPercentage=%d" (int .Values.jvm.heapPercent)) "-XX:+ExitOnOutOfMemoryError" "--enable-native-access=ALL-UNNAMED" }}
{{- with .Values.jvm.extraOpts }}
{{- $opts = append $opts . }}
{{- end }}
{{- join " " $opts }}
{{- end }}

{{/*
Variables the chart sets itself: the same name in extraEnv would be a duplicate that Kubernetes
resolves silently (the last wins) and server-side apply refuses.
*/}}
{{- define "kvorum.checkExtraEnv" -}}
{{- $owned := list "KVORUM_NODE_ID" "KVORUM_PEERS" "KVORUM_JOIN" "KVORUM_ADVERTISE_HOST" "KVORUM_HTTP_PORT" "KVORUM_GRPC_PORT" "KVORUM_DATA_DIR" "JAVA_OPTS" }}
{{- if .Values.tls.enabled }}
{{- $owned = concat $owned (list "KVORUM_TLS_CERT" "KVORUM_TLS_KEY" "KVORUM_TLS_CA" "KVORUM_HTTP_TLS") }}
{{- end }}
{{- range $key, $value := .Values.config }}
{{- if not (or (kindIs "invalid" $value) (eq (toString $value) "")) }}
{{- $owned = append $owned (printf "KVORUM_%s" (snakecase $key | upper)) }}
{{- end }}
{{- end }}
{{- if .Values.auth.enabled }}
{{- $owned = append $owned "KVORUM_AUTH_TOKENS" }}
{{- end }}
{{- range .Values.extraEnv }}
{{- if has .name $owned }}
{{- fail (printf "extraEnv: %s is set by the chart; set it through config, ports, persistence.mountPath or jvm instead (a config key set to null leaves its variable free; the node id and peers are derived)" .name) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The Secret holding tls.crt, tls.key and ca.crt: the one given, else the one the chart's
cert-manager Certificate writes.
*/}}
{{- define "kvorum.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "kvorum.fullname" .)) .Values.tls.secretName }}
{{- end }}

{{/*
TLS values that cannot work together are refused with a message naming them.
*/}}
{{- define "kvorum.checkTls" -}}
{{- if and .Values.tls.http (not .Values.tls.enabled) }}
{{- fail "tls.http needs tls.enabled: HTTPS uses the nodes' certificate" }}
{{- end }}
{{- if .Values.tls.enabled }}
{{- if and (not .Values.tls.certManager.enabled) (not .Values.tls.secretName) }}
{{- fail "tls.enabled needs tls.secretName (an existing Secret with tls.crt, tls.key and ca.crt) or tls.certManager.enabled" }}
{{- end }}
{{- if and .Values.tls.certManager.enabled (not .Values.tls.certManager.issuerRef.name) }}
{{- fail "tls.certManager.enabled needs tls.certManager.issuerRef.name" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The node's --auth-tokens file: the tokens Secret's key, where the Secret is mounted. Fails when
tokens are on without a Secret to read them from.
*/}}
{{- define "kvorum.authTokensFile" -}}
{{- if not .Values.auth.existingSecret }}
{{- fail "auth.enabled needs auth.existingSecret: the name of a Secret holding the tokens file (one \"TOKEN ROLE\" per line), e.g. kubectl create secret generic kvorum-tokens --from-file=tokens=./tokens" }}
{{- end }}
{{- printf "%s/%s" (trimSuffix "/" .Values.auth.mountPath) .Values.auth.secretKey }}
{{- end }}

{{/*
The pods' service account: the one named in serviceAccountName, else, when zones are on (the init
container needs one to read its node), one the chart creates; empty: the namespace's default.
*/}}
{{- define "kvorum.serviceAccountName" -}}
{{- if .Values.serviceAccountName -}}
{{- .Values.serviceAccountName -}}
{{- else if .Values.zones.enabled -}}
{{- include "kvorum.fullname" . -}}
{{- end -}}
{{- end -}}

{{/* Where the init container leaves the node's zone for the node. */}}
{{- define "kvorum.zoneDir" -}}
/var/run/kvorum/zone
{{- end -}}

{{/*
Labels of the snapshots CronJob and its pods: another app.kubernetes.io/name than the nodes', so
that neither the Services, the PodDisruptionBudget nor the NetworkPolicy's peers select them.
*/}}
{{- define "kvorum.snapshotsLabels" -}}
helm.sh/chart: {{ include "kvorum.chart" . }}
app.kubernetes.io/name: {{ include "kvorum.name" . }}-snapshots
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "kvorum.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: snapshots
app.kubernetes.io/part-of: kvorum
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "kvorum.backupsLabels" -}}
helm.sh/chart: {{ include "kvorum.chart" . }}
app.kubernetes.io/name: {{ include "kvorum.name" . }}-backups
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ include "kvorum.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: backups
app.kubernetes.io/part-of: kvorum
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
