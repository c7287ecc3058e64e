package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.NodeProcess;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/** The node as users run it: the fat jar in its own process, killed and restarted for real. */
class NodeProcessIT {
  @TempDir Path work;

  /**
   * With the default periodic sync the writes run on the event loops and are in the page cache when
   * acknowledged (as with {@code false}, which differs only by the syncing thread); with {@code
   * true} they go through the storage threads' group commit.
   */
  @ParameterizedTest(name = "--sync-writes={0}")
  @ValueSource(strings = {"100ms", "true"})
  void sigkillLosesNoAcknowledgedWrite(String syncWrites) throws Exception {
    Path data = work.resolve("data");
    String sync = "--sync-writes=" + syncWrites;
    Map<String, String> acknowledged = new ConcurrentHashMap<>();
    // Each writer's last request, cut off by the kill: it may or may not have been applied.
    Map<String, String> unanswered = new ConcurrentHashMap<>();
    AtomicInteger attempted = new AtomicInteger();
    try (NodeProcess node = NodeProcess.startSingle(data, work.resolve("logs"), "n1", sync);
        KvorumClient kv = node.client()) {
      AtomicBoolean running = new AtomicBoolean(true);
      ExecutorService writers = Executors.newFixedThreadPool(8);
      for (int w = 0; w < 8; w++) {
        int writer = w;
        writers.execute(
            () -> {
              for (int i = 0; running.get(); i++) {
                String key = "w" + writer + "/" + (i % 500);
                String value = "v" + i;
                attempted.incrementAndGet();
                try {
                  if (i % 7 == 6) {
                    kv.delete(key);
                    acknowledged.put(key, "");
                  } else {
                    kv.put(key, value);
                    acknowledged.put(key, value);
                  }
                } catch (RuntimeException e) {
                  // The node died under this request: not acknowledged, and perhaps stored.
                  unanswered.put(key, i % 7 == 6 ? "" : value);
                  return;
                }
              }
            });
      }
      Thread.sleep(1500); // writes flow at full speed when the process is killed
      node.kill();
      running.set(false);
      writers.shutdown();
      assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(acknowledged).hasSizeGreaterThan(100);

    try (NodeProcess restarted = NodeProcess.startSingle(data, work.resolve("logs"), "n1", sync);
        KvorumClient kv = restarted.client()) {
      List<String> lost = new ArrayList<>();
      acknowledged.forEach(
          (key, value) -> {
            var read = kv.getUtf8(key);
            String other = unanswered.get(key);
            boolean ok =
                read.equals(value.isEmpty() ? Optional.empty() : Optional.of(value))
                    || (other != null
                        && read.equals(other.isEmpty() ? Optional.empty() : Optional.of(other)));
            if (!ok) {
              lost.add(key + " expected '" + value + "' got " + read);
            }
          });
      System.out.printf(
          "SIGKILL: %d acknowledged keys checked (of %d writes attempted), %d lost%n",
          acknowledged.size(), attempted.get(), lost.size());
      assertThat(lost).isEmpty();
    }
  }

  /**
   * The build unpacks RocksDB's native library beside the jar: a node loads it from there, and
   * inflates no 17 MB copy of it at its start.
   */
  @Test
  void aNodeLoadsRocksDbsLibraryFromBesideItsJar() throws Exception {
    Path temporary = Files.createDirectories(work.resolve("tmp"));
    NodeProcess node =
        NodeProcess.launchSingle(
            work.resolve("data"),
            work.resolve("logs"),
            "n1",
            Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + temporary));
    node.awaitReady();

    Path beside = NodeProcess.jar().toRealPath().resolveSibling("native");
    assertThat(Files.readString(Path.of("/proc", String.valueOf(node.pid()), "maps")))
        .contains(beside.resolve("librocksdbjni-").toString());
    assertThat(node.terminate()).isZero();
  }

  /**
   * A jar alone (nothing unpacked beside it): RocksJava copies its native library (17 MB) into the
   * temporary directory and deletes it only at a normal exit, so a node SIGKILLed left it there,
   * and enough of them filled a disk. The node's own copy is gone once loaded.
   */
  @Test
  void aSigkilledNodeOfAJarAloneLeavesNothingInTheTemporaryDirectory() throws Exception {
    Path temporary = Files.createDirectories(work.resolve("tmp"));
    Path alone =
        Files.copy(
            NodeProcess.jar(), Files.createDirectories(work.resolve("alone")).resolve("node.jar"));
    NodeProcess node =
        NodeProcess.launchSingle(
            alone,
            work.resolve("data"),
            work.resolve("logs"),
            "n1",
            Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + temporary));
    node.awaitReady();
    try (KvorumClient kv = node.client()) {
      kv.put("k", "v");
    }
    node.kill();

