#!/usr/bin/env bash
# Uncontended conditional writes, kvorum beside etcd 3.7.3 in one sitting (issue 42): three members
# of each on 127.0.0.1, one open-loop wrk2 per member, a fresh key per request and 1 KiB values:
# kvorum's `PUT If-None-Match: *` (ack=2 from=3) against etcd's Txn putting a key whose
# create_revision is 0 (its JSON gateway), and kvorum's plain `PUT` for the CPU ratio. Each system
# is warmed up (WARM_UP at 1,000/s, the JIT steady after), then measured at each of RATES for
# DURATION, then offered SATURATION for DURATION: the rate it delivers there is its saturated
# rate. CPU per request is the members' own (utime + stime from /proc) over the requests answered;
# the p50 and p99 are the highest of the three wrk2s' (CONNECTIONS, default 64, each).
# kvorum runs once per jar given (default node/target/kvorum-node.jar), so builds compare in the
# same sitting; etcd once. A jar may be followed by @ and node flags for that run only (for example
# `sync=node/target/kvorum-node.jar@--sync-writes true`).
#
#   ETCD=/path/to/etcd WRK2=/opt/wrk2/wrk flock /tmp/machine.lock bench/tools/cas-etcd.sh \
#     [LABEL=JAR[@FLAGS] ...]  # RATES="100 300 1000" SATURATION=9000 DURATION=30 WARM_UP=60
#
# ENVIRONMENT.md says how to build etcd 3.7.3 here. Results: OUT (default a temporary directory),
# a table on stdout; the members' logs and wrk2's outputs are kept under OUT.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
etcd="${ETCD:?set ETCD to an etcd 3.7.3 binary, or to skip for kvorum alone (a rerun of builds)}"
wrk2="${WRK2:-wrk}"
rates="${RATES:-100 300 1000}"
saturation="${SATURATION:-9000}"
duration="${DURATION:-30}"
warm_up="${WARM_UP:-60}"
value=1024
lua="$PWD/bench/tools/cas-etcd/requests.lua"
java_home=$(bin/find-java)
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
pids=()
tick=$(getconf CLK_TCK)
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2> /dev/null || true; done
  pids=()
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }

# CPU ticks of the members so far.
ticks() {
  local sum=0
  for p in "${pids[@]}"; do
    sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$sum"
}

# run LABEL KIND RATE SECONDS URL... : one wrk2 per URL at RATE/n each; prints
# "answered/s p50 p99 errors cpu-us-per-request".
run() {
  local label=$1 kind=$2 rate=$3 seconds=$4
  shift 4
  local n=$# i=0 before after out generators=()
  rm -f "$work"/wrk2-"$label"-"$kind"-"$rate"-*.txt
  before=$(ticks)
  for url in "$@"; do
    out="$work/wrk2-$label-$kind-$rate-$i.txt"
    "$wrk2" -t 2 -c "${CONNECTIONS:-64}" -d "${seconds}s" -R $((rate / n)) -L --timeout 10s -s "$lua" "$url" \
      -- "$kind" "$label$i$RANDOM" "$value" > "$out" 2>&1 &
    generators+=($!)
    i=$((i + 1))
  done
  wait "${generators[@]}" || true
  after=$(ticks)
  local files=("$work"/wrk2-"$label"-"$kind"-"$rate"-*.txt)
  awk -v seconds="$seconds" -v cpu=$(((after - before) * 1000000 / tick)) '
    / requests in / { answered += $1 }
    /Non-2xx or 3xx responses:/ { errors += $NF }
    /Socket errors:/ { for (f = 4; f <= NF; f += 2) { gsub(",", "", $f); errors += $f } }
    function ms(s) { if (s ~ /us$/) return s / 1000; if (s ~ /ms$/) return s + 0; if (s ~ /m$/) return s * 60000; return s * 1000 }
    / 50\.000% / { m = ms($2); if (m > m50) m50 = m }
    / 99\.000% / { m = ms($2); if (m > m99) m99 = m }
    END { printf "%.0f %.2f %.2f %d %.0f\n", answered / seconds, m50, m99, errors, cpu / (answered > 0 ? answered : 1) }
  ' "${files[@]}"
}

