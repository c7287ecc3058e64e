package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.api.KvorumAdmin;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.SnapshotFile;
import io.kvorum.node.storage.SnapshotFiles;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a backup reads of a node's snapshot ({@code /v0/snapshots/NAME/files}): every file with its
 * size and SHA-256, and each file's bytes as on the node's disk.
 */
class SnapshotFilesTest {
  @TempDir Path dataDir;

  @Test
  void aSnapshotsFilesAreListedWithTheirChecksumsAndReadByteForByte() throws Exception {
    try (TestNode node = TestNode.start(TestConfig.in(dataDir).build())) {
      for (int i = 0; i < 200; i++) {
        node.client().put("k" + i, "value " + i);
      }
      KvorumAdmin admin = node.client().admin();
      admin.takeSnapshot("s1");

      List<SnapshotFile> files = admin.snapshotFiles("s1");

      Path snapshot = dataDir.resolve("snapshots").resolve("s1");
      assertThat(files)
          .extracting(SnapshotFile::name)
          .contains("manifest.json", "KVORUM-FORMAT", "CURRENT");
      for (SnapshotFile file : files) {
        Path onDisk = snapshot.resolve(file.name());
        assertThat(file.bytes()).isEqualTo(Files.size(onDisk));
        assertThat(file.sha256()).isEqualTo(SnapshotFiles.sha256(onDisk));
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (InputStream in = admin.openSnapshotFile("s1", file.name())) {
          digest.update(in.readAllBytes());
        }
        assertThat(HexFormat.of().formatHex(digest.digest())).isEqualTo(file.sha256());
      }
      // A second snapshot shares the data files, hashed once: the same checksums.
      admin.takeSnapshot("s2");
      assertThat(admin.snapshotFiles("s2"))
          .filteredOn(f -> f.name().endsWith(".sst"))
          .isSubsetOf(files);
    }
  }

  @Test
  void anUnknownSnapshotOrFileIs404EvenAPathLikeOne() {
    try (TestNode node = TestNode.start(TestConfig.in(dataDir).build())) {
      KvorumAdmin admin = node.client().admin();
      admin.takeSnapshot("s1");

      assertThatThrownBy(() -> admin.snapshotFiles("nope"))
          .isInstanceOfSatisfying(
              KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(404));
      assertThatThrownBy(() -> admin.openSnapshotFile("nope", "CURRENT"))
          .isInstanceOfSatisfying(
              KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(404));
      for (String file : new String[] {"000999.sst", "..", ".hidden"}) {
        assertThatThrownBy(() -> admin.openSnapshotFile("s1", file))
            .as(file)
            .isInstanceOfSatisfying(
                KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(404));
      }
    }
  }
}
