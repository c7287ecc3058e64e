#!/usr/bin/env bash
# YCSB's core workloads A-F against a local three-node kvorum (ack=2 from=3) and, with
# --store cassandra or both, against three Apache Cassandra 5.0 nodes (RF 3, QUORUM), with the
# same tool (go-ycsb: its client, workloads and measurements; kvorum's binding in ./kvorum,
# Cassandra's its own), 1 GiB heaps for every node, everything on this machine.
#
# For each store: start a fresh cluster, load the records (closed loop, --threads), warm up with
# workload A at the highest rate (--warm-up, not measured), then each workload at each fixed
# target rate for --duration (operations spread over --threads client threads; a run that cannot
# keep up delivers less and says so). Each run's output, the stores' CPU per operation (from
# /proc, the nodes' processes only) and a Markdown table go to --out.
#
#   bench/ycsb/ycsb.sh                                    # kvorum, 100,000 records, 1,000 and 3,000/s
#   bench/ycsb/ycsb.sh --store both --duration 60         # kvorum, then Cassandra, one sitting
#   bench/ycsb/ycsb.sh --workloads a,c --rates 2000 --records 10000 --duration 10 --warm-up 10
#   bench/ycsb/ycsb.sh --workloads e --rates 1000 --jar before.jar   # another build of the node
#
# Updates write every field (writeallfields=true) for both stores, so that an update is one write
# in each (bench/ycsb/README.md says why). The nodes run as `java -jar` (no AOT cache), 1 GiB heaps.
# Needs Go (go-ycsb comes from the Go module proxy) and a JDK 21+; builds kvorum-node.jar and the
# YCSB command when missing.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

store=kvorum records=100000 rates=1000,3000 duration=60 warmup=60 threads=64
workloads=a,b,c,f,d,e out="$root/bench/results/ycsb-$(date -u +%Y%m%d-%H%M%S)"
jar="$root/node/target/kvorum-node.jar"
while [ $# -gt 0 ]; do
  case "$1" in
    --store) store=$2 ;;
    --records) records=$2 ;;
    --rates) rates=$2 ;;
    --duration) duration=$2 ;;
    --warm-up) warmup=$2 ;;
    --threads) threads=$2 ;;
    --workloads) workloads=$2 ;;
    --out) out=$2 ;;
    --jar) jar=$(readlink -f "$2") ;;
    *) echo "ycsb.sh: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
  shift 2
done
mkdir -p "$out"
ycsb="$here/target/kvorum-ycsb"
[ -x "$ycsb" ] && [ -z "${REBUILD:-}" ] || (cd "$here" && go build -o "$ycsb" .)
[ -f "$jar" ] && [ -z "${REBUILD:-}" ] ||
  (cd "$root" && ./mvnw -q package -Dmaven.test.skip -pl node -am)
java_home=$("$root/bin/find-java")

# The CPU (clock ticks, utime + stime) of the store's node processes so far.
ticks() { for pid in $pids; do cut -d' ' -f14,15 "/proc/$pid/stat"; done | awk '{t += $1 + $2} END {print t}'; }

start_kvorum() {
  # bin/kvorum's flags; `local` starts its nodes with the same JVM and flags.
  "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError -Xms1g -Xmx1g \
    -jar "$jar" local --data-dir "$out/kvorum-data" > "$out/kvorum-nodes.log" 2>&1 &
  echo $! > "$out/kvorum.pid"
  for _ in $(seq 1 120); do
    ready=0
    for port in 8080 8081 8082; do
      curl -sf -o /dev/null "http://127.0.0.1:$port/v0/status" && ready=$((ready + 1))
    done
    [ $ready = 3 ] && break
    sleep 0.5
  done
  [ $ready = 3 ] || { echo "ycsb.sh: kvorum is not ready, see $out/kvorum-nodes.log" >&2; exit 1; }
  pids=$(pgrep -P "$(cat "$out/kvorum.pid")" | tr '\n' ' ')
  db_props=(-p kvorum.urls=http://127.0.0.1:8080,http://127.0.0.1:8081,http://127.0.0.1:8082
    -p kvorum.ack=2 -p kvorum.from=3)
}
stop_kvorum() {
  local launcher
  launcher=$(cat "$out/kvorum.pid")
  kill "$launcher" 2> /dev/null || true
  while kill -0 "$launcher" $pids 2> /dev/null; do sleep 0.5; done
  rm -rf "$out/kvorum-data"
}

