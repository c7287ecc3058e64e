package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.SnapshotException;
import io.kvorum.node.core.SnapshotListing;
import io.kvorum.node.core.SnapshotManifest;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.Futures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots hold exactly what was stored when they were taken, and cost the writers nothing. */
class RocksDbSnapshotsTest {
  @TempDir Path dataDir;

  private ThreadPoolExecutor storageThreads;
  private ExecutorService snapshotThread;
  private RocksDbStorageEngine engine;
  private RocksDbSnapshots snapshots;
  private final AtomicLong clock = new AtomicLong(1_000);

  @BeforeEach
  void open() {
    storageThreads = StorageThreads.bounded(2, 10_000);
    snapshotThread = Executors.newSingleThreadExecutor();
    engine =
        RocksDbStorageEngine.open(
            dataDir.resolve("db"), RocksDbStorageEngineTest.SMALL, storageThreads);
    snapshots =
        new RocksDbSnapshots(
            engine, dataDir.resolve("snapshots"), "n1", clock::get, snapshotThread);
  }

  @AfterEach
  void close() throws InterruptedException {
    engine.close();
    snapshotThread.shutdownNow();
    assertThat(StorageThreads.stop(storageThreads)).isTrue();
  }

  @Test
  void aSnapshotHoldsExactlyTheRecordsStoredWhenItWasTakenNotLaterWrites() throws Exception {
    for (int i = 0; i < 500; i++) {
      put("k" + i, Record.value(version(), bytes("old" + i)));
    }
    put("deleted-later", Record.value(version(), bytes("was here")));
    put("gone", Record.tombstone(version()));
    Map<String, Record> before = contents(engine);

    SnapshotManifest manifest = snapshots.take("first").get(30, TimeUnit.SECONDS);
    put("k1", Record.value(version(), bytes("newer")));
    put("deleted-later", Record.tombstone(version()));
    put("new-key", Record.value(version(), bytes("new")));

    assertThat(manifest.name()).isEqualTo("first");
    assertThat(manifest.node()).isEqualTo("n1");
    assertThat(manifest.format()).isEqualTo(FormatMarker.CURRENT);
    assertThat(manifest.versionsUpTo())
        .isGreaterThanOrEqualTo(before.get("gone").version().value());
    assertThat(manifest.bytes()).isPositive();
    Path taken = dataDir.resolve("snapshots").resolve("first");
    assertThat(Path.of(manifest.path())).isEqualTo(taken.toAbsolutePath());
    try (RocksDbStorageEngine copy =
        RocksDbStorageEngine.open(taken, RocksDbStorageEngineTest.SMALL, storageThreads)) {
      assertThat(contents(copy)).isEqualTo(before);
    }
  }

