package io.kvorum.node.storage;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.SnapshotListing;
import io.kvorum.node.core.SnapshotManifest;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * Point-in-time copies of this node's records, taken while it serves (SPEC §11), each in its own
 * directory under the data directory's {@code snapshots/}.
 *
 * <p>Contract: a snapshot holds exactly the records stored when it was taken, as a database that
 * opens on its own (read-only, or as a node's {@code db/} in a restore); writes go on while it is
 * taken and none of them fails because of it. A snapshot appears in {@link #list} only once whole;
 * one interrupted midway (a crash) is never listed and is removed by the next {@link #take}. Names
 * are {@link #NAME} and are not reused while the snapshot exists.
 */
public interface Snapshots {
  /** What a name may be: a directory name on any filesystem, never hidden, never a path. */
  Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  /** Whether {@code name} is a {@link #NAME}; a missing one (null) is not. */
  static boolean validName(String name) {
    return name != null && NAME.matcher(name).matches();
  }

  /** The refusal of a name to take that is not a {@link #NAME} (400, naming the parameter). */
  static InvalidRequestException invalidName() {
    return new InvalidRequestException(
        "name",
        "a snapshot's name is 1-64 letters, digits, '.', '_' or '-', not starting with a '.', '_'"
            + " or '-'");
  }

  /**
   * Takes snapshot {@code name} off the caller's thread.
   *
   * @return its manifest, once the snapshot is whole; fails with {@link
   *     io.kvorum.node.core.SnapshotException} if the name is taken, {@link
   *     io.kvorum.node.core.InvalidRequestException} if it is not a {@link #NAME}, {@link
   *     io.kvorum.node.core.StorageException} if the engine could not write it
   */
  CompletableFuture<SnapshotManifest> take(String name);

  /**
   * The snapshots, their manifests read from disk off the caller's thread: the whole ones, oldest
   * first, and, apart, every snapshot directory whose manifest cannot be read (it can be deleted).
   */
  CompletableFuture<SnapshotListing> list();

  /**
   * Deletes snapshot {@code name} and every file it holds alone, off the caller's thread.
   *
   * @return done once deleted; fails with {@link io.kvorum.node.core.SnapshotException} if there is
   *     none of that name
   */
  CompletableFuture<Void> delete(String name);

  /**
   * The files of snapshot {@code name} with their sizes and SHA-256, for a backup; fails with
   * {@link io.kvorum.node.core.SnapshotException} if there is no whole snapshot of that name (an
   * engine without snapshots has none).
   */
  default CompletableFuture<java.util.List<io.kvorum.node.core.SnapshotFile>> files(String name) {
    return CompletableFuture.failedFuture(
        new io.kvorum.node.core.SnapshotException(
            io.kvorum.node.core.SnapshotException.Reason.UNKNOWN_SNAPSHOT, name));
  }

  /** Opens file {@code file} of snapshot {@code name} for reading, as {@link #files} fails. */
  default CompletableFuture<io.kvorum.node.core.ChunkReader> open(String name, String file) {
    return CompletableFuture.failedFuture(
        new io.kvorum.node.core.SnapshotException(
            io.kvorum.node.core.SnapshotException.Reason.UNKNOWN_SNAPSHOT, name));
  }

  /** Bytes of the files that only snapshots hold (not shared with the live database). */
  long bytesHeldAlone();

  /** How often {@link #keepInLimit} runs besides after each take and delete. */
  java.time.Duration LIMIT_INTERVAL = java.time.Duration.ofSeconds(30);

  /**
   * Counts the bytes snapshots hold alone in the node's disk-usage limit ({@code
   * --max-disk-usage}): the live database may use what is left of it. Compaction moves files from
   * shared to held alone, so this runs after each take and delete and every {@link
   * #LIMIT_INTERVAL}; off the caller's thread.
   */
  void keepInLimit();

  /**
   * An engine without snapshots (tests' in-memory engines): none is listed, and a take is refused
   * as a bad request (400), a name that is not a {@link #NAME} as any engine refuses it.
   */
  Snapshots NONE =
      new Snapshots() {
        @Override
        public CompletableFuture<SnapshotManifest> take(String name) {
          return CompletableFuture.failedFuture(
              validName(name)
                  ? new InvalidRequestException(
                      "name", "this node's storage engine (one of tests) takes no snapshots")
                  : invalidName());
        }

        @Override
        public CompletableFuture<SnapshotListing> list() {
          return CompletableFuture.completedFuture(SnapshotListing.EMPTY);
        }

        @Override
        public CompletableFuture<Void> delete(String name) {
          return CompletableFuture.failedFuture(
              new io.kvorum.node.core.SnapshotException(
                  io.kvorum.node.core.SnapshotException.Reason.UNKNOWN_SNAPSHOT, name));
        }

        @Override
        public long bytesHeldAlone() {
          return 0;
        }

        @Override
        public void keepInLimit() {}
      };
}
