package io.kvorum.node.membership;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the records this node no longer owns once a change has completed everywhere: when no change
 * is in progress, every member has acknowledged the current epoch, and a settle time has passed
 * since (requests a coordinator started under the previous epoch have finished). Before that, a
 * coordinator still on an older epoch may read the key here, or write it here: a member that was
 * unreachable while the change completed, on its return, hands its hints over and serves requests
 * before gossip brings it the new epoch, and a copy it left here after the sweep would stay for
 * ever, read and removed by nothing. A member that is down therefore holds the sweep back until it
 * is back, or removed. A record is dropped only if it is still the version scanned, so a write
 * racing the sweep is kept. The epoch swept last is kept in the data directory ({@value
 * #SWEPT_FILE}), so a restart does not sweep again; the write-ahead log is synced before it is
 * written, so that a power cut cannot keep the mark and lose the drops.
 *
 * <p>The settle time is measured on the node's monotonic clock ({@link Execution#nanoTime}) by the
 * ticks that call {@link #maybeSweep}. A sweep is a chain of steps on the worker, one per batch of
 * the scan; each batch, and the drops it asks for, has {@value #BATCH_TIMEOUT_SECONDS} s on the
 * node's scheduler. One sweep at a time, never while this node drives a change ({@link
 * Execution#inTurn}); it stops once the node is closing.
 */
final class OwnershipSweep {
  private static final Logger log = LoggerFactory.getLogger(OwnershipSweep.class);
  static final String SWEPT_FILE = "swept-epoch";
  private static final int BATCH = 512;
  private static final long BATCH_TIMEOUT_SECONDS = 60;
  private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(BATCH_TIMEOUT_SECONDS);

  private final Membership membership;
  private final MembershipStore files;
  private final StorageEngine storage;
  private final long settleNanos;
  private final Execution execution;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile long swept;
  private long acknowledgedEpoch = -1;
  private long acknowledgedAt;

  OwnershipSweep(
      Membership membership,
      MembershipStore files,
      StorageEngine storage,
      Duration settle,
      Execution execution) {
    this.membership = membership;
    this.files = files;
    this.storage = storage;
    this.settleNanos = settle.toNanos();
    this.execution = execution;
    // A cluster still at its first epoch has had nothing move.
    this.swept = files.read(SWEPT_FILE).map(b -> ByteBuffer.wrap(b).getLong()).orElse(1L);
  }

  /** Starts sweeping {@code state} once it is due; returns at once. Called from the timer only. */
  void maybeSweep(ClusterState state) {
    NodeId self = membership.self();
    if (state.change().isPresent()
        || state.epoch() <= swept
        || state.state(self).orElse(null) != MemberState.NORMAL) {
      return;
    }
    for (Member member : state.members()) {
      if (membership.seenEpoch(member.id()) < state.epoch()) {
        acknowledgedEpoch = -1;
        return;
      }
    }
    if (acknowledgedEpoch != state.epoch()) {
      acknowledgedEpoch = state.epoch();
      acknowledgedAt = execution.nanoTime();
      return;
    }
    if (execution.nanoTime() - acknowledgedAt < settleNanos
        || !running.compareAndSet(false, true)) {
      return;
    }
    execution
        .inTurn(() -> sweep(state.epoch()))
        .whenComplete(
            (done, error) -> {
              if (error != null) {
                log.warn(
                    "sweep of records no longer owned failed; it runs again: {}",
                    Failures.unwrap(error).toString());
              }
              running.set(false);
            });
  }

  private CompletableFuture<Void> sweep(long epoch) {
    Owners owners = membership.owners();
    if (owners.state().epoch() != epoch) {
      return CompletableFuture.completedFuture(null);
    }
    AtomicLong dropped = new AtomicLong();
    ScanCursor cursor = storage.scan(KeyRange.from(Key.of(new byte[] {0})));
    return execution
        .loop(() -> dropNext(cursor, owners, dropped))
        .whenComplete((done, error) -> cursor.close())
        .thenRunAsync(
            () -> {
              if (execution.closed()) {
                return;
              }
              // The drops are durable before the epoch is recorded as swept: a power cut within
              // --sync-writes would otherwise undo them and keep the mark, and the records it
              // brought back would stay here for ever (EVERYTHING seed 1001766).
              storage.syncWal();
              swept = epoch;
              files.write(SWEPT_FILE, ByteBuffer.allocate(Long.BYTES).putLong(epoch).array());
              log.info(
                  "dropped {} records this node no longer owns at epoch {}", dropped.get(), epoch);
            },
            execution.worker());
  }

  /** Drops what the next batch holds that this node no longer owns; completes with "more?". */
  private CompletableFuture<Boolean> dropNext(
      ScanCursor cursor, Owners owners, AtomicLong dropped) {
    if (execution.closed()) {
      return CompletableFuture.completedFuture(false);
    }
    NodeId self = membership.self();
    return execution
        .within(cursor.next(BATCH, 4L << 20), BATCH_TIMEOUT)
        .thenCompose(
            batch -> {
              if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(false);
              }
              List<CompletableFuture<Void>> drops = new ArrayList<>();
              for (Entry entry : batch) {
                if (!owners.readers(entry.key(), entry.record().replicas()).contains(self)) {
                  drops.add(
                      storage
                          .drop(entry.key(), entry.record().version())
                          .thenAccept(gone -> dropped.addAndGet(gone ? 1 : 0)));
                }
              }
              return execution
                  .within(
                      CompletableFuture.allOf(drops.toArray(CompletableFuture[]::new)),
                      BATCH_TIMEOUT)
                  .thenApply(all -> true);
            });
  }
}
