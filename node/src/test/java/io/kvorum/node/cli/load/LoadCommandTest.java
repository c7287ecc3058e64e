package io.kvorum.node.cli.load;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvorum-node load} as an operator runs it: from a stopped node's RocksDB data directory
 * into a node with tokens, against a node that refuses a batch for a while or for good, and with
 * bad options.
 */
@Timeout(60)
class LoadCommandTest {
  private static final String ADMIN = "admin-0f1e2d3c4b5a6978";
  private static final String WRITER = "writer-8796a5b4c3d2e1f0";
  private static final long PAST = System.currentTimeMillis() - 60_000;

  @TempDir Path dir;
  private final Map<String, Record> written = new TreeMap<>();
  private HttpServer fake;

  /** A stopped node's data directory: 1,200 values (some expiring, some binary) and tombstones. */
  @BeforeEach
  void writeAStoppedNodesData() throws IOException {
    Files.createDirectories(dir.resolve("old-node"));
    ExecutorService storage = Executors.newFixedThreadPool(2);
    try (RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(
            dir.resolve("old-node").resolve("db"), RocksDbSettings.defaults(), storage)) {
      for (int i = 0; i < 1_200; i++) {
        Version version = Version.of(PAST, i);
        Record record =
            switch (i % 4) {
              case 0 -> Record.tombstone(version);
              case 1 -> Record.value(version, ("v" + i).getBytes(UTF_8), PAST + 3_600_000);
              case 2 -> Record.value(version, new byte[] {0, (byte) i, 0});
              default -> Record.value(version, ("v" + i).getBytes(UTF_8));
            };
        engine.put(Key.utf8("k" + i), record).join();
        written.put("k" + i, record);
      }
    } finally {
      storage.shutdown();
    }
  }

  @AfterEach
  void stopFake() {
    if (fake != null) {
      fake.stop(0);
    }
  }

  private record Run(int exit, String out, String err) {}

  private static Run load(String... args) {
    CommandLine cli = KvorumNode.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> line = new ArrayList<>(List.of("load"));
    line.addAll(List.of(args));
    int exit = cli.execute(line.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  private String from() {
    return dir.resolve("old-node").toString();
  }

  @Test
  void loadsEveryRecordOfAStoppedNodeAsItWasAndNeedsAnAdminToken() throws IOException {
    Path tokens =
        Files.writeString(dir.resolve("tokens"), ADMIN + " admin\n" + WRITER + " write\n");
    Path adminToken = Files.writeString(dir.resolve("admin-token"), ADMIN + "\n");
    try (TestNode node =
        TestNode.start(TestConfig.in(dir.resolve("new")).authTokens(tokens).build())) {
      String port = String.valueOf(node.port());

      Run anonymous = load("--from", from(), "--host", "127.0.0.1", "--port", port);
      Run writer = load("--from", from(), "--host", "127.0.0.1", "--port", port, "--token", WRITER);
      assertThat(anonymous.exit()).isEqualTo(1);
      // Batches go four at a time: whichever is refused first is named (CI saw k369..k818).
      assertThat(anonymous.err()).contains("401").containsPattern("from key 'k[0-9]+' to key");
      assertThat(writer.exit()).isEqualTo(1);
      assertThat(writer.err()).contains("403").contains("needs admin");
      assertThat(node.stored("k1")).isEmpty();

      Run admin =
          load(
              "--from",
              from(),
              "--host",
              "127.0.0.1",
              "--port",
              port,
              "--token-file",
              adminToken.toString(),
              "--batch",
              "100");

      assertThat(admin.exit()).as(admin.err()).isZero();
      assertThat(admin.out())
          .contains("loaded 1,200 records (900 values, 300 of them expiring; 300 tombstones)");
      for (Map.Entry<String, Record> record : written.entrySet()) {
        assertThat(node.stored(record.getKey())).as(record.getKey()).contains(record.getValue());
      }
    }
  }

  @Test
  void aTlsCaFileThatCannotBeReadIsABadOption() {
    Run run = load("--from", from(), "--tls-ca", dir.resolve("no-such-ca.crt").toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--tls-ca").contains("no-such-ca.crt");
  }

  @Test
  void aBatchTheClusterCouldNotTakeIsSentAgainUntilItIs() throws IOException {
    AtomicInteger requests = new AtomicInteger();
    int port = fakeNode(() -> requests.incrementAndGet() <= 2 ? 504 : 200);

    Run run =
        load(
            "--from",
            from(),
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(port),
            "--batch",
            "2000");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(requests).hasValue(3);
    assertThat(run.out()).contains("loaded 1,200 records");
  }

  @Test
  void aRefusedBatchStopsTheLoadNamingItsKeysAndIsNotRetried() throws IOException {
    AtomicInteger requests = new AtomicInteger();
    int port = fakeNode(() -> requests.incrementAndGet() == 1 ? 200 : 400);

    Run run =
        load(
            "--from",
            from(),
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(port),
            "--batch",
            "1000",
            "--parallel",
            "1");
    List<String> keys = new ArrayList<>(written.keySet());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(requests).hasValue(2);
    assertThat(run.err())
        .contains("stopped after 1,000 records")
        .contains(
            "the batch of 200 records from key '"
                + keys.get(1000)
                + "' to key '"
                + keys.get(1199)
                + "' was not taken")
        .contains("400 Bad Request: refused")
        .contains("Loading again is safe");
  }

  @Test
  void badOptionsExit2NamingTheOption() throws IOException {
    Files.createDirectories(dir.resolve("empty"));

    Run nothing = load("--from", dir.resolve("empty").toString());
    Run rate = load("--from", from(), "--rate", "-1");

    assertThat(nothing.exit()).isEqualTo(2);
    assertThat(nothing.err()).contains("--from").contains("holds no database");
    assertThat(rate.exit()).isEqualTo(2);
    assertThat(rate.err()).contains("--rate");
  }

  /** A node whose /v0/load answers what {@code status} says, problem+json when it refuses. */
  private int fakeNode(IntSupplier status) throws IOException {
    fake = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    fake.createContext(
        "/v0/load",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          int code = status.getAsInt();
          byte[] body =
              (code == 200
                      ? "{\"records\":1}"
                      : "{\"title\":\""
                          + (code == 400 ? "Bad Request" : "Gateway Timeout")
                          + "\",\"status\":"
                          + code
                          + ",\"detail\":\"refused\"}")
                  .getBytes(UTF_8);
          exchange.sendResponseHeaders(code, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    fake.start();
    return fake.getAddress().getPort();
  }
}
