package io.kvorum.node.coordinator;

import io.kvorum.node.core.ChunkReader;
import io.kvorum.node.core.SnapshotFile;
import io.kvorum.node.core.SnapshotListing;
import io.kvorum.node.core.SnapshotManifest;
import io.kvorum.node.storage.Snapshots;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What operators ask of this node's snapshots ({@code /v0/snapshots}, SPEC §11): the storage's
 * {@link Snapshots} as the edge sees them. Every call returns at once; the work runs on the
 * snapshots' own thread.
 */
public final class SnapshotAdmin {
  private final Snapshots snapshots;

  public SnapshotAdmin(Snapshots snapshots) {
    this.snapshots = snapshots;
  }

  /** Takes snapshot {@code name} of this node's records; as {@link Snapshots#take}. */
  public CompletableFuture<SnapshotManifest> take(String name) {
    return snapshots.take(name);
  }

  /** This node's snapshots: the whole ones, oldest first, and the damaged ones. */
  public CompletableFuture<SnapshotListing> list() {
    return snapshots.list();
  }

  /** The files of snapshot {@code name}, with sizes and checksums; as {@link Snapshots#files}. */
  public CompletableFuture<List<SnapshotFile>> files(String name) {
    return snapshots.files(name);
  }

  /** Opens a file of snapshot {@code name}; as {@link Snapshots#open}. */
  public CompletableFuture<ChunkReader> open(String name, String file) {
    return snapshots.open(name, file);
  }

  /** Deletes snapshot {@code name}; as {@link Snapshots#delete}. */
  public CompletableFuture<Void> delete(String name) {
    return snapshots.delete(name);
  }
}
