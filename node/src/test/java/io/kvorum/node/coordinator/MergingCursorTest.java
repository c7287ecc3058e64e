package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MergingCursorTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final long NOW = 1_700_000_000_000L;
  private static final long FOREVER = Long.MAX_VALUE;

  private final List<InMemoryStorageEngine> engines = new ArrayList<>();

  @AfterEach
  void closeEngines() {
    engines.forEach(InMemoryStorageEngine::close);
  }

  @Test
  void mergesSortedSourcesIntoOneSortedStream() {
    InMemoryStorageEngine a = engine("a", "d", "g");
    InMemoryStorageEngine b = engine("b", "e", "h", "i");
    InMemoryStorageEngine c = engine("c", "f");

    List<Entry> merged = readAll(merge(a, b, c), 2, FOREVER);

    assertThat(keys(merged)).containsExactly("a", "b", "c", "d", "e", "f", "g", "h", "i");
  }

  @Test
  void theOrderIsUnsignedByteOrder() {
    InMemoryStorageEngine a = new InMemoryStorageEngine();
    InMemoryStorageEngine b = new InMemoryStorageEngine();
    engines.add(a);
    engines.add(b);
    put(a, Key.of(new byte[] {(byte) 0x80}), live(1, "high"));
    put(a, Key.of(new byte[] {0x00}), live(1, "zero"));
    put(b, Key.of(new byte[] {0x7F}), live(1, "below-high"));
    put(b, Key.of(new byte[] {(byte) 0xFF, 0x00}), live(1, "top"));

    List<Entry> merged = readAll(merge(a, b), 10, FOREVER);

    assertThat(merged)
        .extracting(Entry::key)
        .containsExactly(
            Key.of(new byte[] {0x00}),
            Key.of(new byte[] {0x7F}),
            Key.of(new byte[] {(byte) 0x80}),
            Key.of(new byte[] {(byte) 0xFF, 0x00}));
  }

  @Test
  void theNewestRecordOfAKeyWinsWhicheverSourceHoldsIt() {
    InMemoryStorageEngine a = new InMemoryStorageEngine();
    InMemoryStorageEngine b = new InMemoryStorageEngine();
    InMemoryStorageEngine c = new InMemoryStorageEngine();
    engines.addAll(List.of(a, b, c));
    put(a, key("k1"), live(3, "newest"));
    put(b, key("k1"), live(1, "old"));
    put(c, key("k1"), live(2, "older"));
    put(a, key("k2"), live(1, "old"));
    put(c, key("k2"), live(5, "newest"));
    put(b, key("k3"), live(7, "only"));

    List<Entry> merged = readAll(merge(a, b, c), 10, FOREVER);

    assertThat(keys(merged)).containsExactly("k1", "k2", "k3");
    assertThat(values(merged)).containsExactly("newest", "newest", "only");
    assertThat(merged.get(1).record()).isEqualTo(live(5, "newest"));
  }

  @Test
  void tombstonesAndExpiredRecordsAreDroppedEvenWhereAnOlderSourceHasAValue() {
    InMemoryStorageEngine a = new InMemoryStorageEngine();
    InMemoryStorageEngine b = new InMemoryStorageEngine();
    engines.addAll(List.of(a, b));
    put(a, key("deleted"), Record.tombstone(version(5)));
    put(b, key("deleted"), live(4, "before the delete"));
    put(a, key("expired"), Record.value(version(5), bytes("gone"), NOW - 1));
    put(b, key("expired"), live(4, "older, never expires"));
    put(a, key("expiring-later"), Record.value(version(5), bytes("still here"), NOW + 60_000));
    put(b, key("resurrected"), Record.tombstone(version(2)));
    put(a, key("resurrected"), live(3, "written after the delete"));
    put(b, key("tombstone-only"), Record.tombstone(version(1)));

    List<Entry> merged = readAll(merge(a, b), 10, FOREVER);

    assertThat(keys(merged)).containsExactly("expiring-later", "resurrected");
    assertThat(values(merged)).containsExactly("still here", "written after the delete");
  }

  @Test
  void batchesHonourMaxEntries() {
    InMemoryStorageEngine a = engine(keysFrom(0, 40, 2));
    InMemoryStorageEngine b = engine(keysFrom(1, 40, 2));

    List<List<Entry>> batches = readBatches(merge(a, b), 3, FOREVER);

    assertThat(batches).allSatisfy(batch -> assertThat(batch).isNotEmpty().hasSizeLessThan(4));
    assertThat(keys(flatten(batches))).containsExactlyElementsOf(keysFrom(0, 40, 1));
  }

  @Test
  void batchesStopAtTheEntryThatReachesMaxBytes() {
    // Each entry counts 3 bytes of key and 10 of value.
    InMemoryStorageEngine a = new InMemoryStorageEngine();
    InMemoryStorageEngine b = new InMemoryStorageEngine();
    engines.addAll(List.of(a, b));
    for (int i = 0; i < 30; i++) {
      put(i % 2 == 0 ? a : b, key(String.format("%03d", i)), live(1, "0123456789"));
    }
    long maxBytes = 30;

    List<List<Entry>> batches = readBatches(merge(a, b), 1000, maxBytes);

    assertThat(batches).hasSizeGreaterThan(1);
    for (List<Entry> batch : batches) {
      List<Entry> allButLast = batch.subList(0, batch.size() - 1);
      assertThat(bytesOf(allButLast))
          .as("a batch goes on only while under the limit")
          .isLessThan(maxBytes);
    }
    assertThat(flatten(batches)).hasSize(30);
  }

  @Test
  void aLargeMergeReturnsEveryLiveKeyOnceInOrder() {
    // Three replicas of 3,000 keys, each key on two of them, every tenth deleted on one.
    InMemoryStorageEngine[] nodes = {
      new InMemoryStorageEngine(), new InMemoryStorageEngine(), new InMemoryStorageEngine()
    };
    engines.addAll(Arrays.asList(nodes));
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      Key key = key(String.format("key-%05d", i));
      put(nodes[i % 3], key, live(1, "v" + i));
      put(nodes[(i + 1) % 3], key, i % 10 == 0 ? Record.tombstone(version(2)) : live(1, "v" + i));
      if (i % 10 != 0) {
        expected.add(String.format("key-%05d", i));
      }
    }

    List<Entry> merged = readAll(merge(nodes), 128, 256 << 10);

    assertThat(keys(merged)).containsExactlyElementsOf(expected);
  }

  @Test
  void aFailingSourceFailsNext() {
    InMemoryStorageEngine healthy = engine("a", "b");
    StorageException broken =
        new StorageException(StorageException.Kind.FAILURE, "scan", null, null);
    ScanCursor failing =
        new ScanCursor() {
          @Override
          public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
            return CompletableFuture.failedFuture(broken);
          }

          @Override
          public void close() {}
        };

    try (ScanCursor merged = strict(List.of(healthy.scan(KeyRange.from(key("a"))), failing))) {
      assertThat(merged.next(10, FOREVER))
          .failsWithin(WAIT)
          .withThrowableOfType(ExecutionException.class)
          .withRootCauseInstanceOf(StorageException.class);
    }
  }

  @Test
  void aSourceFailingMidwayFailsTheMergeRatherThanEndingItEarly() {
    ScriptedCursor a =
        new ScriptedCursor(Runnable::run, List.of(entries("a", "c"), entries("e", "g")));
    a.failAfterBatches(1);
    ScriptedCursor b =
        new ScriptedCursor(Runnable::run, List.of(entries("b", "d", "f", "h", "i", "j")));

    try (ScanCursor merged = strict(List.of(a, b))) {
      List<String> seen = new ArrayList<>();
      Throwable failure = null;
      while (failure == null) {
        try {
          List<Entry> batch = merged.next(2, FOREVER).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          if (batch.isEmpty()) {
            break;
          }
          seen.addAll(keys(batch));
        } catch (Exception e) {
          failure = e;
        }
      }

      assertThat(failure).as("the merge failed instead of ending").isNotNull();
      assertThat(seen).isSubsetOf("a", "b", "c");
    }
  }

  @Test
  void closeClosesEverySource() {
    ScriptedCursor a = new ScriptedCursor(Runnable::run, List.of(entries("a")));
    ScriptedCursor b = new ScriptedCursor(Runnable::run, List.of(entries("b")));
    ScriptedCursor c = new ScriptedCursor(Runnable::run, List.of());

    MergingCursor merged = strict(List.of(a, b, c));
    await(merged.next(1, FOREVER));
    merged.close();

    assertThat(List.of(a, b, c)).allSatisfy(s -> assertThat(s.closed.get()).isTrue());
  }

  @Test
  void anEmptyMergeEndsAtOnce() {
    ScriptedCursor a = new ScriptedCursor(Runnable::run, List.of());
    try (ScanCursor merged = strict(List.of(a))) {
      assertThat(await(merged.next(10, FOREVER))).isEmpty();
      assertThat(await(merged.next(10, FOREVER))).isEmpty();
    }
  }

  /**
   * Sources on other nodes answer later (gRPC) or on another thread (RocksDB). A source whose next
   * batch is still on its way must not be asked again (a {@link ScanCursor}'s calls must not
   * overlap), and nothing may be lost or repeated.
   */
  @Test
  void aSourceThatAnswersLateIsNotAskedAgainBeforeItAnswered() {
    Executor late = CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS);
    List<String> expected = new ArrayList<>();
    List<List<Entry>> batchesA = new ArrayList<>();
    List<List<Entry>> batchesB = new ArrayList<>();
    for (int i = 0; i < 40; i += 4) {
      batchesA.add(entries(String.format("%03d", i), String.format("%03d", i + 2)));
      batchesB.add(entries(String.format("%03d", i + 1), String.format("%03d", i + 3)));
    }
    for (int i = 0; i < 40; i++) {
      expected.add(String.format("%03d", i));
    }
    ScriptedCursor a = new ScriptedCursor(late, batchesA);
    ScriptedCursor b = new ScriptedCursor(late, batchesB);

    List<Entry> merged = readAll(strict(List.of(a, b)), 5, FOREVER);

    assertThat(a.overlapping.get() + b.overlapping.get())
        .as("calls to a source while its previous batch was on the way")
        .isZero();
    assertThat(keys(merged)).containsExactlyElementsOf(expected);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private InMemoryStorageEngine engine(String... keys) {
    return engine(Arrays.asList(keys));
  }

  private InMemoryStorageEngine engine(List<String> keys) {
    InMemoryStorageEngine engine = new InMemoryStorageEngine();
    engines.add(engine);
    for (String k : keys) {
      put(engine, key(k), live(1, "value of " + k));
    }
    return engine;
  }

  private static List<String> keysFrom(int start, int end, int step) {
    List<String> keys = new ArrayList<>();
    for (int i = start; i < end; i += step) {
      keys.add(String.format("%03d", i));
    }
    return keys;
  }

  private static MergingCursor merge(InMemoryStorageEngine... sources) {
    List<ScanCursor> cursors = new ArrayList<>();
    for (InMemoryStorageEngine source : sources) {
      cursors.add(source.scan(KeyRange.from(Key.of(new byte[] {0x00}))));
    }
    return strict(cursors);
  }

  /** A merge that needs every source: the first failure ends it. */
  private static MergingCursor strict(List<ScanCursor> cursors) {
    return new MergingCursor(cursors, () -> NOW, coverage(cursors.size(), 1));
  }

  private static RangeCoverage coverage(int nodes, int defaultFrom) {
    List<NodeId> ids = new ArrayList<>();
    for (int i = 1; i <= nodes; i++) {
      ids.add(NodeId.of("n" + i));
    }
    return new RangeCoverage(KeyRange.from(key("a")), nodes, defaultFrom, ids);
  }

  private static List<Entry> readAll(ScanCursor cursor, int maxEntries, long maxBytes) {
    return flatten(readBatches(cursor, maxEntries, maxBytes));
  }

  private static List<List<Entry>> readBatches(ScanCursor cursor, int maxEntries, long maxBytes) {
    List<List<Entry>> batches = new ArrayList<>();
    try (cursor) {
      for (List<Entry> batch = await(cursor.next(maxEntries, maxBytes));
          !batch.isEmpty();
          batch = await(cursor.next(maxEntries, maxBytes))) {
        batches.add(batch);
      }
    }
    return batches;
  }

  private static List<Entry> flatten(List<List<Entry>> batches) {
    return batches.stream().flatMap(List::stream).toList();
  }

  private static long bytesOf(List<Entry> entries) {
    return entries.stream().mapToLong(e -> e.key().size() + e.record().value().length).sum();
  }

  private static List<Entry> entries(String... keys) {
    return Arrays.stream(keys).map(k -> new Entry(key(k), live(1, "value of " + k))).toList();
  }

  private static void put(InMemoryStorageEngine engine, Key key, Record record) {
    await(engine.put(key, record));
  }

  private static List<String> keys(List<Entry> entries) {
    return entries.stream().map(e -> new String(e.key().bytes(), StandardCharsets.UTF_8)).toList();
  }

  private static List<String> values(List<Entry> entries) {
    return entries.stream()
        .map(e -> new String(e.record().value(), StandardCharsets.UTF_8))
        .toList();
  }

  private static Key key(String text) {
    return Key.utf8(text);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Version version(int logical) {
    return Version.of(NOW - 60_000, logical);
  }

  private static Record live(int logical, String value) {
    return Record.value(version(logical), bytes(value));
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
  }
}
