package io.kvorum.node.storage;

import io.kvorum.node.core.PlantedBug;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Purges tombstones and expired values once they have been dead for the grace period. The grace
 * period must outlast every way a replica can still learn of an older write (hints, read repair),
 * or a purged delete could be undone by a stale copy: as in Cassandra's {@code gc_grace_seconds}.
 * With anti-entropy a record is further kept until a repair round has shown every replica holds it.
 */
public final class PurgeSweeper {
  private static final Logger log = LoggerFactory.getLogger(PurgeSweeper.class);
  private static final int BATCH = 1000;

  private final StorageEngine storage;
  private final Duration grace;
  private final LongSupplier wallMillis;
  private final LongSupplier purgeableBefore;
  private final Counter purged;
  private final SweepRuns runs =
      new SweepRuns(log, "the purge sweep", "purged {} tombstones and expired values");

  public PurgeSweeper(
      StorageEngine storage, Duration grace, LongSupplier wallMillis, MeterRegistry registry) {
    this(storage, grace, wallMillis, () -> Long.MAX_VALUE, registry);
  }

  /**
   * @param purgeableBefore a further bound on what may be purged: only records that died before it
   *     (anti-entropy's proof that every replica holds them), however long ago
   */
  public PurgeSweeper(
      StorageEngine storage,
      Duration grace,
      LongSupplier wallMillis,
      LongSupplier purgeableBefore,
      MeterRegistry registry) {
    this.storage = storage;
    this.grace = grace;
    this.wallMillis = wallMillis;
    this.purgeableBefore = purgeableBefore;
    this.purged =
        Counter.builder("kvorum.storage.purged")
            .description("tombstones and expired values purged after the grace period")
            .register(registry);
  }

  /**
   * Runs one sweep to the end, batch by batch. A sweep asked for while one runs is skipped.
   *
   * @return the number of records removed
   */
  public CompletableFuture<Long> sweep() {
    return runs.run(
        () -> {
          long deadBefore =
              PlantedBug.PURGE_BEFORE_REPAIR.planted()
                  ? wallMillis.getAsLong() - grace.toMillis()
                  : Math.min(
                      wallMillis.getAsLong() - grace.toMillis(), purgeableBefore.getAsLong());
          return deadBefore <= 0 ? CompletableFuture.completedFuture(0L) : sweepFrom(deadBefore, 0);
        });
  }

  private CompletableFuture<Long> sweepFrom(long deadBefore, long removedSoFar) {
    return storage
        .purge(deadBefore, BATCH)
        .thenCompose(
            result -> {
              purged.increment(result.removed());
              long removed = removedSoFar + result.removed();
              return result.examined() < BATCH
                  ? CompletableFuture.completedFuture(removed)
                  : sweepFrom(deadBefore, removed);
            });
  }
}
