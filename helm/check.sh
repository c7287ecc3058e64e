#!/usr/bin/env bash
# Checks the Helm chart helm/kvorum without a Kubernetes cluster; CI runs it (.ci/run), and so can
# anyone:
#
#   helm/check.sh
#
# 1. helm lint --strict, with the default values and with ci/production-values.yaml;
# 2. helm template both ways, the output kept in helm/target/;
# 3. strict validation of both renders against the Kubernetes JSON schemas of the oldest
#    supported (1.27) and the newest bundled (1.37) version, offline (kubernetes-validate);
# 4. the unit tests of the templates (helm-unittest, kvorum/tests/*_test.yaml);
# 5. bad values that must be refused with a message naming them (values.schema.json and the
#    templates' own checks);
# 6. every option of docs/configuration.md is a value (derived, or a key of config);
# 7. the alerting rules: promtool check rules on both renders, promtool test rules
#    (kvorum/tests/promtool/alerts.yaml), and every alert explained in docs/operations.md;
# 8. the Grafana dashboard (kvorum/dashboards/*.json): well-formed, every panel on the data source
#    variable (MonitoringQueriesTest checks that every metric it queries exists on a node);
# 9. the packaged chart leaves out the tests and the CI values (.helmignore).
#
# The tools are installed on first use into $KVORUM_TOOLS (default ~/.cache/kvorum-tools), through
# the Go module proxy and PyPI, and reused after: helm, helm-unittest, promtool,
# kubernetes-validate. Needs Go 1.24+ and Python 3 for that first install (about 6 minutes; later
# runs take seconds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

TOOLS="${KVORUM_TOOLS:-$HOME/.cache/kvorum-tools}"
HELM_VERSION=v3.22.0
# The Kubernetes version helm assumes without a cluster (lint's deprecation checks, `helm
# template`'s .Capabilities): the one of its client libraries, as in helm's release builds.
HELM_KUBE_MINOR=37
UNITTEST_VERSION=v1.1.2
# Prometheus's module at v0.54.1 is the newest whose promtool builds through the module proxy here.
PROMTOOL_VERSION=v0.54.1
VALIDATE_VERSION=1.37.0
KUBE_VERSIONS=(1.27.0 1.37.0)
# Not Kubernetes kinds, so no bundled schema: their fields are pinned by
# tests/servicemonitor_test.yaml, tests/prometheusrule_test.yaml and tests/tls_test.yaml instead
# (and promtool checks the rules themselves).
UNVALIDATED_KINDS="ServiceMonitor|PrometheusRule|Certificate"

HELM="$TOOLS/helm"
UNITTEST="$TOOLS/helm-unittest-$UNITTEST_VERSION"
PROMTOOL="$TOOLS/promtool-$PROMTOOL_VERSION"
VALIDATE="$TOOLS/venv/bin/kubernetes-validate"
OUT=target
started=$SECONDS

step() { printf '\n== %s\n' "$*"; }
die() { printf 'helm/check.sh: %s\n' "$*" >&2; exit 1; }

need_go() {
  command -v go > /dev/null || die "Go is needed to install $1 (or put it at $2)"
}

