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
import java.util.concurrent.CopyOnWriteArrayList;

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
    // Each attempt the SDK makes reads the file anew, on the store's thread.
    List<Attempt> attempts = new CopyOnWriteArrayList<>();
    try {
      store.upload(
          key,
          () -> {
            Attempt attempt =
                new Attempt(ask(member, id, a -> a.openSnapshotFile(snapshot, file.name())));
            attempts.add(attempt);
            return throttle.wrap(attempt.counted);
          },
          file.bytes());
    } finally {
      attempts.forEach(Attempt::close);
    }
    // An empty file is sent without a read.
    Attempt last =
        attempts.isEmpty() ? new Attempt(InputStream.nullInputStream()) : attempts.getLast();
    String sha = HexFormat.of().formatHex(last.digest.digest());
    if (last.read[0] != file.bytes() || !sha.equals(file.sha256())) {
      store.delete(Set.of(key));
      throw new BackupFailure(
          ExitCodes.FAILURE,
          id
              + ": "
              + file.name()
              + " arrived as "
              + last.read[0]
              + " bytes with SHA-256 "
              + sha
              + ", not the "
              + file.bytes()
              + " bytes the node listed: not kept; run the backup again");
    }
  }

  /** One reading of a file from its node, counted and hashed as it goes. */
  private final class Attempt {
    final MessageDigest digest = sha256();
    final long[] read = {0};
    final InputStream body;
    final InputStream counted;

    Attempt(InputStream body) {
      this.body = body;
      this.counted = counting(new DigestInputStream(body, digest), read);
    }

    void close() {
      try {
        body.close();
      } catch (IOException e) {
        // Read to its end or given up: nothing more to learn from it.
      }
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
