package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine.PurgeResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@link StorageEngine} contract, written once and bound to every implementation by a subclass
 * that says how to open a fresh, empty engine. Last-writer-wins order and batches have their own
 * suite, {@link LastWriterWinsContract}.
 */
public abstract class StorageEngineContract extends StorageEngineFixture {
  // ---- get and put ----------------------------------------------------------------------------

  @Test
  void getOfAnAbsentKeyIsEmpty() {
    assertThat(get(key("nobody"))).isEmpty();
  }

  @Test
  void putThenGetReturnsTheRecord() {
    Record record = value(10, "hello");

    put(key("k"), record);

    assertThat(get(key("k"))).contains(record);
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
    List<CompletableFuture<Void>> puts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Key k = key(String.format("key-%05d", i));
      expected.add(k);
      puts.add(engine.put(k, value(1, "v" + i)));
      if (puts.size() == 500) {
        puts.forEach(StorageEngineFixture::await);
        puts.clear();
      }
    }
    puts.forEach(StorageEngineFixture::await);

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
    put(key("e"), value(1, "x"));
    assertThat(get(key("e"))).contains(value(1, "x"));
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

  @Test
  void purgeKeepsARecordThatWonAtTheSameVersionAndDiesLater() {
    Key key = key("k");
    Record later = Record.value(version(1_000), bytes("x"), 2_500);
    put(key, Record.value(version(1_000), bytes("x"), 1_500));
    put(key, later);

    assertThat(purge(2_000, 100).removed()).isZero();

    assertThat(get(key)).contains(later);
  }

  @Test
  void purgeCountsARecordOnceWhateverLedToIt() {
    Key key = key("k");
    put(key, Record.value(version(1_000), bytes("x"), 1_200));
    put(key, tombstone(1_500));

    PurgeResult result = purge(2_000, 100);

    assertThat(result.examined()).as("two index entries").isEqualTo(2);
    assertThat(result.removed()).isEqualTo(1);
    assertThat(get(key)).isEmpty();
  }

  @Test
  void aWriteRacingAPurgeIsNeverLost() throws Exception {
    // Rounds of fresh keys, as the race is decided in microseconds and need not show every time.
    for (int round = 0; round < 4; round++) {
      List<Key> keys = new ArrayList<>();
      for (int i = 0; i < 2_000; i++) {
        keys.add(key(String.format("race-%d/%05d", round, i)));
      }
      putAll(keys.stream().map(k -> new Entry(k, tombstone(1_000))).toList());
      // Each rewrite beats the tombstone and is not dead before the cut-off: none may be purged.
      Record rewrite = Record.value(version(1_500), bytes("rewritten"), 5_000);

      raceRewritesAgainstPurges(keys, rewrite, round);

      List<Key> lost = keys.stream().filter(k -> !get(k).equals(Optional.of(rewrite))).toList();
      assertThat(lost).as("rewritten keys purged (round %d)", round).isEmpty();
    }
    assertThat(purge(2_000, 10_000).removed()).as("nothing dead is left").isZero();
  }

  private void raceRewritesAgainstPurges(List<Key> keys, Record rewrite, int seed)
      throws Exception {
    List<Key> shuffled = new ArrayList<>(keys);
    Collections.shuffle(shuffled, new Random(seed));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> tasks = new ArrayList<>();
      for (List<Key> mine :
          List.of(
              shuffled.subList(0, keys.size() / 2),
              shuffled.subList(keys.size() / 2, keys.size()))) {
        tasks.add(
            pool.submit(
                () -> {
                  start.await();
                  mine.forEach(k -> put(k, rewrite));
                  return null;
                }));
      }
      tasks.add(
          pool.submit(
              () -> {
                start.await();
                while (purge(2_000, 50).examined() == 50) {
                  // on until the index holds nothing dead before the cut-off
                }
                return null;
              }));
      start.countDown();
      for (Future<?> task : tasks) {
        task.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- reads from memory -----------------------------------------------------------------------

  @Test
  void aReadFromMemoryAnswersWhatGetAnswersOrNothing() {
    put(key("k"), value(2_000, "newer"));
    put(key("k"), value(1_000, "older"));
    put(key("t"), tombstone(3_000));
    putAll(List.of(new Entry(key("b"), value(1, "batched"))));

    for (String k : List.of("k", "t", "b", "absent")) {
      Optional<Optional<Record>> known = engine.getFromMemory(key(k));
      known.ifPresent(record -> assertThat(record).as(k).isEqualTo(get(key(k))));
    }
  }

  @Test
  void recentWritesAndAbsentKeysAreKnownFromMemoryOnTheCallingThread() {
    put(key("k"), value(1_000, "v"));

    assertThat(engine.getFromMemory(key("k"))).contains(Optional.of(value(1_000, "v")));
    assertThat(engine.getFromMemory(key("absent"))).contains(Optional.empty());
  }

  @Test
  void aClosedEngineKnowsNothingFromMemory() {
    put(key("k"), value(1, "v"));
    engine.close();

    assertThat(engine.getFromMemory(key("k"))).isEmpty();
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  @Test
  void operationsAfterCloseFailWithStorageException() {
    put(key("k"), value(1, "v"));
    engine.close();

    assertFailsWithStorageException(engine.get(key("k")));
    assertFailsWithStorageException(engine.put(key("k"), value(2, "v")));
    assertFailsWithStorageException(engine.putAll(List.of(new Entry(key("k"), value(2, "v")))));
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

  private void putKeys(String... keys) {
    for (String k : keys) {
      put(key(k), value(1, k));
    }
  }
}
