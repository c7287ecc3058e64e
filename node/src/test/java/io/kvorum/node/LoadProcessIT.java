package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.RangeEntry;
import io.kvorum.api.Versioned;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.ProcessCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 25, part 3: the restore into another cluster of docs/operations.md, followed on processes.
 * A 3-node cluster takes writes, overwrites, deletes and expiring writes, a snapshot on every
 * member, then more overwrites, deletes and new keys. Its three snapshots loaded with {@code
 * kvorum-node load} into a fresh 2-node cluster and into a fresh 5-node cluster give exactly the
 * snapshot's data, with the versions it had; loading again changes nothing, and a write made in the
 * new cluster after the first load stays.
 */
class LoadProcessIT {
  private static final String SNAPSHOT = "before";
  private static final byte[] FIRST_KEY = "0".getBytes(UTF_8);

  @TempDir Path work;

  /** The snapshot's live data: key → value. */
  private final Map<String, String> expected = new TreeMap<>();

  /** Their versions (ETags) when the snapshot was taken. */
  private final Map<String, String> versions = new TreeMap<>();

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void threeNodesSnapshotsLoadedIntoTwoAndFiveNodesHoldExactlyTheirData() throws Exception {
    try (ProcessCluster old = new ProcessCluster(work.resolve("old"), 3).start();
        KvorumClient client = old.client(0)) {
      writeAndSnapshot(old, client);

      CommandOutcome running = load(work.resolve("old").resolve("node-0"), old.httpPort(0));
      assertThat(running.exit()).isEqualTo(1);
      assertThat(running.err()).contains("a running node has it open");
    }

    try (ProcessCluster two = new ProcessCluster(work.resolve("two"), 2).start();
        KvorumClient zero = two.client(0);
        KvorumClient client = two.client(1)) {
      loadTheSnapshots(two.httpPort(1));
      holdsExactly(zero, expected);

      // Newer than the snapshot: stays through a second load, which changes nothing else.
      client.put("k0", "newest");
      client.delete("k1");
      client.put("k299", "newest");
      String k0 = client.getVersioned("k0".getBytes(UTF_8)).orElseThrow().etag();
      loadTheSnapshots(two.httpPort(0));

      Map<String, String> after = new TreeMap<>(expected);
      after.put("k0", "newest");
      after.remove("k1");
      after.put("k299", "newest");
      assertThat(values(zero)).isEqualTo(after);
      assertThat(client.getVersioned("k0".getBytes(UTF_8)).orElseThrow().etag()).isEqualTo(k0);
      for (String key : expected.keySet()) {
        if (!List.of("k0", "k1", "k299").contains(key)) {
          assertThat(etag(zero, key)).as(key).isEqualTo(versions.get(key));
        }
      }
    }

    try (ProcessCluster five = new ProcessCluster(work.resolve("five"), 5).start()) {
      loadTheSnapshots(five.httpPort(3));
      for (int node : new int[] {0, 4}) {
        try (KvorumClient client = five.client(node)) {
          holdsExactly(client, expected);
        }
      }
    }
  }

  private void writeAndSnapshot(ProcessCluster old, KvorumClient client) {
    for (int i = 0; i < 10; i++) {
      // Expired long before the load: absent in every cluster.
      client.put(
          ("e" + i).getBytes(UTF_8),
          "short".getBytes(UTF_8),
          Consistency.DEFAULT,
          Duration.ofMillis(200));
    }
    for (int i = 0; i < 300; i++) {
      client.put("k" + i, "v1-" + i);
    }
    for (int i = 0; i < 50; i++) {
      client.put("k" + i, "v2-" + i);
      client.put("d" + i, "doomed");
      client.delete("d" + i);
    }
    for (int i = 0; i < 30; i++) {
      client.put(
          ("t" + i).getBytes(UTF_8),
          ("ttl-" + i).getBytes(UTF_8),
          Consistency.DEFAULT,
          Duration.ofHours(1));
    }
    for (int i = 0; i < 300; i++) {
      expected.put("k" + i, (i < 50 ? "v2-" : "v1-") + i);
    }
    for (int i = 0; i < 30; i++) {
      expected.put("t" + i, "ttl-" + i);
    }
    for (String key : expected.keySet()) {
      versions.put(key, etag(client, key));
    }

    snapshotEveryMember(old);

    // After the snapshot: none of this may come back.
    for (int i = 50; i < 100; i++) {
      client.put("k" + i, "v3-" + i);
    }
    for (int i = 100; i < 150; i++) {
      client.delete("k" + i);
    }
    for (int i = 0; i < 10; i++) {
      client.delete("t" + i);
    }
    for (int i = 0; i < 50; i++) {
      client.put("n" + i, "new");
    }
  }

  private void loadTheSnapshots(int port) {
    for (int i = 0; i < 3; i++) {
      Path snapshot =
          work.resolve("old").resolve("node-" + i).resolve("snapshots").resolve(SNAPSHOT);
      CommandOutcome outcome = load(snapshot, port);
      assertThat(outcome.exit()).as(outcome.err()).isZero();
      assertThat(outcome.out()).contains("loaded ");
    }
  }

  /** Exactly the snapshot's keys and values through a range over every key, and its versions. */
  private void holdsExactly(KvorumClient client, Map<String, String> data) {
    assertThat(values(client)).isEqualTo(data);
    for (String key : data.keySet()) {
      assertThat(etag(client, key)).as(key).isEqualTo(versions.get(key));
    }
    for (String absent : List.of("e0", "e9", "d0", "d49", "n0", "n49")) {
      assertThat(client.getUtf8(absent)).as(absent).isEmpty();
    }
  }

  private static Map<String, String> values(KvorumClient client) {
    Map<String, String> values = new TreeMap<>();
    for (RangeEntry entry : client.rangeAll(FIRST_KEY, null)) {
      values.put(entry.keyUtf8(), new String(entry.value(), UTF_8));
    }
    return values;
  }

  private static String etag(KvorumClient client, String key) {
    return client.getVersioned(key.getBytes(UTF_8)).map(Versioned::etag).orElse(null);
  }

  private record CommandOutcome(int exit, String out, String err) {}

  private static CommandOutcome load(Path from, int port) {
    return run(
        "load", "--from", from.toString(), "--host", "127.0.0.1", "--port", String.valueOf(port));
  }

  private static void snapshotEveryMember(ProcessCluster cluster) {
    CommandOutcome outcome =
        run(
            "snapshot",
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(cluster.httpPort(0)),
            "--node",
            "node-1=127.0.0.1:" + cluster.httpPort(1),
            "--node",
            "node-2=127.0.0.1:" + cluster.httpPort(2),
            "--name",
            SNAPSHOT);
    assertThat(outcome.exit()).as(outcome.err()).isZero();
  }

  private static CommandOutcome run(String... args) {
    CommandLine cli = KvorumNode.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(new ArrayList<>(List.of(args)).toArray(String[]::new));
    return new CommandOutcome(exit, out.toString(), err.toString());
  }
}
