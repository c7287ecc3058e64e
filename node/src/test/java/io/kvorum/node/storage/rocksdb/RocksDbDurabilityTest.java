package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Release;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

/** What survives a killed process, and which data directories the engine agrees to open. */
class RocksDbDurabilityTest {
  private static final int ACKNOWLEDGED_BEFORE_THE_KILL = 5_000;

  @TempDir Path dir;

  private final ThreadPoolExecutor executor = StorageThreads.bounded(4, 10_000);

  @AfterEach
  void stopExecutor() throws InterruptedException {
    assertThat(StorageThreads.stop(executor)).isTrue();
  }

  /** Written on the writer's thread (run to completion) and through the storage threads. */
  @ParameterizedTest
  @ValueSource(strings = {"at-once", "queued"})
  void aKilledProcessLosesNoAcknowledgedWrite(String writes) throws Exception {
    Path data = dir.resolve("db");
    Path stderr = dir.resolve("writer.err");
    Process writer =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                CrashWriter.class.getName(),
                data.toString(),
                writes)
            .redirectError(stderr.toFile())
            .start();
    Map<String, Long> acknowledged = new HashMap<>();
    int lines = 0;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        String[] ack = line.split(" ");
        acknowledged.merge(ack[0], Long.parseLong(ack[1]), Math::max);
        if (++lines == ACKNOWLEDGED_BEFORE_THE_KILL) {
          // SIGKILL (by pid: the Process would close its pipes) with no close, no WAL sync;
          // the lines still in the pipe were acknowledged before it died.
          writer.toHandle().destroyForcibly();
        }
      }
    } finally {
      writer.destroyForcibly();
      assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(lines)
        .as("acknowledged writes before the kill; the writer said: %s", Files.readString(stderr))
        .isGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_THE_KILL);

    try (RocksDbStorageEngine reopened =
        RocksDbStorageEngine.open(data, RocksDbStorageEngineTest.SMALL, executor)) {
      List<String> lost = new ArrayList<>();
      acknowledged.forEach(
          (name, version) -> {
            Optional<Record> stored = reopened.get(Key.utf8(name)).join();
            boolean kept =
                stored.isPresent()
                    && stored.get().version().value() >= version
                    && stored.get().equals(CrashWriter.record(stored.get().version().value()));
            if (!kept) {
              lost.add(name + "@" + version + " read " + stored);
            }
          });
      assertThat(lost).as("of %d acknowledged keys", acknowledged.size()).isEmpty();
    }
  }

  @Test
  void aFreshDirectoryIsMarkedWithTheRecordFormat() throws Exception {
    RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor).close();

    assertThat(Files.readString(dir.resolve(FormatMarker.FILE)).strip())
        .isEqualTo(FormatMarker.CURRENT);
    RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor).close();
  }

  @Test
  void anUnmarkedDirectoryOfADevelopmentBuildBefore010IsRefusedUntouched() throws Exception {
    byte[] format2 = {0x20, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'v'};
    writeUnmarked(db -> db.put("k".getBytes(StandardCharsets.UTF_8), format2));
    int familiesBefore = families();

    assertThatThrownBy(
            () -> RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor))
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains(dir.toString(), "before kvorum 0.1.0", "wipe the data directory"));

    assertThat(Files.exists(dir.resolve(FormatMarker.FILE))).isFalse();
    assertThat(families()).isEqualTo(familiesBefore);
  }

  @Test
  void anUnmarkedDirectoryWithoutRecordsIsAdopted() throws Exception {
    writeUnmarked(db -> {}); // as a crash between creating the database and marking it leaves it

    try (RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor)) {
      engine.put(Key.utf8("k"), Record.value(new Version(1), new byte[] {1})).join();
    }

    assertThat(Files.readString(dir.resolve(FormatMarker.FILE)).strip())
        .isEqualTo(FormatMarker.CURRENT);
  }

  /** A directory of 0.1.0 (the same format, marked alike) opens, and 0.1.0 can open it again. */
  @Test
  void aDirectoryOfRelease010OpensAsItIsAndStaysOpenableBy010() throws Exception {
    try (RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor)) {
      engine.put(Key.utf8("k"), Record.value(new Version(1), new byte[] {1})).join();
    }
    Files.writeString(dir.resolve(FormatMarker.FILE), "kvorum-records-3\n"); // as 0.1.0 wrote it

    try (RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor)) {
      assertThat(engine.get(Key.utf8("k")).join())
          .contains(Record.value(new Version(1), new byte[] {1}));
    }
    // 0.1.0 opens a directory only if the whole marker, stripped, is its format.
    assertThat(Files.readString(dir.resolve(FormatMarker.FILE)).strip())
        .isEqualTo("kvorum-records-3");
  }

  @Test
  void aNewerFormatIsRefusedNamingTheReleaseThatWroteIt() throws Exception {
    RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor).close();
    Files.writeString(dir.resolve(FormatMarker.FILE), "kvorum-records-4\nrelease=0.3.0\n");

    assertThatThrownBy(
            () -> RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor))
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains(
                        dir.toString(),
                        "'kvorum-records-4', newer than kvorum " + Release.version(),
                        "start this node with kvorum 0.3.0 or later"));
    assertThat(Files.readString(dir.resolve(FormatMarker.FILE)))
        .isEqualTo("kvorum-records-4\nrelease=0.3.0\n");
  }

  @Test
  void aNewerFormatWithoutItsReleaseIsRefusedAsALaterReleasesOne() throws Exception {
    RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor).close();
    Files.writeString(dir.resolve(FormatMarker.FILE), "kvorum-records-9\n");

    assertThatThrownBy(
            () -> RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor))
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "kvorum-records-9",
                        "the release that wrote it (one later than " + Release.version() + ")"));
  }

  @Test
  void anOlderFormatIsRefused() throws Exception {
    RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor).close();
    Files.writeString(dir.resolve(FormatMarker.FILE), "kvorum-records-2\n");

    assertThatThrownBy(
            () -> RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor))
        .isInstanceOf(StorageException.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains("'kvorum-records-2'", "does not read", "wipe the data directory"));
  }

  private int families() throws Exception {
    try (Options options = new Options()) {
      return RocksDB.listColumnFamilies(options, dir.toString()).size();
    }
  }

  @FunctionalInterface
  private interface RawWrite {
    void apply(RocksDB db) throws Exception;
  }

  /** A database with kvorum's column families, written without the engine (and its marker). */
  private void writeUnmarked(RawWrite write) throws Exception {
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options =
            new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        RocksDB db =
            RocksDB.open(
                options,
                dir.toString(),
                List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                    new ColumnFamilyDescriptor(RocksDbOptions.bytes(RocksDbOptions.DEATHS)),
                    new ColumnFamilyDescriptor(RocksDbOptions.bytes(RocksDbOptions.HINTS))),
                handles)) {
      write.apply(db);
      handles.forEach(ColumnFamilyHandle::close);
    }
  }
}
