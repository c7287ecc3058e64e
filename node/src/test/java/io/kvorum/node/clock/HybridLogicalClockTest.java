package io.kvorum.node.clock;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Version;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HybridLogicalClockTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final Duration WINDOW = Duration.ofSeconds(1);
  private static final Duration DRIFT = Duration.ofMinutes(1);

  private final AtomicLong wall = new AtomicLong(T0);
  private final RecordingCeilingStore store = new RecordingCeilingStore();

  private HybridLogicalClock startClock() {
    return HybridLogicalClock.start(store, wall::get, WINDOW, DRIFT);
  }

  @Test
  void strictlyIncreasingWithinOneMillisecond() {
    HybridLogicalClock clock = startClock();

    Version previous = clock.now();
    for (int i = 0; i < 100_000; i++) {
      Version next = clock.now();
      assertThat(next).as("call %d: %s after %s", i, next, previous).isGreaterThan(previous);
      previous = next;
    }
    assertThat(previous.physicalMillis())
        .as("a full logical counter carries into the physical part")
        .isGreaterThan(T0);
  }

  @Test
  void strictlyIncreasingWhenTheWallClockGoesBackwards() {
    HybridLogicalClock clock = startClock();
    wall.set(T0 + 5_000);
    Version beforeJump = clock.now();

    wall.set(T0 - 60_000);
    Version afterJump = clock.now();
    Version later = clock.now();

    assertThat(afterJump).isGreaterThan(beforeJump);
    assertThat(later).isGreaterThan(afterJump);
  }

  @Test
  void physicalPartFollowsTheWallClockWhenItAdvances() {
    HybridLogicalClock clock = startClock();
    clock.now();
    clock.now();

    wall.set(T0 + 5);
    Version v = clock.now();

    assertThat(v.physicalMillis()).isEqualTo(T0 + 5);
    assertThat(v.logical()).isZero();
    assertThat(clock.wallMillis()).isEqualTo(T0 + 5);
  }

  @Test
  void observingARemoteTimestampMovesTheClockPastIt() {
    HybridLogicalClock clock = startClock();
    Version remote = Version.of(T0 + 30_000, 7);

    clock.observe(remote);

    assertThat(clock.current()).isEqualTo(remote);
    assertThat(clock.now()).isGreaterThan(remote);
  }

  @Test
  void observingAnOlderTimestampChangesNothing() {
    HybridLogicalClock clock = startClock();
    Version issued = clock.now();

    clock.observe(Version.of(T0 - 10_000, 0));

    assertThat(clock.current()).isEqualTo(issued);
  }

  @Test
  void aRemoteTimestampTooFarAheadIsIgnored() {
    HybridLogicalClock clock = startClock();
    Version before = clock.now();
    Version atLimit = Version.of(T0 + DRIFT.toMillis(), 0);
    Version beyond = Version.of(T0 + DRIFT.toMillis() + 1, 0);

    clock.observe(beyond);
    assertThat(clock.current()).isEqualTo(before);
    assertThat(clock.now().physicalMillis()).isEqualTo(T0);

    clock.observe(atLimit);
    assertThat(clock.now()).isGreaterThan(atLimit);
  }

  @Test
  void monotonicAcrossACrashEvenWhenTheWallClockIsSetBack() {
    HybridLogicalClock first = startClock();
    Version newest = Version.ZERO;
    for (int i = 0; i < 5_000; i++) {
      if (i % 100 == 0) {
        wall.addAndGet(37);
      }
      newest = first.now();
    }
    // Crash: the first clock is dropped without any shutdown; only the store survives.
    wall.set(T0 - 3_600_000);

    HybridLogicalClock second = startClock();

    assertThat(second.now()).isGreaterThan(newest);
  }

  @Test
  void monotonicAcrossACrashAfterObservingARemoteTimestamp() {
    HybridLogicalClock first = startClock();
    Version remote = Version.of(T0 + 30_000, 3);
    first.observe(remote);
    // Crash before this node issued anything after the remote timestamp.
    wall.set(T0);

    HybridLogicalClock second = startClock();

    assertThat(second.now()).isGreaterThan(remote);
  }

  @Test
  void theCeilingIsPersistedBeforeAVersionReachesIt() {
    HybridLogicalClock clock = startClock();
    for (int i = 0; i < 20_000; i++) {
      if (i % 50 == 0) {
        wall.addAndGet(97);
      }
      if (i % 3_000 == 0) {
        clock.observe(Version.of(wall.get() + 10_000, 0));
      }
      Version v = clock.now();
      assertThat(store.load())
          .as("stored ceiling when %s was issued", v)
          .isGreaterThan(v.physicalMillis());
    }
  }

  @Test
  void refreshingTheCeilingKeepsDiskWritesOffTheRequestPath() {
    HybridLogicalClock clock = startClock();
    int storesDuringNow = 0;
    for (int step = 0; step < 200; step++) {
      wall.addAndGet(100);
      clock.refreshCeiling();
      int before = store.stores();
      for (int i = 0; i < 10; i++) {
        clock.now();
      }
      storesDuringNow += store.stores() - before;
    }

    assertThat(storesDuringNow).isZero();
    assertThat(store.stores()).as("refreshes did store").isGreaterThan(1);
  }

  @Test
  void withoutRefreshNowPersistsWhenItReachesTheCeiling() {
    HybridLogicalClock clock = startClock();
    int before = store.stores();

    wall.addAndGet(WINDOW.toMillis() * 3);
    Version v = clock.now();

    assertThat(store.stores()).isEqualTo(before + 1);
    assertThat(store.load()).isGreaterThan(v.physicalMillis());
  }

  @Test
  void concurrentCallsNeverIssueTheSameVersion() throws Exception {
    HybridLogicalClock clock = startClock();
    int threads = 8;
    int perThread = 20_000;
    List<List<Version>> issued = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  List<Version> mine = new ArrayList<>(perThread);
                  for (int i = 0; i < perThread; i++) {
                    if (i % 1000 == 0) {
                      wall.incrementAndGet();
                    }
                    mine.add(clock.now());
                  }
                  issued.add(mine);
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    Set<Version> all = new HashSet<>();
    for (List<Version> mine : issued) {
      for (int i = 1; i < mine.size(); i++) {
        assertThat(mine.get(i)).isGreaterThan(mine.get(i - 1));
      }
      all.addAll(mine);
    }
    assertThat(all).hasSize(threads * perThread);
  }

  /** A durable store in memory: it outlives the clocks started on it, as a file would. */
  private static final class RecordingCeilingStore implements CeilingStore {
    private final AtomicLong ceiling = new AtomicLong();
    private final AtomicLong stores = new AtomicLong();

    @Override
    public long load() {
      return ceiling.get();
    }

    @Override
    public void store(long ceilingMillis) {
      stores.incrementAndGet();
      ceiling.set(ceilingMillis);
    }

    int stores() {
      return (int) stores.get();
    }
  }
}
