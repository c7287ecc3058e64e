package io.kvorum.node.consensus;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.storage.SweepRuns;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forgets the Paxos acceptor states that no longer matter (conditional writes, SPEC §10), as
 * Cassandra's Paxos v2 does below its ballot low bound: raises this node's ballot floor to the wall
 * clock minus the window, durably, then forgets every state whose ballots are all at or below it
 * and whose accepted value the key's ordinary record here supersedes ({@link
 * io.kvorum.node.consensus.round.AcceptorState#purgeable}). The window must outlast every round
 * still under way (the request timeout) plus the clock offsets between nodes, so that no live round
 * meets the floor; a round that does is refused as by a higher promise and tries again above the
 * floor.
 */
public final class PaxosSweeper {
  private static final Logger log = LoggerFactory.getLogger(PaxosSweeper.class);
  private static final int BATCH = 256;

  private final StorageEngine records;
  private final AcceptorStore states;
  private final Duration window;
  private final LongSupplier wallMillis;
  private final Counter purged;
  private final SweepRuns runs =
      new SweepRuns(log, "the paxos state sweep", "forgot the paxos state of {} keys");

  public PaxosSweeper(
      StorageEngine records,
      AcceptorStore states,
      Duration window,
      LongSupplier wallMillis,
      MeterRegistry registry) {
    this.records = records;
    this.states = states;
    this.window = window;
    this.wallMillis = wallMillis;
    this.purged =
        Counter.builder("kvorum.paxos.purged")
            .description(
                "Paxos acceptor states forgotten once below the ballot floor and superseded by the"
                    + " key's record")
            .register(registry);
  }

  /**
   * Runs one sweep to the end, batch by batch. A sweep asked for while one runs is skipped.
   *
   * @return the number of states forgotten
   */
  public CompletableFuture<Long> sweep() {
    return runs.run(
        () -> {
          long below = wallMillis.getAsLong() - window.toMillis();
          return below <= 0
              ? CompletableFuture.completedFuture(0L)
              : states
                  .raiseFloor(Version.of(below, 0))
                  .thenCompose(floor -> sweepFrom(Optional.empty(), 0));
        });
  }

  private CompletableFuture<Long> sweepFrom(Optional<Key> after, long removedSoFar) {
    return states
        .keys(after, BATCH)
        .thenCompose(
            keys -> {
              if (keys.isEmpty()) {
                return CompletableFuture.completedFuture(removedSoFar);
              }
              return storedRecords(keys)
                  .thenCompose(states::purge)
                  .thenCompose(
                      removed -> {
                        purged.increment(removed);
                        long total = removedSoFar + removed;
                        return keys.size() < BATCH
                            ? CompletableFuture.completedFuture(total)
                            : sweepFrom(Optional.of(keys.get(keys.size() - 1)), total);
                      });
            });
  }

  /**
   * The ordinary record of each key, read before the purge (a record only gets newer meanwhile),
   * one at a time so that a sweep never fills the storage queue that requests need.
   */
  private CompletableFuture<Map<Key, Optional<Record>>> storedRecords(List<Key> keys) {
    Map<Key, Optional<Record>> stored = new LinkedHashMap<>();
    CompletableFuture<Void> reads = CompletableFuture.completedFuture(null);
    for (Key key : keys) {
      reads = reads.thenCompose(done -> records.get(key)).thenAccept(r -> stored.put(key, r));
    }
    return reads.thenApply(done -> stored);
  }
}
