package io.kvorum.node.cli.backup;

import io.kvorum.api.KvorumClientException;
import io.kvorum.api.SnapshotFile;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copies one member's snapshot to object storage, file by file from the node's {@code
 * /v0/snapshots/NAME/files}: a file is stored as {@code data/NODE/SHA256-NAME}, so one already
 * stored (same name, size and checksum: the data files a former backup sent) is not sent again.
 * Each file sent is checked against the checksum the node gave as it goes; one that arrives
 * otherwise is deleted again and fails the backup.
 */
final class MemberUpload {
  private final ObjectStore store;
  private final Throttle throttle;
  private final Transfers transfers;

  MemberUpload(ObjectStore store, Throttle throttle, Transfers transfers) {
    this.store = store;
    this.throttle = throttle;
    this.transfers = transfers;
  }

  /** The key of {@code file} of member {@code id}'s snapshot. */
  static String key(StorageLocation location, String id, String sha256, String file) {
    return location.key("data/" + id + "/" + sha256 + "-" + file);
  }

  /**
   * Sends the files of snapshot {@code snapshot} of member {@code id} that are not stored yet.
   *
   * @return every file of the snapshot, with the key that holds it
   * @throws BackupFailure naming the member, when it cannot be read or the storage refuses
   */
  List<BackupManifest.File> upload(NodeConnection member, String id, String snapshot) {
    List<SnapshotFile> files = ask(member, id, a -> a.snapshotFiles(snapshot));
    Map<String, ObjectStore.Stored> stored = store.list(store.location().key("data/" + id + "/"));
    transfers.expect(files.stream().mapToLong(SnapshotFile::bytes).sum());
    List<BackupManifest.File> kept = new ArrayList<>();
    for (SnapshotFile file : files) {
      String key = key(store.location(), id, file.sha256(), file.name());
      ObjectStore.Stored object = stored.get(key);
      if (object != null && object.size() == file.bytes()) {
        transfers.kept(file.bytes());
      } else {
        send(member, id, snapshot, file, key);
        transfers.moved(file.bytes());
      }
      transfers.maybePrint(id);
      kept.add(new BackupManifest.File(file.name(), file.bytes(), file.sha256(), key));
    }
    return kept;
  }

  private void send(
      NodeConnection member, String id, String snapshot, SnapshotFile file, String key) {
    MessageDigest digest = sha256();
    long[] read = {0};
    try (InputStream body = ask(member, id, a -> a.openSnapshotFile(snapshot, file.name()));
        InputStream counted = counting(new DigestInputStream(body, digest), read)) {
      store.upload(key, throttle.wrap(counted), file.bytes());
    } catch (IOException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE, id + ": reading " + file.name() + " failed: " + e.getMessage());
    }
    String sha = HexFormat.of().formatHex(digest.digest());
    if (read[0] != file.bytes() || !sha.equals(file.sha256())) {
      store.delete(Set.of(key));
      throw new BackupFailure(
          ExitCodes.FAILURE,
          id
              + ": "
              + file.name()
              + " arrived as "
              + read[0]
              + " bytes with SHA-256 "
              + sha
              + ", not the "
              + file.bytes()
              + " bytes the node listed: not kept; run the backup again");
    }
  }

  private InputStream counting(InputStream in, long[] read) {
    return new java.io.FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        read[0] += b >= 0 ? 1 : 0;
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        read[0] += Math.max(0, n);
        return n;
      }
    };
  }

  /** What member {@code id} answers, its failures named as the backup's. */
  static <T> T ask(
      NodeConnection member,
      String id,
      java.util.function.Function<io.kvorum.api.KvorumAdmin, T> request) {
    try {
      return member.ask(request);
    } catch (Unreachable e) {
      throw new BackupFailure(ExitCodes.FAILURE, id + ": " + e.getMessage());
    } catch (KvorumClientException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE,
          id + " (" + member.baseUrl() + ") answered " + NodeConnection.describe(e));
    } catch (UncheckedIOException e) {
      throw new BackupFailure(ExitCodes.FAILURE, id + ": " + e.getMessage());
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
