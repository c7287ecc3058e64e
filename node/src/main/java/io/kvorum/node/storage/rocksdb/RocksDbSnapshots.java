package io.kvorum.node.storage.rocksdb;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.core.ChunkReader;
import io.kvorum.node.core.Directories;
import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.Release;
import io.kvorum.node.core.SnapshotException;
import io.kvorum.node.core.SnapshotFile;
import io.kvorum.node.core.SnapshotListing;
import io.kvorum.node.core.SnapshotManifest;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.SnapshotFiles;
import io.kvorum.node.storage.Snapshots;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;

/**
 * {@link Snapshots} as RocksDB checkpoints: the memtables are flushed and every data file is hard
 * linked into the snapshot's directory (copied only across filesystems), so a snapshot takes
 * seconds whatever the size and costs no disk until compaction replaces the files it shares. The
 * hints this node holds for others are in the checkpoint too (their column family is in the same
 * database), and are ignored by a load: they are other nodes' writes, delivered or repaired there.
 * A snapshot is written under a hidden name, every file and directory of it synced, and renamed
 * once its manifest is written, the rename synced too: a crash or a power cut midway leaves no
 * snapshot that looks whole, and one answered is on the disk.
 */
public final class RocksDbSnapshots implements Snapshots {
  static final String MANIFEST = "manifest.json";
  private static final String PARTIAL = ".partial-";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RocksDbStorageEngine engine;
  private final Path directory;
  private final String node;
  private final LongSupplier clock;
  private final Executor executor;
  private final DurableFiles files;
  private final SnapshotFiles contents;

  /**
   * Snapshots of {@code engine} in {@code directory}, on the real disk.
   *
   * @param node the node's id, written into each manifest
   * @param clock the node's hybrid logical clock, read when a snapshot is taken
   * @param executor runs the checkpoints (each may flush memtables: not a storage thread's work)
   */
  public RocksDbSnapshots(
      RocksDbStorageEngine engine,
      Path directory,
      String node,
      LongSupplier clock,
      Executor executor) {
    this(engine, directory, node, clock, executor, DurableFiles.DISK);
  }

  /** Snapshots whose files are synced through {@code files}. */
  RocksDbSnapshots(
      RocksDbStorageEngine engine,
      Path directory,
      String node,
      LongSupplier clock,
      Executor executor,
      DurableFiles files) {
    this.engine = engine;
    this.directory = directory;
    this.node = node;
    this.clock = clock;
    this.executor = executor;
    this.files = files;
    this.contents = new SnapshotFiles(directory, executor);
  }

  /**
   * Publishes {@code kvorum_snapshots} (how many this node holds) and {@code
   * kvorum_snapshots_bytes} (bytes their files hold that the live database no longer shares), read
   * from the directory at each scrape.
   */
  public void bindTo(MeterRegistry registry) {
    Gauge.builder("kvorum.snapshots", this, s -> s.listNow().whole().size())
        .description("snapshots this node holds under its data directory")
        .register(registry);
    Gauge.builder("kvorum.snapshots.bytes", this, RocksDbSnapshots::bytesHeldAlone)
        .description("bytes of snapshot files the live database no longer shares")
        .register(registry);
  }

  @Override
  public CompletableFuture<SnapshotManifest> take(String name) {
    if (!Snapshots.validName(name)) {
      return CompletableFuture.failedFuture(Snapshots.invalidName());
    }
    return CompletableFuture.supplyAsync(() -> takeNow(name), executor);
  }

  private synchronized SnapshotManifest takeNow(String name) {
    Path target = directory.resolve(name);
    if (Files.exists(target)) {
      throw new SnapshotException(SnapshotException.Reason.SNAPSHOT_EXISTS, name);
    }
    Path partial = directory.resolve(PARTIAL + name);
    long started = System.nanoTime();
    try {
      files.createDirectories(directory);
      Directories.removeTree(partial);
      long versionsUpTo = clock.getAsLong();
      long records = engine.stats().estimatedKeys();
      engine.guarded(
          "snapshot " + name,
          null,
          () -> {
            try (Checkpoint checkpoint = Checkpoint.create(engine.db())) {
              checkpoint.createCheckpoint(partial.toString());
            }
            return null;
          });
      files.write(
          partial.resolve(FormatMarker.FILE),
          Files.readAllBytes(Path.of(engine.db().getName()).resolve(FormatMarker.FILE)));
      SnapshotManifest manifest =
          new SnapshotManifest(
              name,
              node,
              Instant.now().toString(),
              (System.nanoTime() - started) / 1_000_000,
              versionsUpTo,
              records,
              size(partial),
              FormatMarker.CURRENT,
              Release.version(),
              target.toAbsolutePath().toString());
      files.write(
          partial.resolve(MANIFEST),
          JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(manifest));
      // The checkpoint's links and copies, the marker and the manifest are on the disk before the
      // name says the snapshot is whole; the rename, synced in its directory, says it.
      files.syncTree(partial);
      files.rename(partial, target);
      keepInLimitNow();
      return manifest;
    } catch (IOException e) {
      removeQuietly(partial);
      throw new StorageException(StorageException.Kind.FAILURE, "snapshot " + name, null, e);
    } catch (RuntimeException e) {
      removeQuietly(partial);
      throw e;
    }
  }

