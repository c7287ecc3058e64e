#!/usr/bin/env bash
# Constant-rate (open-loop) HTTP load on one kvorum node with vegeta: preloads 100,000 keys with
# 1 KiB values, then PUT and GET phases at each rate given (default 1000 2000 3000 req/s, 30 s
# each), and prints rate, p50, p99, p99.9, max and errors per phase.
#
#   bench/vegeta-single-node.sh [rate ...]
#
# Needs Go (vegeta is built from the Go module proxy into ~/.cache/kvorum-tools) and a built jar
# (./mvnw -q package -DskipTests). vegeta and the node share the machine: on 2 cores vegeta itself
# tops out near 3,300 req/s, so this measures the node only up to there.
set -euo pipefail
cd "$(dirname "$0")/.."
rates=("${@:-1000 2000 3000}")
read -r -a rates <<< "${rates[*]}"
tools="$HOME/.cache/kvorum-tools"
vegeta="$tools/vegeta"
if [ ! -x "$vegeta" ]; then
  mkdir -p "$tools"
  src=$(go mod download -json github.com/tsenart/vegeta/v12@v12.12.0 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  work=$(mktemp -d)
  cp -r "$src/." "$work" && chmod -R u+w "$work"
  (cd "$work" && GOFLAGS=-mod=mod go build -o "$vegeta" .)
  rm -rf "$work"
fi
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
out=$(mktemp -d)
"$java_bin" -Xmx1g -jar node/target/kvorum-node.jar --node-id bench --http-host 127.0.0.1 \
  --http-port 18080 --grpc-port 19090 --data-dir "$out/data" > "$out/node.log" 2>&1 &
node=$!
trap 'kill $node 2>/dev/null; wait $node 2>/dev/null; rm -rf "$out"' EXIT
until curl -sf http://127.0.0.1:18080/v0/status > /dev/null; do sleep 0.2; done
head -c 1024 /dev/urandom > "$out/value.bin"
python3 - "$out" <<'PY'
import random, sys
out = sys.argv[1]
with open(f"{out}/put.txt", "w") as f:
    for i in range(100000):
        f.write(f"PUT http://127.0.0.1:18080/v0/entity?id=key{i}\n@{out}/value.bin\n\n")
random.seed(1)
with open(f"{out}/get.txt", "w") as f:
    for i in range(300000):
        f.write(f"GET http://127.0.0.1:18080/v0/entity?id=key{random.randrange(100000)}\n\n")
PY
echo "preloading 100,000 keys..."
"$vegeta" attack -targets="$out/put.txt" -rate=2500/s -duration=41s -max-workers=256 > /dev/null
printf '%-5s %6s %9s %9s %9s %9s %7s\n' op rate p50 p99 p99.9 max errors
for rate in "${rates[@]}"; do
  for op in put get; do
    "$vegeta" attack -targets="$out/$op.txt" -rate="$rate/s" -duration=30s -max-workers=256 \
      > "$out/$op-$rate.bin"
    json=$("$vegeta" report -type=json < "$out/$op-$rate.bin")
    p999=$("$vegeta" report -type=hdrplot < "$out/$op-$rate.bin" |
      awk 'NR>1 && $2+0 >= 0.999 {print $1; exit}')
    python3 - "$op" "$rate" "$p999" "$json" <<'PY'
import json, sys
op, rate, p999, report = sys.argv[1], sys.argv[2], float(sys.argv[3]), json.loads(sys.argv[4])
lat = report["latencies"]
ms = lambda ns: ns / 1e6
codes = report["status_codes"]
errors = sum(n for c, n in codes.items() if not (c.startswith("2") or c == "404"))
print(f"{op:5} {rate:>6} {ms(lat['50th']):8.2f}m {ms(lat['99th']):8.2f}m {p999:8.2f}m {ms(lat['max']):8.2f}m {errors:7}")
PY
  done
done
