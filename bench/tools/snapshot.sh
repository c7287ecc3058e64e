#!/usr/bin/env bash
# Snapshots and loads on a node of ~1 GB (issue 25), in one run on three local nodes (1 GiB heaps):
#
#  1. KEYS live records of VALUE random bytes (default 1,000,000 of 1 KiB) written straight into
#     node-0's RocksDB with the node's own engine (jshell on the node's jar) and copied to node-1
#     and node-2 (each key is on all three replicas of a 3-node cluster), plus two load sources of
#     LOAD_KEYS other keys each; then the nodes start on them.
#  2. Snapshot: a writer at WRITE_RATE PUT/s (wrk2, spread over the nodes) for PHASE seconds without
#     a snapshot, then the same with `POST /v0/snapshots` on each node inside it, then with
#     `kvorum-node snapshot` (all three) inside it: the time each answers, the writer's p99 each
#     time, and the disk of node-0's data directory (du counts a hard-linked file once) right
#     after, and after node-0 is stopped and its live database compacted (every file rewritten:
#     the snapshots' worst case).
#  3. Load: the foreground p99 of FG_RATE requests/s (half PUT, half GET of the preloaded keys,
#     ack=2 from=3) for PHASE seconds without a load, while `kvorum-node load` runs at its default
#     --rate (as fast as it goes), and while it runs at --rate THROTTLED, on the three nodes of the
#     same run. A load still running when its phase ends is stopped.
#
#   flock /tmp/machine.lock bench/tools/snapshot.sh      # KEYS=1000000 VALUE=1024
#
# Needs wrk2 (WRK2, default /opt/wrk2/wrk; see bench/README.md). OUT keeps the work directory
# (and its ~3.5 GB of data); without it everything is deleted at the end.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
keys="${KEYS:-1000000}"
value="${VALUE:-1024}"
load_keys="${LOAD_KEYS:-150000}"
write_rate="${WRITE_RATE:-1000}"
fg_rate="${FG_RATE:-2000}"
throttled="${THROTTLED:-2000}"
phase="${PHASE:-30}"
warmup="${WARMUP:-60}"
wrk="${WRK2:-/opt/wrk2/wrk}"
jar=node/target/kvorum-node.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
java_home=$(bin/find-java)
work="${OUT:-$(mktemp -d)}"
http=26380
grpc=27380
peers="node-0=127.0.0.1:$grpc,node-1=127.0.0.1:$((grpc + 1)),node-2=127.0.0.1:$((grpc + 2))"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
  [ -n "${OUT:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

jshell() {
  "$java_home/bin/jshell" -R--enable-native-access=ALL-UNNAMED -R-Xmx2g --class-path "$jar" "$1" \
    2>&1 | tee "$work/$(basename "$1").log"
  ! grep -q '^Error:\|Exception' "$work/$(basename "$1").log" || { echo "bench/tools/snapshot.sh: $1 failed" >&2; exit 1; }
}

# --- 1. the data -------------------------------------------------------------------------------
mkdir -p "$work/data-0/db" "$work/source-a/db" "$work/source-b/db"
log "writing $keys records of $value bytes into node-0, two load sources of $load_keys"
FILL="$work/data-0/db:k:$keys;$work/source-a/db:a:$load_keys;$work/source-b/db:b:$load_keys" \
  VALUE=$value jshell bench/tools/fill.jsh > /dev/null
cp -a "$work/data-0" "$work/data-1"
cp -a "$work/data-0" "$work/data-2"
log "node data: $(du -sh "$work/data-0" | cut -f1) each; sources $(du -sh "$work/source-a" | cut -f1) each"

start_node() {
  JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC" bin/kvorum --node-id "node-$1" --http-host 127.0.0.1 \
    --http-port $((http + $1)) --grpc-port $((grpc + $1)) --data-dir "$work/data-$1" \
    --peers "$peers" >> "$work/node-$1.log" 2>&1 &
  pids[$1]=$!
}
ready() {
  for i in "$@"; do
    until curl -sf "http://127.0.0.1:$((http + i))/health/ready" > /dev/null; do
      kill -0 "${pids[i]}" 2> /dev/null || { tail -20 "$work/node-$i.log"; exit 1; }
      sleep 0.2
    done
  done
}
for i in 0 1 2; do start_node "$i"; done
ready 0 1 2

cat > "$work/put.lua" << 'LUA'
local body = string.rep("x", 1024)
request = function()
  return wrk.format("PUT", "/v0/entity?id=w" .. math.random(1, 100000) .. "&ack=2&from=3", nil, body)
end
LUA
cat > "$work/mixed.lua" << LUA
local body = string.rep("x", 1024)
local n = 0
request = function()
  n = n + 1
  local id = string.format("k%010d", math.random(0, $keys - 1))
  if n % 2 == 0 then
    return wrk.format("GET", "/v0/entity?id=" .. id .. "&ack=2&from=3")
  end
  return wrk.format("PUT", "/v0/entity?id=" .. id .. "&ack=2&from=3", nil, body)
end
LUA
# wrk2 on every node at rate/3 for secs; background: the caller waits for $wrk_pids.
wrk_pids=()
load_at() {
  local script=$1 rate=$2 secs=$3 tag=$4
  wrk_pids=()
  for i in 0 1 2; do
    "$wrk" -t1 -c8 -d"${secs}s" -R$((rate / 3)) -L -s "$work/$script" "http://127.0.0.1:$((http + i))" \
      > "$work/wrk-$tag-$i.txt" 2>&1 &
    wrk_pids+=($!)
  done
}
# The highest p99 and p99.9 of the three generators, and their errors.
tail_of() {
  python3 - "$work" "$1" << 'PY'
import re, sys
work, tag = sys.argv[1:]
p99 = p999 = 0.0; errors = requests = 0
for i in range(3):
    t = open(f'{work}/wrk-{tag}-{i}.txt').read()
    def ms(p):
        m = re.search(re.escape(p) + r'\s+([\d.]+)(ms|s|us)', t)
        return float(m.group(1)) * {'ms': 1, 's': 1000, 'us': 0.001}[m.group(2)] if m else float('nan')
    p99 = max(p99, ms('99.000%')); p999 = max(p999, ms('99.900%'))
    m = re.search(r'Non-2xx or 3xx responses: (\d+)', t); errors += int(m.group(1)) if m else 0
    m = re.search(r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)', t)
    errors += sum(map(int, m.groups())) if m else 0
    m = re.search(r'(\d+) requests in', t); requests += int(m.group(1)) if m else 0
print(f'{requests} requests, p99 {p99:.2f} ms, p99.9 {p999:.2f} ms, {errors} errors')
PY
}

log "warm-up: $fg_rate/s mixed for ${warmup}s (not measured)"
load_at mixed.lua "$fg_rate" "$warmup" warmup
wait "${wrk_pids[@]}"
# Each node builds its anti-entropy hash trees over all its records once after a start (about a
# minute for 1M records here, on the storage threads): no measurement before that is over.
for i in 0 1 2; do
  until grep -q 'hash trees built' "$work/node-$i.log"; do sleep 1; done
done
log "hash trees built on every node"

# --- 2. snapshots ------------------------------------------------------------------------------
log "writer at $write_rate PUT/s for ${phase}s, no snapshot"
load_at put.lua "$write_rate" "$phase" writer-alone
wait "${wrk_pids[@]}"
echo "  writer without a snapshot: $(tail_of writer-alone)"

log "writer at $write_rate PUT/s for ${phase}s; POST /v0/snapshots on each node inside it"
load_at put.lua "$write_rate" "$phase" writer-post
sleep $((phase / 2)) # wrk2 measures after its first 10 s
for i in 0 1 2; do
  curl -sf -o "$work/one-$i.json" -w '%{time_total}' -X POST \
    "http://127.0.0.1:$((http + i))/v0/snapshots?name=bench-one" > "$work/one-$i.time"
done
wait "${wrk_pids[@]}"
echo "  writer with the snapshots:  $(tail_of writer-post)"
for i in 0 1 2; do
  echo "  POST /v0/snapshots on node-$i answered in $(cat "$work/one-$i.time") s: $(cat "$work/one-$i.json")"
done

log "writer at $write_rate PUT/s for ${phase}s; kvorum-node snapshot inside it"
load_at put.lua "$write_rate" "$phase" writer-command
sleep $((phase / 2))
t0=$(date +%s.%N)
bin/kvorum snapshot --host 127.0.0.1 --port "$http" --name bench-all \
  --node "node-1=127.0.0.1:$((http + 1))" --node "node-2=127.0.0.1:$((http + 2))" \
  > "$work/all.txt" 2>&1
t1=$(date +%s.%N)
wait "${wrk_pids[@]}"
echo "  writer with the command:    $(tail_of writer-command)"
echo "  kvorum-node snapshot on 3 nodes took $(python3 -c "print(f'{$t1 - $t0:.2f}')") s, its JVM's start included:"
sed 's/^/    /' "$work/all.txt"
disk() {
  du -s --block-size=1M "$work/data-0/db" "$work/data-0/snapshots/bench-one" \
    "$work/data-0/snapshots/bench-all" | awk '{printf "%s %s MB; ", $2, $1}' | sed "s|$work/||g"
  echo
}
echo "  node-0 right after (du counts each hard-linked file once, live db first): $(disk)"

# --- 3. loads under a foreground load ---------------------------------------------------------
run_load() {
  local label=$1 tag=$2 rate=$3 source=$4
  log "foreground $fg_rate/s mixed for ${phase}s, ${label}"
  load_at mixed.lua "$fg_rate" "$phase" "$tag"
  local loader=
  if [ -n "$source" ]; then
    bin/kvorum load --from "$work/$source" --host 127.0.0.1 --port "$http" --rate "$rate" \
      > "$work/load-$tag.txt" 2>&1 &
    loader=$!
  fi
  wait "${wrk_pids[@]}"
  if [ -n "$loader" ]; then
    kill "$loader" 2> /dev/null && echo "  (the load was still running; stopped)" || true
    wait "$loader" 2> /dev/null || true
  fi
  echo "  foreground, $label: $(tail_of "$tag")"
  if [ -n "$source" ]; then
    tr '\r' '\n' < "$work/load-$tag.txt" | grep -v '^ *$' | tail -2 | sed 's/^/    load: /' || true
  fi
}
run_load "no load" alone 0 ""
run_load "load at the default rate" load-default 0 source-a
run_load "load at --rate $throttled" load-throttled "$throttled" source-b

# --- node-0's disk once its live database no longer shares the snapshot's files -------------
kill "${pids[0]}"; wait "${pids[0]}" 2> /dev/null || true
cat > "$work/compact.jsh" << JSH
import io.kvorum.node.storage.rocksdb.*;
var storage = java.util.concurrent.Executors.newFixedThreadPool(2);
var engine = RocksDbStorageEngine.open(java.nio.file.Path.of("$work/data-0/db"), RocksDbSettings.defaults(), storage);
var dbField = RocksDbStorageEngine.class.getDeclaredField("db"); dbField.setAccessible(true);
var handlesField = RocksDbStorageEngine.class.getDeclaredField("handles"); handlesField.setAccessible(true);
var db = (org.rocksdb.RocksDB) dbField.get(engine);
var force = new org.rocksdb.CompactRangeOptions().setBottommostLevelCompaction(org.rocksdb.CompactRangeOptions.BottommostLevelCompaction.kForce);
for (var handle : (java.util.List<org.rocksdb.ColumnFamilyHandle>) handlesField.get(engine)) db.compactRange(handle, null, null, force);
engine.close();
storage.shutdown();
/exit
JSH
log "node-0 stopped; compacting its live database (every file rewritten)"
jshell "$work/compact.jsh" > /dev/null
echo "  node-0 after the compaction: $(disk)"
