package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.StorageEngine.PurgeResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link StorageEngine} contract, written once and bound to every implementation by a subclass
 * that says how to open a fresh, empty engine.
 */
public abstract class StorageEngineContract {
  protected static final Duration WAIT = Duration.ofSeconds(10);
  private static final long FOREVER = Long.MAX_VALUE;

  /** The engine under test; subclasses may replace it (the contract closes whatever is here). */
  protected StorageEngine engine;

  /** A fresh, empty engine. */
  protected abstract StorageEngine newEngine() throws Exception;

  @BeforeEach
  void openEngine() throws Exception {
    engine = newEngine();
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  // ---- get and put ----------------------------------------------------------------------------

  @Test
  void getOfAnAbsentKeyIsEmpty() {
    assertThat(get(key("nobody"))).isEmpty();
  }

  @Test
  void putThenGetReturnsTheRecord() {
    Record record = value(10, "hello");

    assertThat(put(key("k"), record)).isTrue();

    assertThat(get(key("k"))).contains(record);
  }

  @Test
  void newerPutReplacesOlder() {
    Key key = key("k");
    put(key, value(10, "old"));

    assertThat(put(key, value(20, "new"))).isTrue();

    assertThat(get(key)).contains(value(20, "new"));
  }

  @Test
  void olderPutArrivingLateChangesNothing() {
    Key key = key("k");
    put(key, value(20, "new"));

    assertThat(put(key, value(10, "old"))).isFalse();
    assertThat(put(key, tombstone(19))).isFalse();

    assertThat(get(key)).contains(value(20, "new"));
  }

  @Test
  void newerTombstoneReplacesValueAndOlderValueDoesNotResurrectIt() {
    Key key = key("k");
    put(key, value(10, "v"));

    assertThat(put(key, tombstone(11))).isTrue();
    assertThat(put(key, value(10, "v"))).isFalse();

    assertThat(get(key)).contains(tombstone(11));
  }

  @Test
  void atEqualVersionTombstoneBeatsValueInEitherOrder() {
    Key first = key("value-first");
    put(first, value(10, "v"));
    assertThat(put(first, tombstone(10))).isTrue();
    assertThat(get(first)).contains(tombstone(10));

    Key second = key("tombstone-first");
    put(second, tombstone(10));
    assertThat(put(second, value(10, "v"))).isFalse();
    assertThat(get(second)).contains(tombstone(10));
  }

  @Test
  void atEqualVersionLargerValueBytesWinUnsignedInEitherOrder() {
    Record small = Record.value(version(10), new byte[] {0x7F});
    Record large = Record.value(version(10), new byte[] {(byte) 0x80});

    Key first = key("small-first");
    put(first, small);
    assertThat(put(first, large)).isTrue();
    assertThat(get(first)).contains(large);

    Key second = key("large-first");
    put(second, large);
    assertThat(put(second, small)).isFalse();
    assertThat(get(second)).contains(large);
  }

  @Test
  void reputtingAnIdenticalRecordReportsNoChange() {
    Key key = key("k");
    Record record = value(10, "v");
    put(key, record);

    assertThat(put(key, value(10, "v"))).as("an equal copy").isFalse();
    assertThat(put(key, record)).as("the very same instance").isFalse();

    assertThat(get(key)).contains(record);
  }

  @Test
  void concurrentPutsOfManyVersionsToOneKeyLeaveTheNewest() throws Exception {
    Key key = key("contended");
    int writers = 8;
    int versionsPerWriter = 250;
    List<Integer> versions = new ArrayList<>();
    for (int v = 1; v <= writers * versionsPerWriter; v++) {
      versions.add(v);
    }
    Collections.shuffle(versions, new Random(42));
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        List<Integer> mine = versions.subList(w * versionsPerWriter, (w + 1) * versionsPerWriter);
        done.add(
            pool.submit(
                () -> {
                  for (int v : mine) {
                    put(key, value(v, "v" + v));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    int newest = writers * versionsPerWriter;
    assertThat(get(key)).contains(value(newest, "v" + newest));
  }

  @Test
  void emptyValuesAreStoredAndAreNotTombstones() {
    Key key = key("empty");
    Record empty = Record.value(version(10), new byte[0]);

    put(key, empty);

    Record stored = get(key).orElseThrow();
    assertThat(stored.tombstone()).isFalse();
    assertThat(stored.value()).isEmpty();
    assertThat(stored).isEqualTo(empty);
  }

  @Test
  void binaryKeysWithZeroAndFfBytesAreDistinct() {
    Key zero = Key.of(new byte[] {0x00});
    Key ff = Key.of(new byte[] {(byte) 0xFF});
    Key mixed = Key.of(new byte[] {0x00, (byte) 0xFF, 0x00});
    Key zeroZero = Key.of(new byte[] {0x00, 0x00});
    put(zero, value(1, "zero"));
    put(ff, value(1, "ff"));
    put(mixed, value(1, "mixed"));
    put(zeroZero, value(1, "zero-zero"));

    assertThat(get(zero)).contains(value(1, "zero"));
    assertThat(get(ff)).contains(value(1, "ff"));
    assertThat(get(mixed)).contains(value(1, "mixed"));
    assertThat(get(zeroZero)).contains(value(1, "zero-zero"));
  }

  @Test
  void expiringValuesKeepTheirExpiry() {
    Key key = key("ttl");
    Record expiring = Record.value(version(10), bytes("v"), 123_456L);

    put(key, expiring);

    assertThat(get(key)).contains(expiring);
  }

  // ---- scans ----------------------------------------------------------------------------------

  @Test
  void scanReturnsKeysInUnsignedByteOrder() {
    byte[][] keys = {{(byte) 0xFF}, {(byte) 0x80}, {0x00}, {0x7F}, {0x01}, {0x7F, 0x00}};
    for (byte[] k : keys) {
      put(Key.of(k), value(1, "x"));
    }

    assertThat(keysOf(scanAll(KeyRange.from(Key.of(new byte[] {0x00})))))
        .containsExactly(
            Key.of(new byte[] {0x00}),
            Key.of(new byte[] {0x01}),
            Key.of(new byte[] {0x7F}),
            Key.of(new byte[] {0x7F, 0x00}),
            Key.of(new byte[] {(byte) 0x80}),
            Key.of(new byte[] {(byte) 0xFF}));
  }

  @Test
  void scanStartIsInclusiveAndEndExclusive() {
    putKeys("a", "b", "c", "d");

    assertThat(keysOf(scanAll(KeyRange.between(key("b"), key("d")))))
        .containsExactly(key("b"), key("c"));
    assertThat(keysOf(scanAll(KeyRange.between(key("bb"), key("cc")))))
        .as("bounds between stored keys")
        .containsExactly(key("c"));
  }

  @Test
  void scanWithoutEndRunsToTheLastKey() {
    putKeys("a", "b", "c", "d");

    assertThat(keysOf(scanAll(KeyRange.from(key("b")))))
        .containsExactly(key("b"), key("c"), key("d"));
  }

  @Test
  void scanWhoseEndIsNotAfterStartIsEmpty() {
    putKeys("a", "b", "c", "d");

    assertThat(scanAll(KeyRange.between(key("b"), key("b")))).isEmpty();
    assertThat(scanAll(KeyRange.between(key("c"), key("a")))).isEmpty();
  }

  @Test
  void scanOfAnEmptyEngineIsEmpty() {
    assertThat(scanAll(KeyRange.from(key("a")))).isEmpty();
  }

  @Test
  void scanIncludesTombstonesAndExpiredRecords() {
    put(key("a"), value(10, "live"));
    put(key("b"), tombstone(10));
    put(key("c"), Record.value(version(10), bytes("expired"), 1L));

    assertThat(scanAll(KeyRange.from(key("a"))))
        .containsExactly(
            new Entry(key("a"), value(10, "live")),
            new Entry(key("b"), tombstone(10)),
            new Entry(key("c"), Record.value(version(10), bytes("expired"), 1L)));
  }

  @Test
  void nextReturnsAtMostMaxEntriesAndThenEmptyAtTheEnd() {
    putKeys("a", "b", "c", "d", "e", "f", "g");

    try (ScanCursor cursor = engine.scan(KeyRange.from(key("a")))) {
      assertThat(keysOf(next(cursor, 3, FOREVER))).containsExactly(key("a"), key("b"), key("c"));
      assertThat(keysOf(next(cursor, 3, FOREVER))).containsExactly(key("d"), key("e"), key("f"));
      assertThat(keysOf(next(cursor, 3, FOREVER))).containsExactly(key("g"));
      assertThat(next(cursor, 3, FOREVER)).isEmpty();
      assertThat(next(cursor, 3, FOREVER)).as("still empty after the end").isEmpty();
    }
  }

  @Test
  void nextStopsAfterTheEntryThatReachesMaxBytes() {
    // Each entry is a one-byte key and a 100-byte value: 101 bytes.
    for (String k : List.of("a", "b", "c", "d", "e")) {
      put(key(k), Record.value(version(1), new byte[100]));
    }

    try (ScanCursor cursor = engine.scan(KeyRange.from(key("a")))) {
      assertThat(keysOf(next(cursor, 100, 150))).containsExactly(key("a"), key("b"));
      assertThat(keysOf(next(cursor, 100, 202))).containsExactly(key("c"), key("d"));
      assertThat(keysOf(next(cursor, 100, 1))).as("at least one entry").containsExactly(key("e"));
      assertThat(next(cursor, 100, 1)).isEmpty();
    }
  }

  @Test
  void aLongScanInSmallBatchesReturnsEveryKeyOnceInOrder() {
    int count = 3000;
    List<Key> expected = new ArrayList<>();
    List<CompletableFuture<Boolean>> puts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Key k = key(String.format("key-%05d", i));
      expected.add(k);
      puts.add(engine.put(k, value(1, "v" + i)));
      if (puts.size() == 500) {
        puts.forEach(StorageEngineContract::await);
        puts.clear();
      }
    }
    puts.forEach(StorageEngineContract::await);

    List<Key> seen = new ArrayList<>();
    int batches = 0;
    try (ScanCursor cursor = engine.scan(KeyRange.from(key("key-")))) {
      for (List<Entry> batch = next(cursor, 7, FOREVER);
          !batch.isEmpty();
          batch = next(cursor, 7, FOREVER)) {
        assertThat(batch).hasSizeLessThanOrEqualTo(7);
        seen.addAll(keysOf(batch));
        batches++;
      }
    }

    assertThat(seen).containsExactlyElementsOf(expected);
    assertThat(batches).isEqualTo((count + 6) / 7);
  }

  @Test
  void closingACursorEarlyIsFineAndIdempotent() {
    putKeys("a", "b", "c", "d");

    ScanCursor started = engine.scan(KeyRange.from(key("a")));
    assertThat(next(started, 1, FOREVER)).hasSize(1);
    started.close();
    started.close();

    ScanCursor neverStarted = engine.scan(KeyRange.from(key("a")));
    neverStarted.close();
    neverStarted.close();

    assertThat(keysOf(scanAll(KeyRange.from(key("a")))))
        .as("the engine still serves scans")
        .containsExactly(key("a"), key("b"), key("c"), key("d"));
    assertThat(put(key("e"), value(1, "x"))).isTrue();
  }

  // ---- purge ----------------------------------------------------------------------------------

  @Test
  void purgeRemovesTombstonesWrittenBeforeTheCutOff() {
    put(key("old-delete"), tombstone(1_000));
    put(key("recent-delete"), tombstone(3_000));
    put(key("delete-at-cut-off"), tombstone(2_000));

    PurgeResult result = purge(2_000, 100);

    assertThat(result.removed()).isEqualTo(1);
    assertThat(get(key("old-delete"))).isEmpty();
    assertThat(get(key("recent-delete"))).contains(tombstone(3_000));
    assertThat(get(key("delete-at-cut-off"))).contains(tombstone(2_000));
  }

  @Test
  void purgeRemovesValuesThatExpiredBeforeTheCutOff() {
    Record expiredLongAgo = Record.value(version(1_000), bytes("x"), 1_500);
    Record expiresLater = Record.value(version(1_000), bytes("y"), 2_500);
    put(key("expired"), expiredLongAgo);
    put(key("not-yet"), expiresLater);

    PurgeResult result = purge(2_000, 100);

    assertThat(result.removed()).isEqualTo(1);
    assertThat(get(key("expired"))).isEmpty();
    assertThat(get(key("not-yet"))).contains(expiresLater);
  }

  @Test
  void purgeKeepsLiveValuesHoweverOld() {
    put(key("ancient"), value(1, "still here"));

    purge(1_000_000, 100);

    assertThat(get(key("ancient"))).contains(value(1, "still here"));
  }

  @Test
  void purgeKeepsAWriteThatCameAfterTheTombstone() {
    Key key = key("k");
    put(key, tombstone(1_000));
    put(key, value(1_500, "rewritten"));

    PurgeResult result = purge(2_000, 100);

    assertThat(result.removed()).isZero();
    assertThat(get(key)).contains(value(1_500, "rewritten"));
  }

  @Test
  void purgeKeepsATombstoneThatReplacedAnExpiredValue() {
    Key key = key("k");
    put(key, Record.value(version(1_000), bytes("x"), 1_200));
    put(key, tombstone(5_000));

    purge(2_000, 100);

    assertThat(get(key)).contains(tombstone(5_000));
  }

  @Test
  void purgeHonoursItsLimitAndRepeatedCallsFinishTheJob() {
    int dead = 25;
    for (int i = 0; i < dead; i++) {
      put(key(String.format("dead-%02d", i)), tombstone(1_000 + i));
    }
    put(key("alive"), value(1_000, "v"));

    int limit = 4;
    int removed = 0;
    int calls = 0;
    PurgeResult result;
    do {
      result = purge(10_000, limit);
      assertThat(result.examined()).isLessThanOrEqualTo(limit);
      assertThat(result.removed()).isLessThanOrEqualTo(result.examined());
      removed += result.removed();
      calls++;
    } while (result.examined() == limit && calls < 100);

    assertThat(removed).isEqualTo(dead);
    assertThat(keysOf(scanAll(KeyRange.from(key("a"))))).containsExactly(key("alive"));
    assertThat(purge(10_000, limit).removed()).as("nothing left to purge").isZero();
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  @Test
  void operationsAfterCloseFailWithStorageException() {
    put(key("k"), value(1, "v"));
    engine.close();

    assertFailsWithStorageException(engine.get(key("k")));
    assertFailsWithStorageException(engine.put(key("k"), value(2, "v")));
    assertFailsWithStorageException(engine.purge(10_000, 10));
    try (ScanCursor cursor = engine.scan(KeyRange.from(key("a")))) {
      assertFailsWithStorageException(cursor.next(10, FOREVER));
    }
  }

  @Test
  void closeIsIdempotent() {
    engine.close();
    engine.close();
  }

  // ---- helpers --------------------------------------------------------------------------------

  protected static Key key(String text) {
    return Key.utf8(text);
  }

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected static Version version(long physicalMillis) {
    return Version.of(physicalMillis, 0);
  }

  protected static Record value(long physicalMillis, String value) {
    return Record.value(version(physicalMillis), bytes(value));
  }

  protected static Record tombstone(long physicalMillis) {
    return Record.tombstone(version(physicalMillis));
  }

  protected Optional<Record> get(Key key) {
    return await(engine.get(key));
  }

  protected boolean put(Key key, Record record) {
    return await(engine.put(key, record));
  }

  protected PurgeResult purge(long deadBeforeMillis, int limit) {
    return await(engine.purge(deadBeforeMillis, limit));
  }

  private void putKeys(String... keys) {
    for (String k : keys) {
      put(key(k), value(1, k));
    }
  }

  protected List<Entry> scanAll(KeyRange range) {
    List<Entry> all = new ArrayList<>();
    try (ScanCursor cursor = engine.scan(range)) {
      for (List<Entry> batch = next(cursor, 2, FOREVER);
          !batch.isEmpty();
          batch = next(cursor, 2, FOREVER)) {
        all.addAll(batch);
      }
    }
    return all;
  }

  private static List<Entry> next(ScanCursor cursor, int maxEntries, long maxBytes) {
    return await(cursor.next(maxEntries, maxBytes));
  }

  protected static List<Key> keysOf(List<Entry> entries) {
    return entries.stream().map(Entry::key).toList();
  }

  protected static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new AssertionError(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (TimeoutException e) {
      throw new AssertionError("storage call did not complete within " + WAIT, e);
    }
  }

  protected static void assertFailsWithStorageException(CompletableFuture<?> future) {
    assertThat(future)
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(StorageException.class);
  }
}