  @Test
  void aWriterGoesOnWithoutAnErrorWhileSnapshotsAreTaken() throws Exception {
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Throwable> errors = new ArrayList<>();
    AtomicLong written = new AtomicLong();
    Thread writer =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (writing.get()) {
                    try {
                      put("w" + written.get() % 2000, Record.value(version(), new byte[512]));
                      written.incrementAndGet();
                    } catch (Exception e) {
                      synchronized (errors) {
                        errors.add(e);
                      }
                    }
                  }
                });
    try {
      for (int i = 0; i < 5; i++) {
        long before = written.get();
        snapshots.take("s" + i).get(30, TimeUnit.SECONDS);
        assertThat(written.get()).isGreaterThanOrEqualTo(before);
      }
    } finally {
      writing.set(false);
      writer.join();
    }
    assertThat(errors).isEmpty();
    assertThat(written.get()).isPositive();
    assertThat(snapshots.list().get().whole()).extracting(SnapshotManifest::name).hasSize(5);
  }

  @Test
  void namesAreCheckedNotReusedAndADeletedSnapshotIsGone() throws Exception {
    put("k", Record.value(version(), bytes("v")));
    snapshots.take("nightly").get(30, TimeUnit.SECONDS);

    assertThat(failure(snapshots.take("nightly")))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.SNAPSHOT_EXISTS));
    for (String bad : List.of("", "../x", ".hidden", "a/b", "x".repeat(65))) {
      assertThat(failure(snapshots.take(bad))).as(bad).isInstanceOf(InvalidRequestException.class);
    }
    assertThat(failure(snapshots.delete("absent"))).isInstanceOf(SnapshotException.class);

    snapshots.delete("nightly").get(30, TimeUnit.SECONDS);
    assertThat(snapshots.list().get().whole()).isEmpty();
    assertThat(dataDir.resolve("snapshots").resolve("nightly")).doesNotExist();
  }

  @Test
  void aSnapshotInterruptedMidwayIsNeitherListedNorInTheWayOfTheNext() throws Exception {
    Path partial = Files.createDirectories(dataDir.resolve("snapshots").resolve(".partial-again"));
    Files.writeString(partial.resolve("000001.sst"), "half a file");

    assertThat(snapshots.list().get().whole()).isEmpty();
    assertThat(snapshots.take("again").get(30, TimeUnit.SECONDS).name()).isEqualTo("again");
    assertThat(partial).doesNotExist();
  }

  /**
   * Issue 39: a snapshot answered is on the disk. Every file of it and every directory that names
   * it is synced before the rename that makes it whole, and the directory holding that name after.
   */
  @Test
  void everyFileAndDirectoryOfASnapshotIsSyncedBeforeItIsWholeAndItsNameAfter() throws Exception {
    for (int i = 0; i < 100; i++) {
      put("k" + i, Record.value(version(), bytes("v" + i)));
    }
    List<Path> synced = Collections.synchronizedList(new ArrayList<>());
    Path snapshotsDir = dataDir.resolve("snapshots").toAbsolutePath();
    RocksDbSnapshots counted =
        new RocksDbSnapshots(
            engine,
            snapshotsDir,
            "n1",
            clock::get,
            snapshotThread,
            new DurableFiles(
                path -> {
                  synced.add(path.toAbsolutePath());
                  DurableFiles.FileSync.DISK.sync(path);
                }));

    counted.take("durable").get(30, TimeUnit.SECONDS);

    Path taken = snapshotsDir.resolve("durable");
    Path partial = snapshotsDir.resolve(".partial-durable");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(taken)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertThat(files).extracting(f -> f.getFileName().toString()).contains("manifest.json");
    for (Path file : files) {
      assertThat(synced).as(file.toString()).contains(partial.resolve(taken.relativize(file)));
    }
    int rename = synced.lastIndexOf(snapshotsDir);
    assertThat(synced.indexOf(partial)).as("the snapshot's directory").isBetween(0, rename);
    assertThat(rename).as("the name, synced last").isEqualTo(synced.size() - 1);
    assertThat(synced).as("snapshots/ was made: its parent holds its name").contains(dataDir);
  }

  /** Issue 39: one damaged snapshot neither hides the others nor fails the listing. */
  @Test
  void aSnapshotWhoseManifestIsEmptyIsListedAsDamagedAndCanBeDeleted() throws Exception {
    put("k", Record.value(version(), bytes("v")));
    snapshots.take("good").get(30, TimeUnit.SECONDS);
    snapshots.take("cut").get(30, TimeUnit.SECONDS);
    Path cut = dataDir.resolve("snapshots").resolve("cut");
    Files.write(cut.resolve("manifest.json"), new byte[0]);
    Files.createDirectories(dataDir.resolve("snapshots").resolve("bare"));

    SnapshotListing listing = snapshots.list().get(30, TimeUnit.SECONDS);

    assertThat(listing.whole()).extracting(SnapshotManifest::name).containsExactly("good");
    assertThat(listing.damaged())
        .extracting(SnapshotListing.Damaged::name)
        .containsExactly("bare", "cut");
    assertThat(listing.damaged().get(1).problem()).contains("manifest.json is empty");
    assertThat(listing.damaged().get(0).problem()).contains("manifest.json is missing");
    assertThat(failure(snapshots.take("cut")))
        .as("its name is still taken")
        .isInstanceOf(SnapshotException.class);

    snapshots.delete("cut").get(30, TimeUnit.SECONDS);
    assertThat(cut).doesNotExist();
    assertThat(snapshots.list().get(30, TimeUnit.SECONDS).damaged())
        .extracting(SnapshotListing.Damaged::name)
        .containsExactly("bare");
  }

  @Test
  void filesOnlyASnapshotHoldsAreCountedOnceTheDatabaseLetsThemGo() throws Exception {
    for (int i = 0; i < 200; i++) {
      put("k" + i, Record.value(version(), new byte[1024]));
    }
    snapshots.take("held").get(30, TimeUnit.SECONDS);
    // Only the small files a checkpoint copies (its MANIFEST, OPTIONS, manifest.json): the data
    // files are links to the live database's.
    assertThat(snapshots.bytesHeldAlone()).isLessThan(64 * 1024);

    for (int i = 0; i < 200; i++) {
      put("k" + i, Record.tombstone(version()));
    }
    Compaction.compact(engine);
    assertThat(snapshots.bytesHeldAlone()).isGreaterThan(100_000);
  }

  @Test
  void whatSnapshotsHoldAloneCountsInTheDiskLimit() throws Exception {
    Path capped = dataDir.resolve("capped");
    Path cappedSnapshots = dataDir.resolve("capped-snapshots");
    Random random = new Random(7);
    // Filled without a limit (a manual compaction under one is refused for want of room), then
    // compacted so that the snapshot holds its 3 MiB alone.
    try (RocksDbStorageEngine unlimited =
        RocksDbStorageEngine.open(capped, RocksDbStorageEngineTest.SMALL, storageThreads)) {
      for (int i = 0; i < 48; i++) {
        unlimited.put(Key.utf8("a" + i), Record.value(version(), randomBytes(random))).get();
      }
      new RocksDbSnapshots(unlimited, cappedSnapshots, "n1", clock::get, snapshotThread)
          .take("before")
          .get(30, TimeUnit.SECONDS);
      for (int i = 0; i < 48; i++) {
        unlimited.put(Key.utf8("a" + i), Record.tombstone(version())).get();
      }
      Compaction.compact(unlimited);
    }
    long budget = 8L << 20;
    RocksDbStorageEngine limited =
        RocksDbStorageEngine.open(
            capped, new RocksDbSettings(false, 8L << 20, 256L << 10, budget), storageThreads);
    try {
      RocksDbSnapshots held =
          new RocksDbSnapshots(limited, cappedSnapshots, "n1", clock::get, snapshotThread);
      assertThat(held.bytesHeldAlone()).isGreaterThan(5L << 19);
      assertThat(held.keepInLimitNow()).isEqualTo(budget - held.bytesHeldAlone());

      long written = 0;
      Throwable failure = null;
      for (int i = 0; i < 200 && failure == null; i++) {
        try {
          limited.put(Key.utf8("b" + i), Record.value(version(), randomBytes(random))).get();
          written += 64 << 10;
        } catch (java.util.concurrent.ExecutionException e) {
          failure = e.getCause();
        }
      }
      assertThat(failure)
          .isInstanceOfSatisfying(
              StorageException.class,
              e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE));
      // Without the snapshot counted the database would have taken about the whole 8 MiB.
      assertThat(written).isLessThan(budget - (3L << 19));
    } finally {
      limited.close();
    }
  }

  private static byte[] randomBytes(Random random) {
    byte[] value = new byte[64 << 10];
    random.nextBytes(value);
    return value;
  }

  private Version version() {
    return new Version(clock.incrementAndGet());
  }

  private void put(String key, Record record) throws Exception {
    engine.put(Key.utf8(key), record).get(10, TimeUnit.SECONDS);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    return Futures.failure(future, Duration.ofSeconds(30));
  }

  private static Map<String, Record> contents(RocksDbStorageEngine engine) throws Exception {
    Map<String, Record> records = new TreeMap<>();
    try (ScanCursor cursor = engine.scan(KeyRange.from(Key.of(new byte[] {0})))) {
      while (true) {
        List<Entry> batch = cursor.next(1000, 1 << 20).get(10, TimeUnit.SECONDS);
        if (batch.isEmpty()) {
          return records;
        }
        for (Entry entry : batch) {
          records.put(new String(entry.key().bytes(), StandardCharsets.UTF_8), entry.record());
        }
      }
    }
  }
}
