package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.DirectoryTrees;
import io.kvorum.node.testing.ProcessCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 25, part 5: the restore in place of docs/operations.md (Restoring in place), followed step
 * by step on three processes. After a snapshot on every member, a bad deploy overwrites, deletes
 * and adds keys; every node is stopped, its {@code db/} replaced by its snapshot, and started with
 * the same id: the cluster answers exactly the snapshot's data.
 */
class RestoreInPlaceProcessIT {
  private static final String SNAPSHOT = "before-deploy";

  @TempDir Path work;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void everyNodeRestoredFromItsSnapshotAnswersExactlyTheSnapshotsData() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start()) {
      KvorumClient client = cluster.client(0);
      for (int i = 0; i < 300; i++) {
        client.put("k" + i, "v1-" + i);
      }
      for (int i = 0; i < 50; i++) {
        client.put("d" + i, "doomed");
        client.delete("d" + i);
      }
      // Step 1 (before the deploy): a snapshot on every member.
      assertThat(snapshotEveryMember(cluster)).isZero();

      // The bad deploy: overwrites, deletes and new keys.
      for (int i = 0; i < 100; i++) {
        client.put("k" + i, "v2-" + i);
      }
      for (int i = 100; i < 150; i++) {
        client.delete("k" + i);
      }
      for (int i = 0; i < 50; i++) {
        client.put("n" + i, "new");
      }

      // Step 2: stop every node gracefully.
      for (int i = 0; i < 3; i++) {
        assertThat(cluster.node(i).terminate()).isZero();
      }
      // Step 3: replace each node's db/ with its snapshot, keeping the rest of the directory.
      for (int i = 0; i < 3; i++) {
        Path data = work.resolve("node-" + i);
        Path db = data.resolve("db");
        DirectoryTrees.remove(db);
        DirectoryTrees.copy(data.resolve("snapshots").resolve(SNAPSHOT), db);
        Files.delete(db.resolve("manifest.json"));
      }
      // Step 4: start them all with the same ids and flags.
      for (int i = 0; i < 3; i++) {
        cluster.relaunch(i);
      }
      for (int i = 0; i < 3; i++) {
        cluster.node(i).awaitReady();
      }

      for (int node = 0; node < 3; node++) {
        KvorumClient reader = cluster.client(node);
        for (int i = 0; i < 300; i++) {
          assertThat(reader.getUtf8("k" + i)).as("k" + i).contains("v1-" + i);
        }
        for (int i = 0; i < 50; i++) {
          assertThat(reader.getUtf8("n" + i)).as("n" + i).isEmpty();
          assertThat(reader.getUtf8("d" + i)).as("d" + i).isEmpty();
        }
      }
      // And it takes writes again, newer than anything restored.
      client.put("k0", "after");
      assertThat(cluster.client(2).getUtf8("k0")).contains("after");
    }
  }

  private static int snapshotEveryMember(ProcessCluster cluster) {
    CommandLine cli = KvorumNode.commandLine();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(new StringWriter(), true));
    cli.setErr(new PrintWriter(err, true));
    int exit =
        cli.execute(
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
    assertThat(exit).as(err.toString()).isZero();
    return exit;
  }
}
