#!/usr/bin/env bash
# The rate of `kvorum-node load` (issue 25): KEYS records of VALUE bytes (every tenth a tombstone,
# each meant for 3 replicas) written straight into the RocksDB of a stopped node (jshell on the
# node's own jar and storage engine), then loaded with `bin/kvorum load` at full speed (or at
# RATE records/s) into three fresh local nodes with a 1 GiB heap, through node-0. Prints the
# command's summary and the CPU seconds each node and the loader spent.
#
#   bench/tools/load.sh                            # KEYS=200000 VALUE=1024
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
keys="${KEYS:-200000}"
value="${VALUE:-1024}"
rate="${RATE:-0}"
jar=node/target/kvorum-node.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
java_home=$(bin/find-java)
work="${OUT:-$(mktemp -d)}"
mkdir -p "$work/source/db"
http=23480
grpc=24480
peers="node-0=127.0.0.1:$grpc,node-1=127.0.0.1:$((grpc + 1)),node-2=127.0.0.1:$((grpc + 2))"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
  [ -n "${OUT:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/source.jsh" << JSH
import io.kvorum.node.core.*;
import io.kvorum.node.storage.rocksdb.*;
var storage = java.util.concurrent.Executors.newFixedThreadPool(2);
var engine = RocksDbStorageEngine.open(java.nio.file.Path.of("$work/source/db"), RocksDbSettings.defaults(), storage);
var random = new java.util.Random(25);
long start = System.currentTimeMillis() - $keys;
var batch = new java.util.ArrayList<Entry>();
for (int i = 0; i < $keys; i++) {
  Version version = Version.of(start + i, 0);
  byte[] bytes = new byte[$value];
  random.nextBytes(bytes);
  io.kvorum.node.core.Record record = i % 10 == 0
      ? io.kvorum.node.core.Record.tombstone(version, 3)
      : io.kvorum.node.core.Record.value(version, bytes, 0, 3);
  batch.add(new Entry(Key.utf8(String.format("k%010d", i)), record));
  if (batch.size() == 512) { engine.putAll(batch).join(); batch = new java.util.ArrayList<>(); }
}
engine.putAll(batch).join();
engine.close();
storage.shutdown();
/exit
JSH
"$java_home/bin/jshell" -R--enable-native-access=ALL-UNNAMED --class-path "$jar" "$work/source.jsh" \
  2>&1 | tee "$work/jshell.log"
! grep -q '^Error:' "$work/jshell.log" || { echo "bench/tools/load.sh: writing the source failed" >&2; exit 1; }
echo "source: $keys records of $value bytes, $(du -sh "$work/source/db" | cut -f1) on disk"

for i in 0 1 2; do
  JAVA_OPTS="-Xms1g -Xmx1g" bin/kvorum --node-id "node-$i" --http-host 127.0.0.1 \
    --http-port $((http + i)) --grpc-port $((grpc + i)) --data-dir "$work/data-$i" \
    --peers "$peers" >> "$work/node-$i.log" 2>&1 &
  pids[i]=$!
done
for i in 0 1 2; do
  until curl -sf "http://127.0.0.1:$((http + i))/health/ready" > /dev/null; do
    kill -0 "${pids[i]}" 2> /dev/null || { tail -20 "$work/node-$i.log"; exit 1; }
    sleep 0.2
  done
done
cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"; }
before=()
for i in 0 1 2; do before[i]=$(cpu "${pids[i]}"); done
/usr/bin/time -f "loader: %U s user, %S s system, %M KiB max RSS" \
  bin/kvorum load --from "$work/source" --host 127.0.0.1 --port "$http" --rate "$rate"
for i in 0 1 2; do
  echo "node-$i: $(python3 -c "print(f'{$(cpu "${pids[i]}") - ${before[i]}:.1f}')") CPU s during the load"
done
