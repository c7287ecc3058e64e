#!/usr/bin/env bash
# A whole node's data (default 1,000,000 records of 1 KiB: about 1 GB of values) read as one range
# by the Java client with a small heap (issue 27: "a range of 1 GB read by the Java client with a
# flat heap"). One node (1 GiB heap) on data written straight into its RocksDB (bench/tools/fill.jsh);
# the reader is KvorumClient.range (NDJSON over the JDK's HTTP client) in a JVM of -Xmx$READER_HEAP,
# iterating without keeping entries (serial GC). It prints, every 100,000 records and at the end,
# the reader's old generation (what survived collections: it grows if the reader holds on to
# entries), the peak of its heap pools, and the node's heap (from its /metrics).
#
#   flock /tmp/machine.lock bench/tools/range.sh      # KEYS=1000000 VALUE=1024 READER_HEAP=64m
#
# OUT keeps the work directory (and its data); without it everything is deleted at the end.
set -euo pipefail
[ "${1:-}" != --help ] || { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
keys="${KEYS:-1000000}"
value="${VALUE:-1024}"
reader_heap="${READER_HEAP:-64m}"
jar=node/target/kvorum-node.jar
[ -f "$jar" ] || ./mvnw -B -q -ntp package -DskipTests -pl node -am
java_home=$(bin/find-java)
work="${OUT:-$(mktemp -d)}"
http=26480
grpc=27480
node=
cleanup() {
  [ -z "$node" ] || { kill "$node" 2> /dev/null || true; wait "$node" 2> /dev/null || true; }
  [ -n "${OUT:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

mkdir -p "$work/data/db"
log "writing $keys records of $value bytes into the node's directory"
FILL="$work/data/db:k:$keys" VALUE=$value "$java_home/bin/jshell" \
  -R--enable-native-access=ALL-UNNAMED -R-Xmx2g --class-path "$jar" bench/tools/fill.jsh \
  > "$work/fill.log" 2>&1
! grep -q '^Error:\|Exception' "$work/fill.log" || { cat "$work/fill.log" >&2; exit 1; }
log "node data: $(du -sh "$work/data" | cut -f1)"

JAVA_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC" bin/kvorum --node-id node-0 --http-host 127.0.0.1 \
  --http-port "$http" --grpc-port "$grpc" --data-dir "$work/data" > "$work/node.log" 2>&1 &
node=$!
until curl -sf "http://127.0.0.1:$http/health/ready" > /dev/null; do
  kill -0 "$node" 2> /dev/null || { tail -20 "$work/node.log"; exit 1; }
  sleep 0.2
done
log "node ready"

cat > "$work/Read.java" << JAVA
import io.kvorum.api.KvorumClient;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.RangeReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

public class Read {
  static final HttpClient METRICS = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    long records = 0, bytes = 0, started = System.nanoTime();
    try (KvorumClient client = KvorumClient.connect("127.0.0.1", $http, Duration.ofHours(1));
        RangeReader range = client.range("k".getBytes(StandardCharsets.UTF_8), null)) {
      while (range.hasNext()) {
        RangeEntry entry = range.next();
        records++;
        bytes += entry.key().length + entry.value().length;
        if (records % 100_000 == 0) {
          report("at", records, bytes, started);
        }
      }
      System.out.println("complete: " + range.complete());
    }
    report("end", records, bytes, started);
  }

  static void report(String when, long records, long bytes, long started) throws Exception {
    long old = 0, peak = 0, max = Runtime.getRuntime().maxMemory();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        if (pool.getName().contains("Tenured")) {
          old = pool.getUsage().getUsed();
        }
        peak += pool.getPeakUsage().getUsed();
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf(
        "%s %,d records, %,d MB of keys and values, %.0f s, %.1f MB/s; reader heap (max %d MB):"
            + " old generation %.1f MB, peak of all its pools %.1f MB; node heap %s MB%n",
        when, records, bytes / 1_000_000, seconds, bytes / 1e6 / seconds, max >> 20,
        old / 1e6, peak / 1e6, nodeHeap());
  }

  static String nodeHeap() throws Exception {
    String metrics =
        METRICS.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:$http/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    double used = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        used += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return String.format("%.0f", used / 1e6);
  }
}
JAVA
log "reading the whole node as one range with -Xmx$reader_heap"
"$java_home/bin/java" "-Xmx$reader_heap" -XX:+UseSerialGC -cp "$jar" "$work/Read.java" \
  | tee "$work/read.txt"
