#!/usr/bin/env bash
# Backups to object storage of nodes of ~1 GB (issue 44), in one run on three local nodes (1 GiB
# heaps) and a local SeaweedFS (`weed mini`, its S3 API on 127.0.0.1, one bucket):
#
#  1. KEYS live records of VALUE random bytes (default 1,000,000 of 1 KiB) written straight into
#     node-0's RocksDB with the node's own engine (jshell on the node's jar, fill.jsh) and copied
#     to node-1 and node-2 (each key is on all three replicas of a 3-node cluster); the nodes start
#     on them, SeaweedFS beside them.
#  2. A foreground of FG_RATE requests/s (wrk2, half PUT, half GET of the preloaded keys,
#     ack=2 from=3, spread over the nodes) warmed up WARMUP s, then PHASE s alone: its p99.
#  3. The same foreground with `kvorum-node backup --to s3://…` of the whole cluster started 12 s
#     into it (after wrk2's calibration); the foreground runs on until 2 s after the backup ends,
#     and at least PHASE s, so its p99 covers the whole backup: the backup's wall time (its JVM's
#     start included), what it sent (its own summary), MB/s, the foreground's p99.
#  4. A second backup right after, with no foreground (incremental: only the files not stored yet
#     are sent): its time, and the bytes and files sent and already stored. Then SPOT random
#     preloaded keys read from the cluster (nothing writes until they are).
#  5. `kvorum-node backup verify` of the second backup (every file fetched and hashed): its time.
#     Then the foreground alone again for PHASE s (a second baseline).
#  6. The three nodes stopped; three fresh, empty ones started on new data directories, and
#     `kvorum-node restore --from` the second backup into them through node-0, nothing else
#     running: its wall time, records/s, MB/s (the backup's bytes over the wall time); the SPOT
#     keys read back and compared with what the first cluster answered.
#  7. Unless RESTORE_FG_RATE is 0: the same restore into three more fresh nodes, holding FG_KEYS
#     other keys (default 100,000), while a foreground of RESTORE_FG_RATE requests/s (default
#     FG_RATE; half PUT, half GET of those other keys), warmed up WARMUP s, runs until it ends:
#     its time and rate, the foreground's p99. RESTORE_RATE (default 0: no limit) is that
#     restore's --rate, in records a second.
#  Every phase also gives the CPU the machine was busy with, the nodes', SeaweedFS's, the
#  command's and the rest (wrk2 and anything else running on the machine). A summary table at the
#  end; every command's output, each line stamped, in the work directory. MB are 10^6 bytes.
#
#   flock /tmp/machine.lock bench/tools/backup.sh      # KEYS=1000000 VALUE=1024
#
# JAR is the node's jar (default node/target/kvorum-node.jar; copy it aside when a build may
# replace it during the run); it runs without an AOT cache. Needs wrk2 (WRK2, default
# /opt/wrk2/wrk), SeaweedFS's weed (WEED, default the one node/src/test/seaweedfs/install.sh put
# under ~/.cache/kvorum-tools), Python 3, /usr/bin/time and about 45 GB of disk at the default
# size. OUT keeps the work directory (the data and the logs); without it everything is deleted at
# the end.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
keys="${KEYS:-1000000}"
value="${VALUE:-1024}"
fg_keys="${FG_KEYS:-100000}"
fg_rate="${FG_RATE:-2000}"
restore_fg_rate="${RESTORE_FG_RATE:-$fg_rate}"
restore_rate="${RESTORE_RATE:-0}"
phase="${PHASE:-60}"
warmup="${WARMUP:-60}"
spot="${SPOT:-100}"
wrk="${WRK2:-/opt/wrk2/wrk}"
jar="${JAR:-node/target/kvorum-node.jar}"
[ -n "${JAR:-}" ] || [ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
jar=$(readlink -f "$jar")
weed="${WEED:-$(ls -d "$HOME"/.cache/kvorum-tools/seaweedfs-*/weed 2> /dev/null | tail -1)}"
[ -x "$weed" ] || { echo "bench/tools/backup.sh: no weed: run node/src/test/seaweedfs/install.sh or set WEED" >&2; exit 1; }
java_home=$(bin/find-java)
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work"
http=26480
grpc=27480
s3=28380 # and 28381-28391 for SeaweedFS's other ports
bucket=kvorum-backups
series="s3://$bucket/bench"
peers="node-0=127.0.0.1:$grpc,node-1=127.0.0.1:$((grpc + 1)),node-2=127.0.0.1:$((grpc + 2))"
pids=()
others=()
wrk_pids=()
weed_pid=
cleanup() {
  for pid in "${wrk_pids[@]}" "${pids[@]}" "${others[@]}"; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
  [ -n "${OUT:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
mb() { du -s --block-size=1MB "$@" | awk '{s += $1} END {print s}'; }
n() { python3 -c "print(f'{$1:,}')"; }
rate() { python3 -c "print(f'{$1 / $2:,.1f}')"; }
summary() { echo "$*" >> "$work/summary.md"; }
: > "$work/summary.md"

jshell() {
  "$java_home/bin/jshell" -R--enable-native-access=ALL-UNNAMED -R-Xmx2g --class-path "$jar" "$1" \
    2>&1 | tee "$work/$(basename "$1").log"
  ! grep -q '^Error:\|Exception' "$work/$(basename "$1").log" || { echo "bench/tools/backup.sh: $1 failed" >&2; exit 1; }
}

# --- 1. the data, the nodes, SeaweedFS ----------------------------------------------------------
mkdir -p "$work/data-0/db" "$work/busy-0/db"
log "writing $keys records of $value bytes into node-0, and $fg_keys other keys for the second restore's cluster; load average $(loadavg)"
t0=$SECONDS
FILL="$work/data-0/db:k:$keys;$work/busy-0/db:f:$fg_keys" VALUE=$value jshell bench/tools/fill.jsh > /dev/null
for i in 1 2; do
  cp -a "$work/data-0" "$work/data-$i"
  cp -a "$work/busy-0" "$work/busy-$i"
done
node_mb=$(mb "$work/data-0")
log "written and copied in $((SECONDS - t0)) s; node data: $node_mb MB each"

node_java() {
  # shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
  exec "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -XX:+ExitOnOutOfMemoryError \
    ${JAVA_OPTS:-} -jar "$jar" "$@"
}
start_node() { # index, data directory, log
  mkdir -p "$2"
  JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC" node_java --node-id "node-$1" --http-host 127.0.0.1 \
    --http-port $((http + $1)) --grpc-port $((grpc + $1)) --data-dir "$2" \
    --peers "$peers" >> "$3" 2>&1 &
  pids[$1]=$!
}
# Starts three nodes on PREFIX-0..2 (logs PREFIX-node-0..2.log), waits for /health/ready, then for
# their anti-entropy hash trees: each node builds them over all its records once after a start
# (about 20-60 s for 1M records, on the storage threads); no measurement before that is over.
start_cluster() {
  local prefix=$1
  for i in 0 1 2; do start_node "$i" "$work/$prefix-$i" "$work/$prefix-node-$i.log"; done
  for i in 0 1 2; do
    until curl -sf "http://127.0.0.1:$((http + i))/health/ready" > /dev/null; do
      kill -0 "${pids[i]}" 2> /dev/null || { tail -20 "$work/$prefix-node-$i.log"; exit 1; }
      sleep 0.2
    done
  done
  for i in 0 1 2; do
    until grep -q 'hash trees built' "$work/$prefix-node-$i.log"; do sleep 1; done
  done
}
stop_cluster() {
  for i in 0 1 2; do kill "${pids[i]}"; done
  for i in 0 1 2; do wait "${pids[i]}" 2> /dev/null || true; done
  pids=()
}

mkdir -p "$work/s3/data"
cat > "$work/s3/s3.json" << 'JSON'
{"identities":[{"name":"kvorum","credentials":[{"accessKey":"kvorum-bench","secretKey":"kvorum-bench-secret"}],
  "actions":["Admin","Read","Write","List","Tagging"]}]}
JSON
# As node/src/test/java/io/kvorum/node/testing/SeaweedFs.java starts it: every port on 127.0.0.1.
weed_ports=()
port=$((s3 + 1))
for name in master.port master.port.grpc volume.port volume.port.grpc filer.port filer.port.grpc \
  s3.port.grpc s3.port.iceberg s3.port.lance admin.port admin.port.grpc; do
  weed_ports+=("-$name=$port")
  port=$((port + 1))
done
"$weed" mini -dir="$work/s3/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3.config="$work/s3/s3.json" \
  -bucket=$bucket -webdav=false -admin.ui=false -admin.port.legacy=0 -s3.port=$s3 \
  "${weed_ports[@]}" > "$work/s3/weed.log" 2>&1 &
weed_pid=$!
others+=("$weed_pid")

# A kvorum-node command with SeaweedFS's credentials and address; its output (stdout and stderr,
# each line stamped) in TAG.log, /usr/bin/time's account in TAG.time; sets rc and secs (wall).
s3_opts=(--endpoint "http://127.0.0.1:$s3" --path-style)
members=(--host 127.0.0.1 --port "$http" --node "node-0=127.0.0.1:$http"
  --node "node-1=127.0.0.1:$((http + 1))" --node "node-2=127.0.0.1:$((http + 2))")
stamp() { local line; while IFS= read -r line; do printf '[%(%H:%M:%S)T] %s\n' -1 "$line"; done; }
run_cli() {
  local tag=$1 t0=$EPOCHREALTIME
  shift
  set +e
  AWS_ACCESS_KEY_ID=kvorum-bench AWS_SECRET_ACCESS_KEY=kvorum-bench-secret AWS_REGION=us-east-1 \
    /usr/bin/time -f '%e s wall, %U s user, %S s system, %M KB peak RSS' -o "$work/$tag.time" \
    "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -jar "$jar" "$@" 2>&1 |
    stamp > "$work/$tag.log"
  rc=${PIPESTATUS[0]}
  set -e
  secs=$(python3 -c "print(f'{$EPOCHREALTIME - $t0:.1f}')")
}

start_cluster data
log "nodes ready, hash trees built; waiting for SeaweedFS's S3 API on port $s3 and bucket $bucket"
t0=$SECONDS
until run_cli s3-ready backup list --from "$series" "${s3_opts[@]}" && [ "$rc" = 0 ]; do
  kill -0 "$weed_pid" 2> /dev/null || { tail -20 "$work/s3/weed.log"; exit 1; }
  [ $((SECONDS - t0)) -lt 120 ] || { cat "$work/s3-ready.log"; tail -20 "$work/s3/weed.log"; exit 1; }
  sleep 1
done
log "SeaweedFS ready ($(tail -1 "$work/s3-ready.log"))"

cat > "$work/mixed.lua" << LUA
local body = string.rep("x", $value)
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
sed -e "s/\"k%010d\"/\"f%010d\"/" -e "s/$keys - 1/$fg_keys - 1/" "$work/mixed.lua" > "$work/other.lua"
# wrk2 on every node at rate/3 for secs; in the background: the caller waits for $wrk_pids, or
# stops them early with SIGINT (wrk2 then prints its figures as at the end).
load_at() {
  local script=$1 rate=$2 secs=$3 tag=$4
  wrk_pids=()
  for i in 0 1 2; do
    "$wrk" -t1 -c8 -d"${secs}s" -R$((rate / 3)) -L -s "$work/$script" "http://127.0.0.1:$((http + i))" \
      > "$work/wrk-$tag-$i.txt" 2>&1 &
    wrk_pids+=($!)
  done
}
load_wait() { wait "${wrk_pids[@]}" || true; wrk_pids=(); }
# The highest p99 and p99.9 of the three generators, their requests and errors.
tail_of() {
  python3 - "$work" "$1" << 'PY'
import re, sys
work, tag = sys.argv[1:]
p99 = p999 = 0.0; errors = requests = 0; secs = 0.0
for i in range(3):
    t = open(f'{work}/wrk-{tag}-{i}.txt').read()
    def ms(p):
        m = re.search(re.escape(p) + r'\s+([\d.]+)(ms|s|us|m)\b', t)
        return float(m.group(1)) * {'ms': 1, 's': 1000, 'us': 0.001, 'm': 60000}[m.group(2)] if m else float('nan')
    p99 = max(p99, ms('99.000%')); p999 = max(p999, ms('99.900%'))
    m = re.search(r'Non-2xx or 3xx responses: (\d+)', t); errors += int(m.group(1)) if m else 0
    m = re.search(r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)', t)
    errors += sum(map(int, m.groups())) if m else 0
    m = re.search(r'(\d+) requests in ([\d.]+)(ms|s|m)\b', t)
    if m:
        requests += int(m.group(1))
        secs = max(secs, float(m.group(2)) * {'ms': 0.001, 's': 1, 'm': 60}[m.group(3)])
print(f'{requests:,} requests in {secs:.0f} s ({requests / max(secs, 1):,.0f}/s), p99 {p99:.2f} ms, '
      f'p99.9 {p999:.2f} ms, {errors} errors')
PY
}
# CPU so far, in clock ticks: the machine's busy time (all but idle and iowait), the nodes', SeaweedFS's.
cpu_mark() {
  python3 - "$weed_pid" "${pids[@]}" << 'PY'
import sys
def proc(p):
    try:
        s = open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()
        return int(s[11]) + int(s[12])
    except OSError:
        return 0
v = list(map(int, open('/proc/stat').readline().split()[1:]))
print(sum(v) - v[3] - v[4], sum(proc(p) for p in sys.argv[2:]), proc(sys.argv[1]))
PY
}
# The CPU between two marks (and a command's, from its /usr/bin/time account), in cores on average.
cpu_between() {
  python3 - "$1" "$2" "$3" "${4:-}" << 'PY'
import os, re, sys
a, b, secs, timefile = sys.argv[1].split(), sys.argv[2].split(), float(sys.argv[3]), sys.argv[4]
tick = os.sysconf('SC_CLK_TCK')
busy, nodes, weed = ((int(y) - int(x)) / tick / secs for x, y in zip(a, b))
command = 0.0
if timefile:
    m = re.search(r'([\d.]+) s user, ([\d.]+) s system', open(timefile).read())
    command = (float(m.group(1)) + float(m.group(2))) / secs if m else 0.0
print(f'machine {busy:.2f} of {os.cpu_count()} cores busy: nodes {nodes:.2f}, SeaweedFS {weed:.2f}, '
      f'the command {command:.2f}, the rest {busy - nodes - weed - command:.2f} (wrk2, anything else)')
PY
}
# The foreground (script, rate; none at rate 0) started 12 s before a kvorum-node command (wrk2
# calibrates its first 10 s and measures from then on) and stopped 2 s after it ends, or at PHASE
# s if that is later: its figures cover the command's whole run. The command as run_cli runs it;
# the CPU over the phase in TAG.cpu.
under_load() {
  local script=$1 rate=$2 tag=$3 started=$SECONDS from t0=$EPOCHREALTIME
  shift 3
  from=$(cpu_mark)
  if [ "$rate" -gt 0 ]; then
    load_at "$script" "$rate" 86400 "$tag"
    sleep 12
  fi
  log "  $*"
  run_cli "$tag" "$@"
  log "  ended (exit $rc) after $secs s; load average $(loadavg)"
  if [ "$rate" -gt 0 ]; then
    local left=$((phase - (SECONDS - started)))
    sleep $((left > 2 ? left : 2))
    kill -INT "${wrk_pids[@]}" 2> /dev/null || true
    load_wait
    echo "  foreground, $tag: $(tail_of "$tag")"
  fi
  cpu_between "$from" "$(cpu_mark)" "$(python3 -c "print($EPOCHREALTIME - $t0)")" "$work/$tag.time" > "$work/$tag.cpu"
  echo "  CPU: $(cat "$work/$tag.cpu")"
  sed 's/^/    /' "$work/$tag.log" | grep -v ': \(sent\|checked\|fetched\) .* MB/s$\| left$' || true
  [ "$rc" = 0 ] || { echo "bench/tools/backup.sh: $tag failed (exit $rc): see $work/$tag.log" >&2; exit 1; }
}
# The foreground alone for PHASE s; its figures, and the CPU in TAG.cpu.
alone_phase() {
  local tag=$1 script=$2 rate=$3 from t0=$EPOCHREALTIME
  from=$(cpu_mark)
  load_at "$script" "$rate" "$phase" "$tag"
  load_wait
  cpu_between "$from" "$(cpu_mark)" "$(python3 -c "print($EPOCHREALTIME - $t0)")" > "$work/$tag.cpu"
  echo "  foreground, $tag: $(tail_of "$tag")"
  echo "  CPU: $(cat "$work/$tag.cpu")"
}
# The parts of a backup's summary line.
backup_facts() {
  python3 - "$work/$1.log" << 'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'backup (\S+) in \S+: (\d+) members, ([\d,]+) files, ([\d.]+) MB; sent ([\d,]+) files '
              r'\(([\d.]+) MB\) in ([\d.]+) s, ([\d.]+) MB/s; ([\d,]+) files \(([\d.]+) MB\) already stored', t)
print(' '.join(g.replace(',', '') for g in m.groups()))
PY
}
# The records a restore loaded, the seconds its loads took, the MB of records they loaded.
restore_facts() {
  python3 - "$work/$1.log" << 'PY'
import re, sys
records = secs = mb = 0
for m in re.finditer(r'loaded ([\d,]+) records .* in ([\d.]+) s: [\d,]+ records/s, ([\d.]+) MB/s', open(sys.argv[1]).read()):
    records += int(m.group(1).replace(',', '')); secs += float(m.group(2)); mb += float(m.group(2)) * float(m.group(3))
print(records, f'{secs:.1f}', f'{mb:.0f}')
PY
}
# SPOT random preloaded keys as the cluster answers them: key, status, size, SHA-256.
read_keys() {
  python3 - "$http" "$keys" "$spot" > "$work/$1" << 'PY'
import hashlib, random, sys, urllib.error, urllib.request
http, keys, spot = map(int, sys.argv[1:])
for n, k in enumerate(sorted(random.Random(44).sample(range(keys), spot))):
    key = f'k{k:010d}'
    url = f'http://127.0.0.1:{http + n % 3}/v0/entity?id={key}&ack=2&from=3'
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            body = r.read(); status = r.status
    except urllib.error.HTTPError as e:
        body = b''; status = e.code
    print(key, status, len(body), hashlib.sha256(body).hexdigest())
PY
}
# How many SPOT keys read back (file) as the first cluster answered them.
same_as_before() {
  join <(sort "$work/spot-before.txt") <(sort "$work/$1") | awk '$2 == 200 && $2 == $5 && $3 == $6 && $4 == $7' | wc -l
}

log "warm-up: $fg_rate/s mixed for ${warmup}s (not measured); load average $(loadavg)"
load_at mixed.lua "$fg_rate" "$warmup" warmup
load_wait

# --- 2. the foreground alone --------------------------------------------------------------------
log "foreground $fg_rate/s mixed for ${phase}s, no backup; load average $(loadavg)"
alone_phase alone mixed.lua "$fg_rate"

# --- 3. the first backup under the foreground -------------------------------------------------
s3_before=$(mb "$work/s3/data")
log "foreground $fg_rate/s mixed; kvorum-node backup (the first, full) 12 s into it; load average $(loadavg)"
under_load mixed.lua "$fg_rate" backup-full backup "${members[@]}" --to "$series" --name bench-full "${s3_opts[@]}"
full_secs=$secs
read -r _ _ full_files full_mb full_sent_files full_sent_mb full_xfer_s full_xfer_rate full_kept_files full_kept_mb \
  <<< "$(backup_facts backup-full)"
s3_full=$(mb "$work/s3/data")

# --- 4. the second backup, incremental ----------------------------------------------------------
log "kvorum-node backup (the second, incremental) right after, no foreground"
under_load none 0 backup-incr backup "${members[@]}" --to "$series" --name bench-incr "${s3_opts[@]}"
incr_secs=$secs
read -r _ _ incr_files incr_mb incr_sent_files incr_sent_mb incr_xfer_s incr_xfer_rate incr_kept_files incr_kept_mb \
  <<< "$(backup_facts backup-incr)"
s3_incr=$(mb "$work/s3/data")
echo "  SeaweedFS's data directory: $s3_before MB before, $s3_full MB after the first, $s3_incr MB after the second"
read_keys spot-before.txt
log "read $spot random keys ($(awk '$2 == 200' "$work/spot-before.txt" | wc -l) found)"
run_cli backup-list backup list --from "$series" "${s3_opts[@]}"
sed 's/^/    /' "$work/backup-list.log"

# --- 5. verify, the foreground alone again ------------------------------------------------------
log "kvorum-node backup verify of bench-incr"
under_load none 0 verify backup verify --from "$series/bench-incr" --work-dir "$work/verify-tmp" "${s3_opts[@]}"
verify_secs=$secs
log "foreground $fg_rate/s mixed for ${phase}s, no backup, again; load average $(loadavg)"
alone_phase alone-again mixed.lua "$fg_rate"

# --- 6. restore into a fresh, empty cluster -----------------------------------------------------
log "stopping the cluster; three fresh, empty nodes"
stop_cluster
start_cluster empty
log "restore into them, nothing else running; load average $(loadavg)"
under_load none 0 restore restore --host 127.0.0.1 --port "$http" --from "$series/bench-incr" \
  --work-dir "$work/restore-tmp" "${s3_opts[@]}"
restore_secs=$secs
read -r restored restore_load_s restore_load_mb <<< "$(restore_facts restore)"
read_keys spot-after.txt
same=$(same_as_before spot-after.txt)
log "$same of $spot keys read back as the first cluster answered them"
diff "$work/spot-before.txt" "$work/spot-after.txt" | head -10 | sed 's/^/    /' || true
empty_mb=$(for i in 0 1 2; do mb "$work/empty-$i"; done | paste -sd/)
echo "  the restored nodes' data directories: $empty_mb MB"

# --- 7. restore beside a foreground -------------------------------------------------------------
if [ "$restore_fg_rate" -gt 0 ]; then
  stop_cluster
  log "three more fresh nodes holding $fg_keys other keys ($(mb "$work/busy-0") MB each)"
  start_cluster busy
  log "warm-up: $restore_fg_rate/s mixed on the other keys for ${warmup}s (not measured)"
  load_at other.lua "$restore_fg_rate" "$warmup" busy-warmup
  load_wait
  log "foreground $restore_fg_rate/s mixed on the other keys; the restore (--rate $restore_rate) 12 s into it; load average $(loadavg)"
  under_load other.lua "$restore_fg_rate" restore-busy restore --host 127.0.0.1 --port "$http" \
    --from "$series/bench-incr" --work-dir "$work/restore-tmp" --rate "$restore_rate" "${s3_opts[@]}"
  busy_secs=$secs
  read -r busy_restored _ _ <<< "$(restore_facts restore-busy)"
  read_keys spot-busy.txt
  busy_same=$(same_as_before spot-busy.txt)
  log "$busy_same of $spot keys read back as the first cluster answered them"
fi

# --- the summary --------------------------------------------------------------------------------
summary "| what | figure |"
summary "| --- | --- |"
summary "| data | $(n "$keys") records of $value bytes on each of 3 nodes, $(n "$node_mb") MB of disk each |"
summary "| foreground alone, $fg_rate/s mixed | $(tail_of alone) |"
summary "| … its CPU | $(cat "$work/alone.cpu") |"
summary "| first backup (full), wall | $full_secs s, JVM start and snapshots included (transfer $full_xfer_s s) |"
summary "| first backup, sent | $full_sent_files files, $full_sent_mb MB of $full_mb MB ($full_files files; $full_kept_files files, $full_kept_mb MB already stored) |"
summary "| first backup, rate | $(rate "$full_sent_mb" "$full_secs") MB/s over the wall time ($full_xfer_rate MB/s over the transfer) |"
summary "| foreground during the first backup | $(tail_of backup-full) |"
summary "| … its CPU | $(cat "$work/backup-full.cpu"); the command: $(cat "$work/backup-full.time") |"
summary "| second backup (incremental), wall | $incr_secs s (transfer $incr_xfer_s s) |"
summary "| second backup, sent | $incr_sent_files files, $incr_sent_mb MB; $incr_kept_files files, $incr_kept_mb MB already stored (of $incr_files files, $incr_mb MB) |"
summary "| … its CPU | $(cat "$work/backup-incr.cpu") |"
summary "| SeaweedFS's data directory | $s3_before MB before, $s3_full MB after the first backup, $s3_incr MB after the second |"
summary "| verify of the second backup | $verify_secs s, $(rate "$incr_mb" "$verify_secs") MB/s ($(grep -o 'backup bench-incr is whole.*' "$work/verify.log")) |"
summary "| … its CPU | $(cat "$work/verify.cpu") |"
summary "| foreground alone again | $(tail_of alone-again) |"
summary "| … its CPU | $(cat "$work/alone-again.cpu") |"
summary "| restore of the second backup into 3 empty nodes, wall | $restore_secs s through node-0, nothing else running (loading $restore_load_s s of it) |"
summary "| restore, rate | $(n "$restored") records, $(rate "$restored" "$restore_secs") records/s; $(rate "$incr_mb" "$restore_secs") MB/s of the backup's $incr_mb MB; the loads $(rate "$restore_load_mb" "$restore_load_s") MB/s of records while loading |"
summary "| … its CPU | $(cat "$work/restore.cpu"); the command: $(cat "$work/restore.time") |"
summary "| restored nodes' data directories | $empty_mb MB |"
summary "| spot check | $same of $spot random keys read back with the value the first cluster answered |"
if [ "$restore_fg_rate" -gt 0 ]; then
  summary "| restore (--rate $restore_rate) beside a foreground of $restore_fg_rate/s mixed on $(n "$fg_keys") other keys, wall | $busy_secs s, $(n "$busy_restored") records, $(rate "$busy_restored" "$busy_secs") records/s, $(rate "$incr_mb" "$busy_secs") MB/s |"
  summary "| foreground during that restore | $(tail_of restore-busy) |"
  summary "| … its CPU | $(cat "$work/restore-busy.cpu") |"
  summary "| spot check after it | $busy_same of $spot |"
fi
echo
log "summary (work directory $work; the run took $((SECONDS / 60)) min; load average $(loadavg))"
cat "$work/summary.md"
