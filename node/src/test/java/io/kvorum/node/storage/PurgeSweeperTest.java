package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PurgeSweeperTest {
  private static final Duration GRACE = Duration.ofDays(10);
  private static final long NOW = 1_700_000_000_000L;

  private final AtomicLong wall = new AtomicLong(NOW);
  private final InMemoryStorageEngine storage = new InMemoryStorageEngine();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PurgeSweeper sweeper = new PurgeSweeper(storage, GRACE, wall::get, registry);

  @AfterEach
  void close() {
    storage.close();
  }

  @Test
  void removesWhatIsPastGraceAndKeepsTheRest() throws Exception {
    long pastGrace = NOW - GRACE.toMillis() - 1;
    long withinGrace = NOW - GRACE.toMillis() + 60_000;
    put("old-delete", Record.tombstone(version(pastGrace)));
    put("recent-delete", Record.tombstone(version(withinGrace)));
    put("long-expired", Record.value(version(pastGrace - 1000), new byte[] {1}, pastGrace));
    put("recently-expired", Record.value(version(pastGrace), new byte[] {2}, withinGrace));
    put("live", Record.value(version(pastGrace - 1000), new byte[] {3}));

    long removed = sweep();

    assertThat(removed).isEqualTo(2);
    assertThat(get("old-delete")).isEmpty();
    assertThat(get("long-expired")).isEmpty();
    assertThat(get("recent-delete")).isPresent();
    assertThat(get("recently-expired")).isPresent();
    assertThat(get("live")).isPresent();
  }

  @Test
  void aLaterSweepRemovesWhatHasSinceOutlivedTheGrace() throws Exception {
    put("delete", Record.tombstone(version(NOW - 1000)));

    assertThat(sweep()).isZero();
    assertThat(get("delete")).isPresent();

    wall.addAndGet(GRACE.toMillis());
    assertThat(sweep()).isEqualTo(1);
    assertThat(get("delete")).isEmpty();
  }

  @Test
  void aSweepOfMoreThanOneBatchRemovesEverything() throws Exception {
    int dead = 2_500;
    for (int i = 0; i < dead; i++) {
      put(String.format("dead-%05d", i), Record.tombstone(version(NOW - GRACE.toMillis() - i - 1)));
    }
    put("live", Record.value(version(1), new byte[] {1}));

    assertThat(sweep()).isEqualTo(dead);

    assertThat(remainingKeys()).containsExactly(Key.utf8("live"));
  }

  @Test
  void thePurgedCounterCountsRemovedRecords() throws Exception {
    for (int i = 0; i < 1_200; i++) {
      put("dead-" + i, Record.tombstone(version(NOW - GRACE.toMillis() - 1)));
    }
    put("recent", Record.tombstone(version(NOW)));

    sweep();
    sweep();

    assertThat(registry.get("kvorum.storage.purged").counter().count()).isEqualTo(1_200.0);
  }

  private long sweep() throws Exception {
    return sweeper.sweep().get(10, TimeUnit.SECONDS);
  }

  private static Version version(long physicalMillis) {
    return Version.of(physicalMillis, 0);
  }

  private void put(String key, Record record) {
    storage.put(Key.utf8(key), record).join();
  }

  private Optional<Record> get(String key) {
    return storage.get(Key.utf8(key)).join();
  }

  private List<Key> remainingKeys() {
    List<Key> keys = new ArrayList<>();
    try (ScanCursor cursor = storage.scan(KeyRange.from(Key.of(new byte[] {0})))) {
      for (var batch = cursor.next(1000, Long.MAX_VALUE).join();
          !batch.isEmpty();
          batch = cursor.next(1000, Long.MAX_VALUE).join()) {
        batch.forEach(e -> keys.add(e.key()));
      }
    }
    return keys;
  }
}
