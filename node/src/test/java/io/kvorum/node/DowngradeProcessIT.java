package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.DirectoryTrees;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.PreviousRelease;
import io.kvorum.node.testing.ProcessCluster;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a downgrade as docs/compatibility.md states it. The previous release refuses, at start,
 * a data directory this release has opened (exit 2, RocksDB naming the column family it does not
 * know); going back is the restore in place of a backup taken before the upgrade (a copy of each
 * stopped node's {@code db}, as an operator copies it or restores a snapshot), after which the
 * cluster answers what it held then and takes writes again. One cluster throughout.
 */
class DowngradeProcessIT {
  private static final int NODES = 3;
  private static final int KEYS = 60;

  @TempDir Path work;

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void thePreviousReleaseRefusesTheUpgradedDirectoryAndADowngradeRestoresTheBackup()
      throws Exception {
    Path previous = PreviousRelease.jar();
    ProcessCluster cluster = new ProcessCluster(work, NODES);
    for (int i = 0; i < NODES; i++) {
      cluster.jar(i, previous);
    }
    try (cluster) {
      cluster.start().awaitStreams();
      try (KvorumClient kv = cluster.client(0)) {
        for (int k = 0; k < KEYS; k++) {
          kv.put("before/" + k, "old-" + k); // ack=2 from=3
        }
      }
      // The upgrade, the backup first: every node stopped, its db copied, started on this release.
      for (int i = 0; i < NODES; i++) {
        assertThat(cluster.node(i).terminate())
            .as("node-%d's exit on %s", i, PreviousRelease.VERSION)
            .isZero();
        DirectoryTrees.copy(db(i), work.resolve("backup-" + i));
        cluster.jar(i, NodeProcess.jar());
      }
      cluster.start();
      try (KvorumClient kv = cluster.client(1)) {
        for (int k = 0; k < KEYS; k += 2) {
          kv.put("before/" + k, "new-" + k);
        }
        for (int k = 0; k < KEYS; k++) {
          kv.put("after/" + k, "v" + k);
        }
      }

      // The previous release on a directory this release opened: refused at start.
      assertThat(cluster.node(0).terminate()).isZero();
      cluster.jar(0, previous);
      NodeProcess refused = cluster.relaunch(0);
      assertThat(refused.awaitExit())
          .as("%s's exit on the upgraded directory", PreviousRelease.VERSION)
          .isEqualTo(2);
      // The column families 0.2.0 lacks, both added after it: changes (SPEC §12), paxos (§10).
      assertThat(refused.stdout() + refused.stderr())
          .contains(
              "kvorum-node: --data-dir '"
                  + work.resolve("node-0")
                  + "': cannot open the database: Column families not opened: changes, paxos");

      // The downgrade: every node stopped, its db replaced by the backup, started on the previous
      // release.
      for (int i = 1; i < NODES; i++) {
        assertThat(cluster.node(i).terminate()).as("node-%d's exit", i).isZero();
      }
      for (int i = 0; i < NODES; i++) {
        DirectoryTrees.remove(db(i));
        DirectoryTrees.copy(work.resolve("backup-" + i), db(i));
        cluster.jar(i, previous);
      }
      cluster.start().awaitStreams();
      try (KvorumClient kv = cluster.client(2)) {
        for (int k = 0; k < KEYS; k++) {
          assertThat(kv.getUtf8("before/" + k)).as("before/%d", k).contains("old-" + k);
          assertThat(kv.getUtf8("after/" + k)).as("after/%d", k).isEmpty();
        }
        kv.put("downgraded", "yes");
        assertThat(kv.getUtf8("downgraded")).contains("yes");
      }
      for (int i = 0; i < NODES; i++) {
        assertThat(cluster.node(i).terminate())
            .as("node-%d's exit on %s", i, PreviousRelease.VERSION)
            .isZero();
      }
    }
  }

  private Path db(int node) {
    return work.resolve("node-" + node).resolve("db");
  }
}