start_cassandra() {
  "$here/cassandra/cassandra.sh" wipe > /dev/null 2>&1 || true
  "$here/cassandra/cassandra.sh" start | tee "$out/cassandra-start.log"
  "$here/cassandra/cassandra.sh" cql \
    "CREATE KEYSPACE IF NOT EXISTS test WITH replication = {'class':'SimpleStrategy','replication_factor':3}"
  pids=$("$here/cassandra/cassandra.sh" pids | tr '\n' ' ')
  db_props=(-p cassandra.cluster=127.0.0.1,127.0.0.2,127.0.0.3 -p cassandra.keyspace=test
    -p cassandra.connections=2)
}
stop_cassandra() { "$here/cassandra/cassandra.sh" wipe > /dev/null; }

# ycsb LOG load|run WORKLOAD [go-ycsb arguments]: one go-ycsb run, its output kept in LOG.
ycsb() {
  local log=$1 command=$2 workload=$3
  shift 3
  "$ycsb" "$command" "$db" -P "$here/workloads/workload$workload" -p recordcount="$records" \
    -p writeallfields=true -p dataintegrity=true -p silence=false -threads "$threads" \
    "${db_props[@]}" "$@" > "$log" 2>&1
}

# One line of the table per operation of a run: go-ycsb's summary after "finished in", its
# operation's errors beside it (those of requests cut off by the run's end in brackets).
summarise() {
  local log=$1 label=$2 cpu_us=$3
  awk -v label="$label" -v cpu="$cpu_us" '
    /^operation err:/ && /context (deadline exceeded|canceled)/ { cut++ }
    /finished in/ { summary = 1; next }
    summary && /Takes\(s\)/ {
      op = $1; line = $0; sub(/^[^-]*- /, "", line); n = split(line, kv, ", ")
      for (i = 1; i <= n; i++) { split(kv[i], p, ": "); v[op, p[1]] = p[2] }
      if (op != "TOTAL") ops[++count] = op
    }
    END {
      for (i = 1; i <= count; i++) {
        op = ops[i]
        if (op ~ /_ERROR$/) continue
        errors = v[op "_ERROR", "Count"] + 0
        printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.2f | %s | %s |\n", label, op, v[op, "Count"],
          v[op, "OPS"], v[op, "50th(us)"] / 1000, v[op, "99th(us)"] / 1000, v[op, "99.9th(us)"] / 1000,
          errors (cut > 0 && errors > 0 ? " (" cut " cut)" : ""), cpu
      }
    }' "$log"
}

table="$out/table.md"
[ -f "$table" ] || {
  echo "| store, workload, target/s | operation | count | ops/s | p50 ms | p99 ms | p99.9 ms | errors | store CPU µs/op |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$table"
IFS=, read -r -a rate_list <<< "$rates"
IFS=, read -r -a workload_list <<< "$workloads"
highest=$(printf '%s\n' "${rate_list[@]}" | sort -n | tail -1)
stores=$store
[ "$store" = both ] && stores="kvorum cassandra"
for db in $stores; do
  "start_$db"
  trap 'stop_$db' EXIT
  echo "$db: loading $records records"
  ycsb "$out/$db-load.log" load a
  summarise "$out/$db-load.log" "$db load" - | tee -a "$table"
  echo "$db: warming up for $warmup s at $highest/s"
  ycsb "$out/$db-warm-up.log" run a -target "$highest" -p operationcount=$((highest * warmup)) \
    -p maxexecutiontime="$warmup"
  for rate in "${rate_list[@]}"; do
    for w in "${workload_list[@]}"; do
      before=$(ticks)
      ycsb "$out/$db-$w-$rate.log" run "$w" -target "$rate" -p operationcount=$((rate * duration)) \
        -p maxexecutiontime="$duration"
      ops=$(awk '/finished in/ {s = 1} s && /^TOTAL/ {match($0, /Count: [0-9]+/); print substr($0, RSTART + 7, RLENGTH - 7)}' \
        "$out/$db-$w-$rate.log")
      cpu=$(awk -v t=$(($(ticks) - before)) -v n="${ops:-0}" -v hz="$(getconf CLK_TCK)" \
        'BEGIN {if (n > 0) printf "%.0f", t * 1e6 / hz / n; else printf "-"}')
      summarise "$out/$db-$w-$rate.log" "$db ${w^^} $rate" "$cpu" | tee -a "$table"
    done
  done
  "stop_$db"
  trap - EXIT
done
echo "table: $table"