    try (var left = Files.list(temporary)) {
      assertThat(left.map(Path::getFileName).map(Path::toString)).isEmpty();
    }
  }

  @Test
  void sigtermStopsGracefullyWithExitCode0AndKeepsTheData() throws Exception {
    Path data = work.resolve("data");
    NodeProcess node = NodeProcess.startSingle(data, "n1");
    try (KvorumClient kv = node.client()) {
      kv.put("kept", "across a restart");
      kv.put("deleted", "x");
      kv.delete("deleted");
    }
    assertThat(node.terminate()).isZero();
    assertThat(node.stdout()).contains("node n1 stopped");
    assertThat(node.stderr()).isEmpty();

    try (NodeProcess restarted = NodeProcess.startSingle(data, "n1");
        KvorumClient kv = restarted.client()) {
      assertThat(kv.getUtf8("kept")).hasValue("across a restart");
      assertThat(kv.getUtf8("deleted")).isEmpty();
      assertThat(restarted.terminate()).isZero();
    }
  }

  @Test
  void aWipedDataDirectoryStartsEmpty() throws Exception {
    Path data = work.resolve("data");
    try (NodeProcess node = NodeProcess.startSingle(data, "n1");
        KvorumClient kv = node.client()) {
      kv.put("gone", "after the wipe");
      assertThat(node.terminate()).isZero();
    }
    try (var files = Files.walk(data)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    try (NodeProcess node = NodeProcess.startSingle(data, "n1");
        KvorumClient kv = node.client()) {
      assertThat(kv.getUtf8("gone")).isEmpty();
      kv.put("new", "life");
      assertThat(kv.getUtf8("new")).hasValue("life");
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "peers without a port|--peers|n1=localhost|--peers",
        "self missing from peers|--peers|n2=localhost:9091,n3=localhost:9092|not among the peers",
        "duplicate ids|--peers|n1=localhost:9091,n1=localhost:9092|more than once",
        "bad duration|--request-timeout|soon|--request-timeout",
        "bad size|--max-value-size|lots|--max-value-size",
        "port out of range|--grpc-port|70000|--grpc-port",
        "unknown flag|--no-such-flag|x|no-such-flag",
      })
  void invalidConfigurationExits2WithOneClearLine(
      String name, String flag, String value, String mentioned) throws Exception {
    NodeProcess node =
        NodeProcess.launch(
            work.resolve("logs"),
            0,
            Map.of(),
            "--node-id",
            "n1",
            "--http-port",
            String.valueOf(NodeProcess.freePort()),
            "--data-dir",
            work.resolve("data").toString(),
            flag,
            value);
    assertThat(node.awaitExit()).isEqualTo(2);
    assertThat(node.stderr().lines()).singleElement().asString().contains(mentioned);
  }

  @Test
  void aPortInUseExits2WithOneClearLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      NodeProcess node =
          NodeProcess.launch(
              work.resolve("logs"),
              taken.getLocalPort(),
              Map.of(),
              "--node-id",
              "n1",
              "--http-host",
              "127.0.0.1",
              "--http-port",
              String.valueOf(taken.getLocalPort()),
              "--grpc-port",
              String.valueOf(NodeProcess.freePort()),
              "--data-dir",
              work.resolve("data").toString());
      assertThat(node.awaitExit()).isEqualTo(2);
      assertThat(node.stderr().lines())
          .singleElement()
          .asString()
          .contains("--http-port")
          .contains("in use");
    }
  }

  @Test
  void anUnwritableDataDirectoryExits2WithOneClearLine() throws Exception {
    Path file = Files.writeString(work.resolve("a-file"), "not a directory");
    NodeProcess node =
        NodeProcess.launch(
            work.resolve("logs"),
            0,
            Map.of(),
            "--node-id",
            "n1",
            "--http-port",
            String.valueOf(NodeProcess.freePort()),
            "--data-dir",
            file.resolve("data").toString());
    assertThat(node.awaitExit()).isEqualTo(2);
    assertThat(node.stderr().lines()).singleElement().asString().contains("--data-dir");
  }

  @Test
  void aDataDirectoryOfKvorum01Exits2WithOneClearLine() throws Exception {
    Path db = work.resolve("data").resolve("db");
    Files.createDirectories(db);
    writeRecordInTheFormatOfKvorum01(db);

    NodeProcess node =
        NodeProcess.launch(
            work.resolve("logs"),
            0,
            Map.of(),
            "--node-id",
            "n1",
            "--http-port",
            String.valueOf(NodeProcess.freePort()),
            "--data-dir",
            work.resolve("data").toString());

    assertThat(node.awaitExit()).isEqualTo(2);
    assertThat(node.stderr().lines())
        .singleElement()
        .asString()
        .contains("--data-dir", "kvorum 0.1", "wipe the data directory");
  }

  /** A database as kvorum 0.1 left it: its column families, a record in format 2, no marker. */
  private static void writeRecordInTheFormatOfKvorum01(Path db) throws Exception {
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options =
            new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB rocks =
            RocksDB.open(
                options,
                db.toString(),
                List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                    new ColumnFamilyDescriptor("deaths".getBytes(UTF_8)),
                    new ColumnFamilyDescriptor("hints".getBytes(UTF_8))),
                handles)) {
      rocks.put("k".getBytes(UTF_8), new byte[] {0x20, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'v'});
      handles.forEach(ColumnFamilyHandle::close);
    }
  }

  @Test
  void aSecondNodeOnTheSameDataDirectoryExits2() throws Exception {
    Path data = work.resolve("data");
    try (NodeProcess first = NodeProcess.startSingle(data, "n1")) {
      NodeProcess second =
          NodeProcess.launch(
              work.resolve("logs"),
              0,
              Map.of(),
              "--node-id",
              "n1",
              "--http-port",
              String.valueOf(NodeProcess.freePort()),
              "--data-dir",
              data.toString());
      assertThat(second.awaitExit()).isEqualTo(2);
      assertThat(second.stderr().lines())
          .singleElement()
          .asString()
          .contains("in use by another running node");
    }
  }

  @Test
  void environmentVariablesAreTheFlagsTwins() throws Exception {
    int http = NodeProcess.freePort();
    try (NodeProcess node =
            NodeProcess.launch(
                work.resolve("logs"),
                http,
                Map.of(
                    "KVORUM_NODE_ID", "from-env",
                    "KVORUM_HTTP_HOST", "127.0.0.1",
                    "KVORUM_HTTP_PORT", String.valueOf(http),
                    "KVORUM_GRPC_PORT", String.valueOf(NodeProcess.freePort()),
                    "KVORUM_DATA_DIR", work.resolve("env-data").toString()));
        KvorumClient kv = node.client()) {
      node.awaitReady();
      kv.put("configured", "by environment");
      assertThat(node.stdout()).contains("node from-env ready");
      assertThat(Files.isDirectory(work.resolve("env-data").resolve("db"))).isTrue();
    }
  }

  @Test
  void jsonLogsAreOneObjectPerLineWithTheNodeIdInEach() throws Exception {
    NodeProcess node =
        NodeProcess.launchSingle(
            work.resolve("data"),
            work.resolve("logs"),
            "json-1",
            Map.of("KVORUM_LOG_FORMAT", "json"));
    node.awaitReady();
    try (KvorumClient kv = node.client()) {
      kv.put("logged", "json");
    }
    assertThat(node.terminate()).isZero();
    assertThat(node.stderr()).isEmpty();
    List<String> lines = node.stdout().lines().toList();
    assertThat(lines).hasSizeGreaterThanOrEqualTo(4);
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      JsonNode event = json.readTree(line);
      assertThat(event.isObject()).as(line).isTrue();
      assertThat(event.path("timestamp").asText()).as(line).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
      assertThat(event.path("level").asText())
          .as(line)
          .isIn("TRACE", "DEBUG", "INFO", "WARN", "ERROR");
      assertThat(event.path("logger").asText()).as(line).isNotEmpty();
      assertThat(event.path("node").asText()).as(line).isEqualTo("json-1");
      assertThat(event.path("message").asText()).as(line).isNotEmpty();
    }
    assertThat(lines.getLast()).contains("\"message\":\"node json-1 stopped\"");
  }

  @Test
  void theLogFormatFlagWinsOverItsVariableAndABadOneExits2() throws Exception {
    NodeProcess node =
        NodeProcess.launch(
            work.resolve("logs"),
            0,
            Map.of("KVORUM_LOG_FORMAT", "json"),
            "--node-id",
            "n1",
            "--data-dir",
            work.resolve("data").toString(),
            "--log-format",
            "xml");
    assertThat(node.awaitExit()).isEqualTo(2);
    assertThat(node.stderr().lines())
        .singleElement()
        .asString()
        .contains("--log-format 'xml': must be text or json");
    assertThat(node.stdout()).isEmpty();
  }

  @Test
  void helpExplainsEveryFlag() throws Exception {
    NodeProcess node = NodeProcess.launch(work.resolve("logs"), 0, Map.of(), "--help");
    assertThat(node.awaitExit()).isZero();
    assertThat(node.stdout())
        .contains(
            "--node-id",
            "--http-port",
            "--http-host",
            "--grpc-port",
            "--data-dir",
            "--peers",
            "--request-timeout",
            "--sync-writes",
            "--max-value-size",
            "--max-key-size",
            "--log-format",
            "KVORUM_HTTP_PORT");
    assertThat(node.stdout().getBytes(UTF_8).length)
        .isLessThan(16_000); // a few screens for some forty-five flags
  }
}