  @Override
  public CompletableFuture<SnapshotListing> list() {
    return CompletableFuture.supplyAsync(this::listNow, executor);
  }

  /**
   * The snapshots on disk, read now on the caller's thread: one whose manifest cannot be read is
   * listed as damaged, and the others as whole.
   */
  public SnapshotListing listNow() {
    if (!Files.isDirectory(directory)) {
      return SnapshotListing.EMPTY;
    }
    List<SnapshotManifest> whole = new ArrayList<>();
    List<SnapshotListing.Damaged> damaged = new ArrayList<>();
    List<Path> children;
    try (Stream<Path> listing = Files.list(directory)) {
      children = listing.filter(c -> !c.getFileName().toString().startsWith(".")).toList();
    } catch (IOException e) {
      throw new StorageException(StorageException.Kind.FAILURE, "list snapshots", null, e);
    }
    for (Path child : children) {
      if (!Files.isDirectory(child)) {
        continue;
      }
      Path manifest = child.resolve(MANIFEST);
      try {
        whole.add(JSON.readValue(manifest.toFile(), SnapshotManifest.class));
      } catch (IOException e) {
        damaged.add(
            new SnapshotListing.Damaged(
                child.getFileName().toString(),
                child.toAbsolutePath().toString(),
                problem(manifest, e)));
      }
    }
    whole.sort(Comparator.comparing(SnapshotManifest::takenAt));
    damaged.sort(Comparator.comparing(SnapshotListing.Damaged::name));
    return new SnapshotListing(whole, damaged);
  }

  private static String problem(Path manifest, IOException error) {
    try {
      if (!Files.isRegularFile(manifest)) {
        return MANIFEST + " is missing: delete this snapshot, it cannot be used";
      }
      if (Files.size(manifest) == 0) {
        return MANIFEST + " is empty: delete this snapshot, it cannot be used";
      }
    } catch (IOException e) {
      // Described by the error that reading it gave.
    }
    String reason = error.getMessage() == null ? error.toString() : error.getMessage();
    return MANIFEST
        + " cannot be read ("
        + reason.lines().findFirst().orElse(reason)
        + "): delete this snapshot, it cannot be used";
  }

  @Override
  public CompletableFuture<List<SnapshotFile>> files(String name) {
    return contents.list(name);
  }

  @Override
  public CompletableFuture<ChunkReader> open(String name, String file) {
    return contents.open(name, file);
  }

  @Override
  public CompletableFuture<Void> delete(String name) {
    return CompletableFuture.runAsync(() -> deleteNow(name), executor);
  }

  private synchronized void deleteNow(String name) {
    Path target = directory.resolve(name == null ? "" : name);
    if (!Snapshots.validName(name) || !Files.isDirectory(target)) {
      throw new SnapshotException(SnapshotException.Reason.UNKNOWN_SNAPSHOT, name);
    }
    try {
      Directories.removeTree(target);
      files.sync(directory);
      keepInLimitNow();
    } catch (IOException e) {
      throw new StorageException(StorageException.Kind.FAILURE, "delete snapshot " + name, null, e);
    }
  }

  @Override
  public void keepInLimit() {
    if (engine.options().maxDiskBytes > 0) {
      try {
        executor.execute(this::keepInLimitNow);
      } catch (RejectedExecutionException e) {
        // Shutting down: no more writes to limit.
      }
    }
  }

  /** Lowers the data files' limit by what snapshots hold alone; the bytes the database may use. */
  synchronized long keepInLimitNow() {
    long max = engine.options().maxDiskBytes;
    if (max <= 0) {
      return 0;
    }
    long allowed = Math.max(1, max - bytesHeldAlone());
    engine.guarded(
        "snapshots in the disk limit",
        null,
        () -> {
          engine.options().files.setMaxAllowedSpaceUsage(allowed);
          return null;
        });
    return allowed;
  }

  @Override
  public long bytesHeldAlone() {
    if (!Files.isDirectory(directory)) {
      return 0;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      return files.filter(Files::isRegularFile).mapToLong(RocksDbSnapshots::sizeIfAlone).sum();
    } catch (IOException | UncheckedIOException e) {
      return 0; // a snapshot deleted while counting: counted again next time
    }
  }

  /** A file's size if no other directory links it (the live database no longer holds it). */
  private static long sizeIfAlone(Path file) {
    try {
      return ((Number) Files.getAttribute(file, "unix:nlink")).intValue() <= 1
          ? Files.size(file)
          : 0;
    } catch (IOException | UnsupportedOperationException e) {
      return 0;
    }
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  private static void removeQuietly(Path dir) {
    try {
      Directories.removeTree(dir);
    } catch (IOException e) {
      // Left for the next take of that name, which removes it first.
    }
  }
}
