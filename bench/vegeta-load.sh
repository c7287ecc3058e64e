#!/usr/bin/env bash
# Constant-rate (open-loop) HTTP load on kvorum with vegeta. Starts a cluster of NODES nodes on
# this machine (`kvorum-node local`; 1 node by default), preloads 100,000 keys with 1 KiB values,
# then runs a PUT and a GET phase of 30 s at each rate given (default 1000 2000 3000 req/s), with
# requests spread evenly over the nodes and default consistency (from = NODES, ack = majority,
# e.g. 2/3). Prints rate, p50, p99, p99.9, max and errors per phase.
#
#   NODES=3 bench/vegeta-load.sh [rate ...]
#
# Needs Go (vegeta is built from the Go module proxy into ~/.cache/kvorum-tools) and a built jar
# (./mvnw -q package -DskipTests). vegeta and the nodes share the machine: on 2 cores vegeta itself
# tops out near 3,300 req/s, so this measures kvorum only below that.
set -euo pipefail
cd "$(dirname "$0")/.."
nodes="${NODES:-1}"
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(1000 2000 3000)
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
"$java_bin" -jar node/target/kvorum-node.jar local --nodes "$nodes" --http-port 18080 \
  --grpc-port 19090 --data-dir "$out/data" > "$out/cluster.log" 2>&1 &
cluster=$!
trap 'kill $cluster 2>/dev/null; wait $cluster 2>/dev/null; rm -rf "$out"' EXIT
until grep -q "is ready" "$out/cluster.log"; do
  kill -0 $cluster 2>/dev/null || { cat "$out/cluster.log"; exit 1; }
  sleep 0.5
done
head -c 1024 /dev/urandom > "$out/value.bin"
python3 - "$out" "$nodes" <<'PY'
import random, sys
out, nodes = sys.argv[1], int(sys.argv[2])
url = lambda i: f"http://127.0.0.1:{18080 + i % nodes}/v0/entity"
with open(f"{out}/put.txt", "w") as f:
    for i in range(100000):
        f.write(f"PUT {url(i)}?id=key{i}\n@{out}/value.bin\n\n")
random.seed(1)
with open(f"{out}/get.txt", "w") as f:
    for i in range(300000):
        f.write(f"GET {url(i)}?id=key{random.randrange(100000)}\n\n")
PY
echo "cluster of $nodes node(s); preloading 100,000 keys..."
"$vegeta" attack -targets="$out/put.txt" -rate=2000/s -duration=51s -max-workers=256 > /dev/null
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
