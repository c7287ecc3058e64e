package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The order part of the {@link StorageEngine} contract: per key, the winner under {@link
 * Record#LAST_WRITER_WINS} is stored whatever order records arrive in, alone, in batches or
 * concurrently; batches show whole. Bound to every implementation as {@link StorageEngineContract}
 * is.
 */
public abstract class LastWriterWinsContract extends StorageEngineFixture {
  private static final byte[] NONE = {};

  /** Two records of one key and which must win, with why. */
  private record Case(String why, Record loser, Record winner) {}

  private static List<Case> cases() {
    return List.of(
        new Case("a higher version", value(10, "b"), value(11, "a")),
        new Case("a newer value beats an older tombstone", tombstone(10), value(11, "")),
        new Case("a newer tombstone beats an older value", value(10, "z"), tombstone(11)),
        new Case("a tombstone beats a value of its version", value(10, "zzz"), tombstone(10)),
        new Case("larger bytes, unsigned", raw(0x7F), raw(0x80)),
        new Case("a prefix is smaller", value(10, "ab"), value(10, "abc")),
        new Case("the empty value is smallest", raw(), raw(0x00)),
        new Case("a zero byte, then a longer run of zeros", raw(0x00), raw(0x00, 0x00)),
        new Case("a zero byte below one", raw(0x00), raw(0x01)),
        new Case("a zero then 0xFF below one", raw(0x00, 0xFF), raw(0x01)),
        new Case("a zero then 0xFF below 0xFF", raw(0x00, 0xFF), raw(0xFF)),
        new Case("0xFF below 0xFF then zero", raw(0xFF), raw(0xFF, 0x00)),
        new Case("embedded zeros, then the byte after", raw('a', 0, 'b'), raw('a', 0, 'c')),
        new Case("a prefix ending before a zero", raw('a'), raw('a', 0)),
        new Case("a zero below one after a common prefix", raw('a', 0), raw('a', 1)),
        new Case("two zeros below zero, one", raw(0, 0), raw(0, 1)),
        new Case("a trailing zero is longer", raw(1, 0), raw(1, 0, 0)),
        new Case("a later expiry", expiring("v", 5, 1), expiring("v", 6, 1)),
        new Case("any expiry beats none", expiring("v", 0, 1), expiring("v", 1, 1)),
        new Case("more replicas", expiring("v", 0, 1), expiring("v", 0, 3)),
        new Case("value bytes decide before expiry", expiring("a", 9, 1), expiring("b", 5, 1)),
        new Case("expiry decides before replicas", expiring("v", 5, 3), expiring("v", 6, 1)),
        new Case(
            "the version decides before all else",
            Record.value(version(10), bytes("zz"), 99, 255),
            Record.value(version(11), NONE, 0, 1)),
        new Case(
            "tombstones by replicas",
            Record.tombstone(version(10), 1),
            Record.tombstone(version(10), 2)));
  }

  @Test
  void everyPairKeepsItsWinnerWhicheverArrivesFirst() {
    List<Case> cases = cases();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      assertThat(Record.LAST_WRITER_WINS.compare(c.loser(), c.winner())).as(c.why()).isNegative();
      Key loserFirst = key(i + "/loser-first");
      Key winnerFirst = key(i + "/winner-first");
      put(loserFirst, c.loser());
      put(loserFirst, c.winner());
      put(winnerFirst, c.winner());
      put(winnerFirst, c.loser());

      assertThat(get(loserFirst)).as(c.why() + ", loser first").contains(c.winner());
      assertThat(get(winnerFirst)).as(c.why() + ", winner first").contains(c.winner());
    }
  }

  @Test
  void everyPairInOneBatchKeepsItsWinnerInEitherOrder() {
    List<Case> cases = cases();
    List<Entry> batch = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      batch.add(new Entry(key(i + "/loser-first"), c.loser()));
      batch.add(new Entry(key(i + "/loser-first"), c.winner()));
      batch.add(new Entry(key(i + "/winner-first"), c.winner()));
      batch.add(new Entry(key(i + "/winner-first"), c.loser()));
    }

    putAll(batch);

    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      assertThat(get(key(i + "/loser-first"))).as(c.why()).contains(c.winner());
      assertThat(get(key(i + "/winner-first"))).as(c.why()).contains(c.winner());
    }
  }

  @Test
  void reputtingAnIdenticalRecordKeepsIt() {
    Key key = key("k");
    Record record = value(10, "v");
    put(key, record);

    put(key, value(10, "v"));
    put(key, record);

    assertThat(get(key)).contains(record);
  }

  @Test
  void anExpiredValueStillWinsOverAnOlderLiveOneAndCallersResolveIt() {
    Key key = key("ttl");
    Record expired = Record.value(version(20), bytes("expired"), 1L);
    put(key, expired);
    put(key, value(10, "older but live"));

    assertThat(get(key)).contains(expired);
  }

  @Test
  void randomRecordsInRandomOrderLeaveEachKeysWinnerInScansAndReads() {
    for (long seed = 1; seed <= 3; seed++) {
      Random random = new Random(seed);
      List<Entry> writes = new ArrayList<>();
      Map<Key, Record> expected = new TreeMap<>();
      for (int k = 0; k < 64; k++) {
        Key key = key(String.format("random-%d/%02d", seed, k));
        for (int n = 0; n < 12; n++) {
          Record record = tieHeavyRecord(random);
          writes.add(new Entry(key, record));
          expected.merge(key, record, Record::newest);
        }
      }
      Collections.shuffle(writes, random);
      writeInRandomBatches(writes, random);

      expected.forEach((key, winner) -> assertThat(get(key)).as(key.toString()).contains(winner));
      List<Entry> scanned = scanAll(KeyRange.from(key("random-" + seed + "/")));
      assertThat(scanned)
          .as("a scan yields each key's winner in key order")
          .containsExactlyElementsOf(
              expected.entrySet().stream().map(e -> new Entry(e.getKey(), e.getValue())).toList());
    }
  }

  @Test
  void concurrentPutsOfManyVersionsToOneKeyLeaveTheNewest() throws Exception {
    int versions = 2_000;
    List<Record> records = new ArrayList<>();
    for (int v = 1; v <= versions; v++) {
      records.add(value(v, "v" + v));
    }

    putConcurrently(key("contended"), records, 8);

    assertThat(get(key("contended"))).contains(value(versions, "v" + versions));
  }

  @Test
  void concurrentPutsOfOneVersionToOneKeyLeaveTheLastWriterWinsMaximum() throws Exception {
    Random random = new Random(11);
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      records.add(
          Record.value(
              version(10),
              raw(random.nextInt(3), random.nextInt(3)).value(),
              random.nextInt(3),
              1 + random.nextInt(3)));
    }
    records.add(tombstone(9));
    Record max = records.stream().max(Record.LAST_WRITER_WINS).orElseThrow();

    putConcurrently(key("contended"), records, 8);

    assertThat(get(key("contended"))).contains(max);
  }

  // ---- putAll ---------------------------------------------------------------------------------

  @Test
  void putAllOfNothingCompletes() {
    putAll(List.of());

    assertThat(scanAll(KeyRange.from(key("a")))).isEmpty();
  }

  @Test
  void putAllKeepsEachEntrysWinnerAgainstWhatIsStored() {
    put(key("stored-newer"), value(20, "stored"));
    put(key("stored-older"), value(10, "stored"));

    putAll(
        List.of(
            new Entry(key("stored-newer"), value(15, "batch")),
            new Entry(key("stored-older"), value(15, "batch")),
            new Entry(key("fresh"), tombstone(15))));

    assertThat(get(key("stored-newer"))).contains(value(20, "stored"));
    assertThat(get(key("stored-older"))).contains(value(15, "batch"));
    assertThat(get(key("fresh"))).contains(tombstone(15));
  }

  @Test
  void aBatchIsSeenWholeOrNotAtAll() throws Exception {
    int keys = 100;
    int rounds = 60;
    AtomicBoolean writing = new AtomicBoolean(true);
    List<String> torn = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> writer =
          pool.submit(
              () -> {
                for (int round = 1; round <= rounds; round++) {
                  List<Entry> batch = new ArrayList<>();
                  for (int i = 0; i < keys; i++) {
                    batch.add(new Entry(key(String.format("batch/%03d", i)), value(round, "r")));
                  }
                  putAll(batch);
                }
                writing.set(false);
                return null;
              });
      Future<?> reader =
          pool.submit(
              () -> {
                while (writing.get()) {
                  List<Entry> seen = scanInOneBatch(KeyRange.from(key("batch/")));
                  long versions = seen.stream().map(e -> e.record().version()).distinct().count();
                  if (versions > 1 || (!seen.isEmpty() && seen.size() != keys)) {
                    torn.add(seen.size() + " entries of " + versions + " versions");
                  }
                }
                return null;
              });
      writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      reader.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(torn).as("scans that saw part of a batch").isEmpty();
    assertThat(scanInOneBatch(KeyRange.from(key("batch/"))))
        .hasSize(keys)
        .allSatisfy(e -> assertThat(e.record()).isEqualTo(value(rounds, "r")));
  }

  // ---- helpers --------------------------------------------------------------------------------

  private List<Entry> scanInOneBatch(KeyRange range) {
    try (ScanCursor cursor = engine.scan(range)) {
      return next(cursor, Integer.MAX_VALUE, FOREVER);
    }
  }

  private void writeInRandomBatches(List<Entry> writes, Random random) {
    int at = 0;
    while (at < writes.size()) {
      int size = Math.min(writes.size() - at, random.nextInt(6));
      if (size == 0) {
        Entry single = writes.get(at++);
        put(single.key(), single.record());
      } else {
        putAll(writes.subList(at, at + size));
        at += size;
      }
    }
  }

  private void putConcurrently(Key key, List<Record> records, int writers) throws Exception {
    List<Record> shuffled = new ArrayList<>(records);
    Collections.shuffle(shuffled, new Random(42));
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        List<Record> mine =
            shuffled.subList(w * shuffled.size() / writers, (w + 1) * shuffled.size() / writers);
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  mine.forEach(r -> put(key, r));
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Records from a small space, so that versions, values and expiries often tie. */
  private static Record tieHeavyRecord(Random random) {
    long physical = 100 + random.nextInt(3);
    int replicas = 1 + random.nextInt(3);
    if (random.nextInt(5) == 0) {
      return Record.tombstone(version(physical), replicas);
    }
    byte[] value = new byte[random.nextInt(4)];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) new int[] {0x00, 0x01, 0xFF}[random.nextInt(3)];
    }
    return Record.value(version(physical), value, random.nextInt(3), replicas);
  }

  private static Record raw(int... bytes) {
    byte[] value = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      value[i] = (byte) bytes[i];
    }
    return Record.value(version(10), value);
  }

  private static Record expiring(String value, long expiresAtMillis, int replicas) {
    return Record.value(version(10), bytes(value), expiresAtMillis, replicas);
  }
}
