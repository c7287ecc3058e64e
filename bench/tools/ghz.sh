#!/usr/bin/env bash
# gRPC load on the inter-node service alone, with ghz: starts one node (its Replica service is what
# peers call), then drives Replica/Exchange, the bidirectional stream that carries replica reads
# and writes, with calls of MESSAGES batch messages each (default 10) of BATCH requests each
# (default 10, as a peer under load sends them), first writes of 1 KiB values then reads of those
# keys, at each rate of calls per second given (default 50 100 200 400). Prints ghz's summary per
# run; requests per second = calls per second x MESSAGES x BATCH.
#
#   bench/tools/ghz.sh [calls-per-second ...]
#
# ghz is built from the Go module proxy (pinned v0.121.0) into ~/.cache/kvorum-tools on first use.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
messages="${MESSAGES:-10}"
batch="${BATCH:-10}"
duration="${DURATION:-20s}"
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(50 100 200 400)
tools="$HOME/.cache/kvorum-tools"
ghz="$tools/ghz"
if [ ! -x "$ghz" ]; then
  mkdir -p "$tools"
  GOBIN="$tools" go install github.com/bojand/ghz/cmd/ghz@v0.121.0
fi
[ -f node/target/kvorum-node.jar ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
work=$(mktemp -d)
JAVA_OPTS="-Xms1g -Xmx1g" bin/kvorum \
  --node-id ghz-0 --http-host 127.0.0.1 --http-port 18190 --grpc-port 19190 \
  --data-dir "$work/data" > "$work/node.log" 2>&1 &
node=$!
trap 'kill $node 2>/dev/null; wait $node 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf http://127.0.0.1:18190/health/ready > /dev/null; do
  kill -0 $node 2>/dev/null || { cat "$work/node.log"; exit 1; }
  sleep 0.5
done
python3 - "$work" "$messages" "$batch" <<'PY'
import base64, json, os, sys, time
work, messages, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hlc = str(int(time.time() * 1000) << 16)
value = base64.b64encode(os.urandom(1024)).decode()
key = lambda i: base64.b64encode(f"k{i:010d}".encode()).decode()
write = lambda i: {"requestId": i + 1, "write": {"key": key(i),
                   "record": {"version": hlc, "value": value, "replicas": 1}}}
read = lambda i: {"requestId": i + 1, "read": {"key": key(i)}}
for name, request in (("write", write), ("read", read)):
    stream = [{"hlc": hlc, "requests": [request(m * batch + b) for b in range(batch)]}
              for m in range(messages)]
    json.dump(stream, open(f"{work}/{name}.json", "w"))
PY
proto=proto/src/main/protobuf
for op in write read; do
  for rate in "${rates[@]}"; do
    echo "== $op: $rate calls/s x $messages messages x $batch = $((rate * messages * batch)) requests/s, $duration"
    "$ghz" --insecure --proto "$proto/kvorum/replica/v1/replica.proto" --import-paths "$proto" \
      --call kvorum.replica.v1.Replica/Exchange -D "$work/$op.json" --rps "$rate" \
      --concurrency 16 --connections 1 --duration "$duration" 127.0.0.1:19190 |
      sed -n '/Summary:/,/Status code distribution:/p;/OK/p;/Error distribution/,$p'
  done
done
