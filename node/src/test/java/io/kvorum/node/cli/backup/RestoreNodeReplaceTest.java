package io.kvorum.node.cli.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code restore-node} puts the fetched snapshot in place of the node's database only by renames,
 * and a run cut off at any point is finished by the next one: the database ends as the snapshot,
 * and nothing of the old one or of the cut-off run is left beside it.
 */
class RestoreNodeReplaceTest {
  @TempDir Path data;

  private Path fetched(String content) throws Exception {
    Path fetched = Files.createDirectories(data.resolve(RestoreNodeCommand.FETCHING));
    Files.writeString(fetched.resolve("CURRENT"), content);
    return fetched;
  }

  private void assertRestored(Path db, String content) throws Exception {
    assertThat(Files.readString(db.resolve("CURRENT"))).isEqualTo(content);
    assertThat(data.resolve(RestoreNodeCommand.FETCHING)).doesNotExist();
    assertThat(data.resolve(RestoreNodeCommand.REPLACED)).doesNotExist();
  }

  @Test
  void theSnapshotTakesTheDatabasesPlaceAndTheOldOneIsGone() throws Exception {
    Path db = Files.createDirectories(data.resolve("db"));
    Files.writeString(db.resolve("CURRENT"), "old");
    Files.writeString(db.resolve("000042.sst"), "old data");

    RestoreNodeCommand.replace(db, fetched("snapshot"));

    assertRestored(db, "snapshot");
    assertThat(db.resolve("000042.sst")).doesNotExist();
  }

  @Test
  void aRunCutOffBetweenTheRenamesIsFinishedByTheNext() throws Exception {
    // The old database renamed aside, the snapshot not renamed in yet: no db at all.
    Path replaced = Files.createDirectories(data.resolve(RestoreNodeCommand.REPLACED));
    Files.writeString(replaced.resolve("CURRENT"), "old");
    Path db = data.resolve("db");

    RestoreNodeCommand.replace(db, fetched("snapshot"));

    assertRestored(db, "snapshot");
  }

  @Test
  void aNodeWhoseVolumeWasLostGetsTheSnapshotAsItsDatabase() throws Exception {
    Path db = data.resolve("db");

    RestoreNodeCommand.replace(db, fetched("snapshot"));

    assertRestored(db, "snapshot");
  }
}
