#!/usr/bin/env bash
# What anti-entropy costs (issue 12): on three local nodes holding KEYS keys of 1 KiB at from=3,
#   1. a full round over unchanged data (POST /v0/repair on node-0, timed until its exchanges with
#      both peers finished; run twice, the first mends whatever the preload left behind),
#   2. the rebuild of a wiped replica (node-2 stopped, its data directory deleted, started again,
#      a round asked for at once; timed until its exchanges with both peers finished),
#   3. the foreground p99 of GETs at FG_RATE/s spread over the nodes, 30 s, with no repair running,
#      while node-2 rebuilds the same way again (measured from 30 s after its restart, after GETs
#      that warm its JIT up), and again once the rebuild is done;
#   4. the streaming of a join (issue 13): node-3 started with --join, timed until it reports ready
#      (a normal member holding its keys), with GETs at FG_RATE/s through the three others for 30 s
#      from JOIN_DELAY s (default 0) after its start, and the CPU time each node spent meanwhile.
#      The cluster has four members after it.
# Load comes from wrk2 (WRK2=/path/to/wrk2/wrk, or wrk2 on the PATH; see bench/README.md). Nodes run
# with a 1 GiB heap, --repair-interval 1h (rounds only when asked) and --repair-rate REPAIR_RATE.
# OUT=DIR keeps the nodes' data there; with REUSE=1 a later run starts on it without a preload,
# FOREGROUND_ONLY=1 runs only steps 3 and 4, JOIN_ONLY=1 only step 4.
#
#   WRK2=/opt/wrk2/wrk bench/tools/repair.sh           # KEYS=1000000 REPAIR_RATE=8MiB FG_RATE=3000
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
keys="${KEYS:-1000000}"
repair_rate="${REPAIR_RATE:-8MiB}"
fg_rate="${FG_RATE:-3000}"
join_delay="${JOIN_DELAY:-0}"  # seconds after node-3's start before step 4's GETs
load_rate="${LOAD_RATE:-5000}"   # preload PUTs per second per node
wrk2="${WRK2:-$(command -v wrk2 || true)}"
[ -x "$wrk2" ] || { echo "bench/tools/repair.sh needs wrk2: WRK2=/path/to/wrk2/wrk (see bench/README.md)" >&2; exit 1; }
[ -f node/target/kvorum-node.jar ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
http=18280
grpc=19280
peers="node-0=127.0.0.1:$grpc,node-1=127.0.0.1:$((grpc + 1)),node-2=127.0.0.1:$((grpc + 2))"
pids=()

start() { # start node i in the background (node 3 joins through node 0)
  local i=$1 members=(--peers "$peers")
  [ "$i" -lt 3 ] || members=(--join "127.0.0.1:$grpc" --advertise-host 127.0.0.1)
  JAVA_OPTS="-Xms1g -Xmx1g" bin/kvorum \
    --node-id "node-$i" --http-host 127.0.0.1 --http-port $((http + i)) --grpc-port $((grpc + i)) \
    --data-dir "$work/data-$i" "${members[@]}" \
    --repair-interval 1h --repair-rate "$repair_rate" >> "$work/node-$i.log" 2>&1 &
  pids[i]=$!
}
ready() { # wait until node i reports ready
  local i=$1
  until curl -sf "http://127.0.0.1:$((http + i))/health/ready" > /dev/null; do
    kill -0 "${pids[i]}" 2> /dev/null || { tail -20 "$work/node-$i.log"; exit 1; }
    sleep 0.2
  done
}
cpu() { # CPU seconds (user and system) node i's process has used so far
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/${pids[$1]}/stat"
}
stop() { # SIGTERM node i and wait for it
  local i=$1
  kill "${pids[i]}" 2> /dev/null || true
  wait "${pids[i]}" 2> /dev/null || true
}
cleanup() {
  for i in 0 1 2 3; do stop "$i"; done
  [ -n "${OUT:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

round_done() { # true once node i's exchanges with every peer finished after Unix time $2
  curl -sf "http://127.0.0.1:$((http + $1))/v0/cluster" | python3 -c '
import datetime, json, sys
after = float(sys.argv[1])
peers = [n for n in json.load(sys.stdin)["nodes"] if not n.get("self")]
def done(n):
    r = n.get("repair") or {}
    t = r.get("lastRoundFinished")
    return t and datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp() > after
sys.exit(0 if all(done(n) for n in peers) else 1)' "$2"
}
repaired() { # records node i's last exchanges repaired, per peer
  curl -sf "http://127.0.0.1:$((http + $1))/v0/cluster" | python3 -c '
import json, sys
print(", ".join(n["id"] + ": " + str(n["repair"]["recordsRepaired"]) for n in json.load(sys.stdin)["nodes"] if n.get("repair")))'
}
repair_round() { # asks node i for a full round and waits for it; prints seconds
  local i=$1 t0
  t0=$(now)
  curl -sf -X POST "http://127.0.0.1:$((http + i))/v0/repair" > /dev/null
  until round_done "$i" "$t0"; do
    if [ "$(since "$t0" | cut -d. -f1)" -ge 900 ]; then
      echo "no round finished in 900 s (last errors in /v0/cluster of node-$i)"
      return
    fi
    sleep 0.2
  done
  since "$t0"
}
quiet() { # wait until no node has compaction pending (at most 120 s)
  for _ in $(seq 1 240); do
    local pending=0
    for i in 0 1 2; do
      p=$(curl -sf "http://127.0.0.1:$((http + i))/metrics" | awk '/^kvorum_storage_compaction_pending_bytes/ {s += $2} END {print int(s)}')
      pending=$((pending + p))
    done
    [ "$pending" -le 1048576 ] && return
    sleep 0.5
  done
}
gets() { # GETs at fg_rate over nodes 0-2 for 30 s; prints p99 and errors
  local tag=$1 load=()
  for i in 0 1 2; do
    "$wrk2" -t1 -c16 -d30s -R$((fg_rate / 3)) --latency -s bench/src/main/resources/io/kvorum/bench/wrk2/kvorum.lua \
      "http://127.0.0.1:$((http + i))" -- get "$keys" 1024 2 3 90 100 $((7 + i)) > "$work/gets-$tag-$i.txt" 2>&1 &
    load+=($!)
  done
  wait "${load[@]}"
  for i in 0 1 2; do
    echo "  node-$i: p50 $(awk '$1 == "50.000%" {print $2}' "$work/gets-$tag-$i.txt")," \
      "p99 $(awk '$1 == "99.000%" {print $2}' "$work/gets-$tag-$i.txt")," \
      "p99.9 $(awk '$1 == "99.900%" {print $2}' "$work/gets-$tag-$i.txt");" \
      "$(grep -E 'Non-2xx|Socket errors' "$work/gets-$tag-$i.txt" | tr '\n' ' ')"
  done
}
wipe_node_2() {
  stop 2
  rm -rf "$work/data-2"
  start 2
}

echo "work directory: $work; $keys keys, --repair-rate $repair_rate"
for i in 0 1 2; do start "$i"; done
for i in 0 1 2; do ready "$i"; done

if [ -d "$work/data-0" ] && [ -n "${REUSE:-}" ]; then
  echo "reusing the data of an earlier run in $work (REUSE set): no preload"
else
  # Preload: keys k0000000000 … in order, node i writing every third one, ack=2 from=3; passes of
  # wrk2 go on from where the last one's answered requests ended until every key was written.
  cat > "$work/preload.lua" << 'LUA'
-- Values are random bytes (a pool of 4,096, the key picking one in turn) so RocksDB cannot
-- compress them: a million keys make about 1 GiB on each node.
local n, stride, offset, first, keys, pool = 0, 0, 0, 0, 0, {}
function init(args)
  offset, stride, first, keys = tonumber(args[1]), tonumber(args[2]), tonumber(args[3]), tonumber(args[4])
  math.randomseed(offset + 1)
  for p = 1, 4096 do
    local bytes = {}
    for b = 1, 1024 do bytes[b] = string.char(math.random(0, 255)) end
    pool[p] = table.concat(bytes)
  end
end
function request()
  local k = (offset + (first + n) * stride) % keys
  n = n + 1
  return wrk.format("PUT", string.format("/v0/entity?id=k%010d&ack=2&from=3", k), nil, pool[k % 4096 + 1])
end
LUA
  t0=$(now)
  done_=(0 0 0)
  pass=0
  while [ $(( done_[0] + done_[1] + done_[2] )) -lt "$keys" ]; do
    pass=$((pass + 1))
    left=$(( keys - done_[0] - done_[1] - done_[2] ))
    seconds=$(( left / (3 * load_rate) + 5 ))
    load=()
    for i in 0 1 2; do
      "$wrk2" -t1 -c64 -d${seconds}s -R"$load_rate" -s "$work/preload.lua" \
        "http://127.0.0.1:$((http + i))" -- "$i" 3 "${done_[i]}" "$keys" > "$work/preload-$pass-$i.txt" 2>&1 &
      load+=($!)
    done
    wait "${load[@]}"
    for i in 0 1 2; do
      answered=$(awk '/requests in/ {print $1}' "$work/preload-$pass-$i.txt")
      errors=$(awk '/Non-2xx/ {print $NF}' "$work/preload-$pass-$i.txt")
      done_[i]=$(( done_[i] + ${answered:-0} - ${errors:-0} ))
    done
  done
  echo "preload: $(since "$t0") s in $pass passes of wrk2; $(( done_[0] + done_[1] + done_[2] )) PUTs answered"
  quiet
  echo "data directory of node-0: $(du -sh "$work/data-0" | cut -f1)"
fi
if [ -z "${FOREGROUND_ONLY:-}${JOIN_ONLY:-}" ]; then

  echo "1. full round of node-0, first (mends what the preload left): $(repair_round 0) s; repaired $(repaired 0)"
  echo "   full round of node-0 over unchanged data: $(repair_round 0) s; repaired $(repaired 0)"
  echo "   again: $(repair_round 0) s; repaired $(repaired 0)"

  t0=$(now)
  wipe_node_2
  ready 2
  echo "2. node-2 wiped and restarted, ready after $(since "$t0") s"
  rebuild=$(repair_round 2)
  echo "   its first round: $rebuild s (from the restart: $(since "$t0") s); repaired $(repaired 2)"
  echo "   data directory of node-2: $(du -sh "$work/data-2" | cut -f1) (node-0: $(du -sh "$work/data-0" | cut -f1))"
  quiet

fi
if [ -z "${JOIN_ONLY:-}" ]; then
  sleep 30   # what is left of the last rebuild's flushes and compactions
  gets warm-up > /dev/null   # the first GETs of the run: the JIT compiles their path
  echo "3. GETs at $fg_rate/s (ack=2 from=3), 30 s, no repair running:"
  gets idle
  wipe_node_2
  ready 2
  curl -sf -X POST "http://127.0.0.1:$((http + 2))/v0/repair" > /dev/null
  gets warm-up-2 > /dev/null   # node-2 restarted: its JIT compiles the GET path again
  echo "   the same while node-2 (wiped again) rebuilds, from 30 s after its restart:"
  gets repair
  echo "   node-2's rebuild was done during the GETs: $(round_done 2 0 && echo yes || echo no)"
  until round_done 2 0; do sleep 1; done
  sleep 30
  echo "   again with no repair running, once the rebuild is done:"
  gets after
fi

if [ -d "$work/data-3" ]; then
  echo "4. skipped: node-3 has joined the cluster in $work before; start from a fresh OUT"
  exit 0
fi
quiet
gets warm-up-join > /dev/null
echo "4. node-3 joins with --join (GETs at $fg_rate/s through nodes 0-2 meanwhile, 30 s from ${join_delay} s after its start):"
cpu_before=$(for i in 0 1 2; do cpu "$i"; done)
t0=$(now)
start 3
(sleep "$join_delay"; gets join) > "$work/gets-join.txt" &
getting=$!
ready 3
joined=$(since "$t0")
cpu_after=$(for i in 0 1 2 3; do cpu "$i"; done)
wait "$getting"
cat "$work/gets-join.txt"
python3 -c '
import sys
before = [float(x) for x in sys.argv[1].split()] + [0.0]
after = [float(x) for x in sys.argv[2].split()]
print("   CPU seconds spent by each node until node-3 was ready (GETs included):",
      ", ".join(f"node-{i} {a - b:.1f}" for i, (a, b) in enumerate(zip(after, before))))' "$cpu_before" "$cpu_after"
echo "   ready (a normal member) after $joined s; its data directory: $(du -sh "$work/data-3" | cut -f1)" \
  "($(python3 -c "import sys; print(f'{int(sys.argv[1]) / 1e6 / float(sys.argv[2]):.1f}')" "$(du -sb "$work/data-3" | cut -f1)" "$joined") MB/s over the join)"
curl -sf "http://127.0.0.1:$((http + 3))/v0/cluster" | python3 -c '
import json, sys
view = json.load(sys.stdin)
print("   node-3 sees epoch", view.get("epoch"), "and", ", ".join(n["id"] + " " + n["state"] for n in view["nodes"]))'