install_helm() {
  if [ -x "$HELM" ] && [ "$("$HELM" version --template '{{.Version}}' 2>/dev/null)" = "$HELM_VERSION" ]; then
    return
  fi
  need_go "helm $HELM_VERSION" "$HELM"
  echo "installing helm $HELM_VERSION into $TOOLS (about 2.5 minutes the first time)"
  mkdir -p "$TOOLS"
  local x="-X helm.sh/helm/v3"
  GOBIN="$TOOLS" GOFLAGS=-buildvcs=false go install -ldflags "-s -w \
    $x/internal/version.version=$HELM_VERSION \
    $x/pkg/lint/rules.k8sVersionMajor=1 $x/pkg/lint/rules.k8sVersionMinor=$HELM_KUBE_MINOR \
    $x/pkg/chartutil.k8sVersionMajor=1 $x/pkg/chartutil.k8sVersionMinor=$HELM_KUBE_MINOR" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

install_unittest() {
  [ -x "$UNITTEST" ] && return
  need_go "helm-unittest $UNITTEST_VERSION" "$UNITTEST"
  echo "installing helm-unittest $UNITTEST_VERSION into $TOOLS (about 1 minute the first time)"
  # `go install` refuses a module with replace directives: build a copy of the module instead.
  local dir src
  dir=$(go mod download -json "github.com/helm-unittest/helm-unittest@$UNITTEST_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir" ] || die "go mod download gave no directory for helm-unittest"
  src=$(mktemp -d)
  cp -r "$dir/." "$src"
  chmod -R u+w "$src"
  (cd "$src" && GOFLAGS=-buildvcs=false go build -o "$UNITTEST.partial" ./cmd/helm-unittest)
  rm -rf "$src"
  mv "$UNITTEST.partial" "$UNITTEST"
}

install_promtool() {
  [ -x "$PROMTOOL" ] && return
  need_go "promtool $PROMTOOL_VERSION" "$PROMTOOL"
  echo "installing promtool $PROMTOOL_VERSION into $TOOLS (about 2 minutes the first time)"
  # Neither `go install` of a newer version (a dependency the proxy refuses) nor of this one
  # (replace directives) works: build a copy of the module, as for helm-unittest.
  local dir src
  dir=$(go mod download -json "github.com/prometheus/prometheus@$PROMTOOL_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir" ] || die "go mod download gave no directory for prometheus"
  src=$(mktemp -d)
  cp -r "$dir/." "$src"
  chmod -R u+w "$src"
  (cd "$src" && GOFLAGS=-buildvcs=false go build -o "$PROMTOOL.partial" ./cmd/promtool)
  rm -rf "$src"
  mv "$PROMTOOL.partial" "$PROMTOOL"
}

install_validate() {
  if [ -x "$VALIDATE" ] && [ "$("$VALIDATE" --version 2>/dev/null)" = "$VALIDATE_VERSION" ]; then
    return
  fi
  command -v python3 > /dev/null || die "Python 3 is needed to install kubernetes-validate"
  echo "installing kubernetes-validate $VALIDATE_VERSION into $TOOLS/venv"
  python3 -m venv "$TOOLS/venv"
  "$TOOLS/venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$VALIDATE_VERSION"
}

# Validates every resource of a render strictly against each Kubernetes version; a resource
# without a schema fails unless its kind is one of UNVALIDATED_KINDS.
validate() {
  local file=$1 version report status=0
  for version in "${KUBE_VERSIONS[@]}"; do
    report=$("$VALIDATE" --strict -k "$version" "$file") || status=1
    printf '%s\n' "$report" | sed "s|^|  |"
    if printf '%s\n' "$report" | grep '^WARN' | grep -v -E "kind ($UNVALIDATED_KINDS) " > /dev/null; then
      status=1
    fi
    printf '%s\n' "$report" | grep -q 'passed for resource statefulset/' || status=1
  done
  return $status
}

# Renders with bad values: must fail, and say $expected.
refuse() {
  local expected=$1 output
  shift
  if output=$("$HELM" template demo kvorum "$@" 2>&1 > /dev/null); then
    echo "  NOT REFUSED: $*"
    return 1
  fi
  if [[ "$output" != *"$expected"* ]]; then
    printf '  REFUSED FOR ANOTHER REASON: %s\n%s\n' "$*" "$output"
    return 1
  fi
  printf '  %-60s -> %s\n' "$*" "$(printf '%s\n' "$output" | grep -F -- "$expected" | head -1 | sed 's/^[- ]*//')"
}

step "tools"
install_helm
install_unittest
install_promtool
install_validate
"$HELM" version --short
echo "helm-unittest $UNITTEST_VERSION, promtool $PROMTOOL_VERSION," \
  "kubernetes-validate $("$VALIDATE" --version)"

step "helm lint --strict"
"$HELM" lint --strict kvorum
"$HELM" lint --strict kvorum -f kvorum/ci/production-values.yaml

step "helm template: defaults, and ci/production-values.yaml"
mkdir -p "$OUT/promtool"
"$HELM" template kvorum kvorum --namespace kvorum > "$OUT/default.yaml"
"$HELM" template kvorum-prod kvorum --namespace storage \
  -f kvorum/ci/production-values.yaml > "$OUT/production.yaml"
# The defaults with the alerting rules on: what tests/promtool/alerts.yaml tests.
"$HELM" template kvorum kvorum --namespace kvorum \
  --set metrics.prometheusRule.enabled=true > "$OUT/default-rules.yaml"
for render in "$OUT/default.yaml" "$OUT/production.yaml"; do
  printf '  %s: %s\n' "$render" "$(grep '^kind:' "$render" | cut -d' ' -f2 | sort | tr '\n' ' ')"
done

step "strict schema validation (Kubernetes ${KUBE_VERSIONS[*]}), offline"
validate "$OUT/default.yaml"
validate "$OUT/production.yaml"

step "unit tests of the templates"
"$UNITTEST" --strict --color=false kvorum

step "bad values are refused"
refuse "at '/replicaCount': minimum: got 0, want 1" --set replicaCount=0
refuse "at '/ports/grpc': minimum: got -1, want 1" --set ports.grpc=-1
refuse "at '/service/port': minimum: got 0, want 1" --set service.port=0
refuse "additional properties 'replicas' not allowed" --set replicas=3
refuse "at '/config': additional properties 'requestTimout' not allowed" --set config.requestTimout=2s
refuse "at '/config/requestTimeout': '1sec' does not match pattern" --set config.requestTimeout=1sec
refuse "at '/config/hintWindow': '0h' does not match pattern" --set config.hintWindow=0h
refuse "at '/config/maxValueSize': '16XB' does not match pattern" --set config.maxValueSize=16XB
refuse "at '/podAntiAffinity/type': value must be one of 'preferred', 'required', 'none'" \
  --set podAntiAffinity.type=hard
refuse "at '/image/tag': got number, want string" --set image.tag=2
refuse "terminationGracePeriodSeconds 20 is too short" --set terminationGracePeriodSeconds=20
refuse "at '/metrics/prometheusRule/latency/for': '10min' does not match pattern" \
  --set metrics.prometheusRule.latency.for=10min
refuse "at '/metrics/prometheusRule/notEnoughReplicas/ratio': maximum: got 2, want 1" \
  --set metrics.prometheusRule.notEnoughReplicas.ratio=2
refuse "extraEnv: KVORUM_PEERS is set by the chart" \
  --set 'extraEnv[0].name=KVORUM_PEERS' --set 'extraEnv[0].value=x=y:1'
refuse "tls.http needs tls.enabled" --set tls.http=true
refuse "tls.enabled needs tls.secretName" --set tls.enabled=true
refuse "tls.certManager.enabled needs tls.certManager.issuerRef.name" \
  --set tls.enabled=true --set tls.certManager.enabled=true
refuse "auth.enabled needs auth.existingSecret" --set auth.enabled=true
refuse "at '/snapshots/keep': minimum: got 0, want 1" --set snapshots.keep=0
refuse "snapshots.schedule with auth.enabled needs snapshots.tokenSecret.name" \
  --set snapshots.schedule=@daily --set auth.enabled=true --set auth.existingSecret=t

step "every node option of docs/configuration.md is a value"
# The chart derives these from its own values; every other flag must be a key of config, in
# values.yaml and in values.schema.json.
"$TOOLS/venv/bin/python" - ../docs/configuration.md kvorum/values.yaml kvorum/values.schema.json <<'PY'
import json, re, sys
import yaml
docs, values, schema = (open(f, encoding="utf-8").read() for f in sys.argv[1:4])
derived = {"node-id": "the pod name", "peers": "cluster.initialSize", "http-port": "ports.http",
           "grpc-port": "ports.grpc", "data-dir": "persistence.mountPath",
           "join": "pod 0, for pods from cluster.initialSize up",
           "advertise-host": "the pod's DNS name, for pods from cluster.initialSize up"}
derived.update({"tls-cert": "tls.mountPath", "tls-key": "tls.mountPath", "tls-ca": "tls.mountPath",
                "http-tls": "tls.http"})
derived["auth-tokens"] = "auth (a mounted Secret)"
derived["zone"] = "zones (the zone label of each pod's node)"
flags = re.findall(r"^\| `--([a-z-]+)` \| `KVORUM_[A-Z_]+` \|", docs, re.M)
options = [f for f in flags if f not in derived] + (["log-level"] if "KVORUM_LOG_LEVEL" in docs else [])
config = yaml.safe_load(values)["config"]
typed = json.loads(schema)["properties"]["config"]["properties"]
missing = []
for option in options:
    head, *rest = option.split("-")
    key = head + "".join(w.capitalize() for w in rest)
    if key not in config or key not in typed:
        missing.append(f"--{option} (config.{key})")
if len(flags) < 20 or missing:
    sys.exit(f"  not in the chart's values: {', '.join(missing) or 'too few flags found in the docs'}")
derived_here = sum(f in derived for f in flags)
print(f"  {len(flags)} flags: {len(flags) - derived_here} in config, {derived_here} derived; plus log-level")
PY

step "alerting rules: promtool check rules, promtool test rules, docs/operations.md"
# The groups of each render's PrometheusRule, as a rule file.
"$TOOLS/venv/bin/python" - "$OUT" <<'PY'
import sys
import yaml
out = sys.argv[1]
for render, rules in (("default-rules", "promtool/rules.yaml"), ("production", "rules-production.yaml")):
    docs = [d for d in yaml.safe_load_all(open(f"{out}/{render}.yaml")) if d]
    found = [d for d in docs if d["kind"] == "PrometheusRule"]
    if len(found) != 1:
        sys.exit(f"  {render}.yaml: {len(found)} PrometheusRules, expected 1")
    with open(f"{out}/{rules}", "w") as f:
        yaml.safe_dump({"groups": found[0]["spec"]["groups"]}, f, sort_keys=False)
PY
"$PROMTOOL" check rules "$OUT/rules-production.yaml" "$OUT/promtool/rules.yaml"
cp kvorum/tests/promtool/alerts.yaml "$OUT/promtool/"
"$PROMTOOL" test rules "$OUT/promtool/alerts.yaml"
missing=""
for alert in $(sed -n 's/^ *- alert: //p' "$OUT/promtool/rules.yaml"); do
  grep -q "^### $alert\$" ../docs/operations.md || missing="$missing $alert"
done
[ -z "$missing" ] || die "alerts without a section '### <alert>' in docs/operations.md:$missing"
echo "  every alert has its section in docs/operations.md"

step "the Grafana dashboard"
"$TOOLS/venv/bin/python" - kvorum/dashboards/*.json <<'PY'
import json, sys
for path in sys.argv[1:]:
    board = json.load(open(path, encoding="utf-8"))
    problems = [f"no {k}" for k in ("uid", "title") if not board.get(k)]
    ids = [p["id"] for p in board["panels"]]
    if len(ids) != len(set(ids)):
        problems.append("duplicate panel ids")
    queries = 0
    for panel in board["panels"]:
        if panel["type"] == "row":
            continue
        if panel.get("datasource", {}).get("uid") != "${datasource}":
            problems.append(f"panel '{panel['title']}' is not on the data source variable")
        for target in panel.get("targets", []):
            queries += 1
            if target.get("datasource", {}).get("uid") != "${datasource}" or not target.get("expr"):
                problems.append(f"a query of '{panel['title']}' has no expr or its own data source")
    if problems:
        sys.exit(f"  {path}: " + "; ".join(problems))
    print(f"  {path}: {len(ids)} panels, {queries} queries")
PY

step "the packaged chart holds no tests"
rm -rf "$OUT/package"
"$HELM" package kvorum --destination "$OUT/package" > /dev/null
contents=$(tar -tzf "$OUT/package"/kvorum-*.tgz)
if printf '%s\n' "$contents" | grep -E '^kvorum/(tests|ci)/' > /dev/null; then
  die "the package holds tests/ or ci/; see kvorum/.helmignore"
fi
printf '%s\n' "$contents" | sed 's/^/  /'

printf '\nhelm/check.sh: chart checks passed in %d s\n' $((SECONDS - started))