table() {
  printf '| %s | %s | %s/s | %s/s | %s ms | %s ms | %s | %s µs |\n' "$@"
}

measure() {
  local label=$1 kind=$2
  shift 2
  log "$label: warm-up, $warm_up s at 1000/s"
  run "$label" "$kind" 1000 "$warm_up" "$@" > /dev/null
  for rate in $rates; do
    log "$label: $kind at $rate/s"
    table "$label" "$kind" "$rate" $(run "$label" "$kind" "$rate" "$duration" "$@")
    sleep 5
  done
  log "$label: $kind offered $saturation/s"
  table "$label" "$kind" "$saturation" $(run "$label" "$kind" "$saturation" "$duration" "$@")
  sleep 5
}

kvorum() {
  local label=$1 jar=${2%%@*} flags=() urls=() peers=()
  [ "$jar" = "$2" ] || read -r -a flags <<< "${2#*@}"
  for i in 0 1 2; do peers+=("node-$i=127.0.0.1:$((24580 + i))"); done
  for i in 0 1 2; do
    mkdir -p "$work/$label/node-$i"
    "$java_home/bin/java" -Xms1g -Xmx1g -XX:+UseG1GC --enable-native-access=ALL-UNNAMED \
      -jar "$jar" --node-id "node-$i" --http-host 127.0.0.1 --http-port $((24480 + i)) \
      --grpc-port $((24580 + i)) --data-dir "$work/$label/node-$i" \
      --peers "$(IFS=,; echo "${peers[*]}")" "${flags[@]}" > "$work/$label/node-$i.log" 2>&1 &
    pids+=($!)
    urls+=("http://127.0.0.1:$((24480 + i))")
  done
  for url in "${urls[@]}"; do
    until curl -sf "$url/health/ready" > /dev/null; do sleep 0.5; done
  done
  measure "$label" create "${urls[@]}"
  log "$label: plain put at 1000/s"
  table "$label" put 1000 $(run "$label" put 1000 "$duration" "${urls[@]}")
  curl -s "${urls[0]}/metrics" | grep '^kvorum_paxos_phases_total' > "$work/$label/paxos-node-0.txt" || true
  cleanup
  rm -rf "${work:?}/$label"/node-*/
}

etcd_cluster() {
  local urls=() initial=()
  for i in 0 1 2; do initial+=("m$i=http://127.0.0.1:$((24780 + i))"); done
  for i in 0 1 2; do
    "$etcd" --name "m$i" --data-dir "$work/etcd/m$i" \
      --listen-client-urls "http://127.0.0.1:$((24680 + i))" \
      --advertise-client-urls "http://127.0.0.1:$((24680 + i))" \
      --listen-peer-urls "http://127.0.0.1:$((24780 + i))" \
      --initial-advertise-peer-urls "http://127.0.0.1:$((24780 + i))" \
      --initial-cluster "$(IFS=,; echo "${initial[*]}")" --initial-cluster-state new \
      --log-level error > "$work/etcd-m$i.log" 2>&1 &
    pids+=($!)
    urls+=("http://127.0.0.1:$((24680 + i))")
  done
  for url in "${urls[@]}"; do
    until curl -sf "$url/health" | grep -q true; do sleep 0.5; done
  done
  measure etcd txn "${urls[@]}"
  cleanup
  rm -rf "${work:?}/etcd"
}

[ $# -gt 0 ] || set -- "kvorum=node/target/kvorum-node.jar"
echo "| system | request | offered | answered | p50 | p99 | errors | CPU per request |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
[ "$etcd" = skip ] || etcd_cluster
for arg in "$@"; do
  kvorum "${arg%%=*}" "${arg#*=}"
done
log "outputs in $work"
