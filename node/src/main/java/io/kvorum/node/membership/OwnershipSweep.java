package io.kvorum.node.membership;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.transport.PeerTransport;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drops the records this node no longer owns once a change has completed everywhere: when no change
 * is in progress, every reachable member has acknowledged the current epoch, and a settle time has
 * passed since (requests a coordinator started under the previous epoch have finished). Before
 * that, a coordinator still on the old epoch may read the key here. A record is dropped only if it
 * is still the version scanned, so a write racing the sweep is kept. The epoch swept last is kept
 * in the data directory ({@value #SWEPT_FILE}), so a restart does not sweep again.
 */
final class OwnershipSweep {
  private static final Logger log = LoggerFactory.getLogger(OwnershipSweep.class);
  static final String SWEPT_FILE = "swept-epoch";
  private static final int BATCH = 512;

  private final Membership membership;
  private final MembershipStore files;
  private final StorageEngine storage;
  private final PeerTransport transport;
  private final long settleNanos;
  private final BooleanSupplier closed;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile long swept;
  private long acknowledgedEpoch = -1;
  private long acknowledgedAt;

  OwnershipSweep(
      Membership membership,
      MembershipStore files,
      StorageEngine storage,
      PeerTransport transport,
      Duration settle,
      BooleanSupplier closed) {
    this.membership = membership;
    this.files = files;
    this.storage = storage;
    this.transport = transport;
    this.settleNanos = settle.toNanos();
    this.closed = closed;
    // A cluster still at its first epoch has had nothing move.
    this.swept = files.read(SWEPT_FILE).map(b -> ByteBuffer.wrap(b).getLong()).orElse(1L);
  }

  /** Sweeps {@code state} on {@code worker} once it is due. Called from the timer only. */
  void maybeSweep(ClusterState state, ExecutorService worker) {
    NodeId self = membership.self();
    if (state.change().isPresent()
        || state.epoch() <= swept
        || state.state(self).orElse(null) != MemberState.NORMAL) {
      return;
    }
    for (Member member : state.members()) {
      NodeId id = member.id();
      if (!id.equals(self)
          && transport.state(id).reachable()
          && membership.seenEpoch(id) < state.epoch()) {
        acknowledgedEpoch = -1;
        return;
      }
    }
    if (acknowledgedEpoch != state.epoch()) {
      acknowledgedEpoch = state.epoch();
      acknowledgedAt = System.nanoTime();
      return;
    }
    if (System.nanoTime() - acknowledgedAt < settleNanos || !running.compareAndSet(false, true)) {
      return;
    }
    worker.execute(
        () -> {
          try {
            sweep(state.epoch());
          } catch (RuntimeException e) {
            log.warn("sweep of records no longer owned failed; it runs again: {}", e.toString());
          } finally {
            running.set(false);
          }
        });
  }

  private void sweep(long epoch) {
    Owners owners = membership.owners();
    if (owners.state().epoch() != epoch) {
      return;
    }
    NodeId self = membership.self();
    long dropped = 0;
    try (ScanCursor cursor = storage.scan(KeyRange.from(Key.of(new byte[] {0})))) {
      while (!closed.getAsBoolean()) {
        List<Entry> batch = cursor.next(BATCH, 4L << 20).get(60, TimeUnit.SECONDS);
        if (batch.isEmpty()) {
          break;
        }
        List<CompletableFuture<Boolean>> drops = new ArrayList<>();
        for (Entry entry : batch) {
          if (!owners.readers(entry.key(), entry.record().replicas()).contains(self)) {
            drops.add(storage.drop(entry.key(), entry.record().version()));
          }
        }
        for (CompletableFuture<Boolean> drop : drops) {
          dropped += drop.get(60, TimeUnit.SECONDS) ? 1 : 0;
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("sweep failed: " + e, e);
    }
    if (closed.getAsBoolean()) {
      return;
    }
    swept = epoch;
    files.write(SWEPT_FILE, ByteBuffer.allocate(Long.BYTES).putLong(epoch).array());
    log.info("dropped {} records this node no longer owns at epoch {}", dropped, epoch);
  }
}
