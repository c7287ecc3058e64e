package io.kvorum.node.membership;

import io.kvorum.node.antientropy.RepairRate;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.StreamFigures;
import io.kvorum.node.transport.PeerTransport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Streams the records of one source (this node's storage, or a peer's through the Handoff call) to
 * the nodes each record should reach, at the node's repair rate, in key order. Resumable: after
 * each batch is stored on every destination, the last key passed is kept in the data directory
 * ({@code stream-<epoch>-<source>.resume}), and a restarted stream carries on after it; a finished
 * source leaves {@code stream-<epoch>-<source>.done}. Receivers merge by last-writer-wins, so a
 * batch sent twice is harmless. Blocking: each source streams on its own thread of a drive ({@link
 * ChangeDriver}); the rate and the figures are shared.
 */
final class Streamer {
  private static final int BATCH_ENTRIES = 256;
  private static final long BATCH_BYTES = 1 << 20;
  private static final long BATCH_TIMEOUT_SECONDS = 60;

  private final NodeId self;
  private final StorageEngine storage;
  private final PeerTransport transport;
  private final RepairRate rate;
  private final MembershipStore files;
  private final Map<NodeId, StreamProgress> progress = new ConcurrentHashMap<>();

  Streamer(
      NodeId self,
      StorageEngine storage,
      PeerTransport transport,
      RepairRate rate,
      MembershipStore files) {
    this.self = self;
    this.storage = storage;
    this.transport = transport;
    this.rate = rate;
    this.files = files;
  }

  /** Streaming figures per member, as this node sees them, for the change in progress. */
  Map<NodeId, StreamProgress> progress() {
    return progress;
  }

  StreamProgress progress(NodeId node) {
    return progress.computeIfAbsent(node, n -> new StreamProgress());
  }

  /** What this node streamed for the change since this process started: copies stored or sent. */
  String summary() {
    long records = 0;
    long bytes = 0;
    for (StreamProgress each : progress.values()) {
      StreamFigures figures = each.figures();
      records += figures.recordsSent() + figures.recordsReceived();
      bytes += figures.bytesSent() + figures.bytesReceived();
    }
    return records + " copies of records, " + bytes + " bytes";
  }

  /** Forgets the figures and the resume files: the change they were for is over. */
  void reset() {
    progress.clear();
  }

  /**
   * This node's records from {@code start} that it hands off under {@code owners} ({@link
   * Owners#handoffSource}) to {@code to}, or to any new replica when null. For a peer that pulls
   * them ({@code paced}), the records read to find them pass at the node's rate: the peer paces
   * what it receives, but this node reads every record it holds to find the few it hands off, and
   * that reading competes with its requests.
   */
  ScanCursor handoff(Owners owners, NodeId to, Key start, boolean paced) {
    ScanCursor scan = storage.scan(KeyRange.from(start));
    if (paced) {
      scan = scan.mapBatches(batch -> batch.thenCompose(this::paced));
    }
    return scan.filter(
        entry -> {
          int from = entry.record().replicas();
          return owners.handoffSource(entry.key(), from).filter(self::equals).isPresent()
              && (to == null || owners.gained(entry.key(), from).contains(to));
        });
  }

  private CompletableFuture<List<Entry>> paced(List<Entry> batch) {
    long bytes = 0;
    for (Entry entry : batch) {
      bytes += entry.key().size() + entry.record().value().length;
    }
    return bytes == 0
        ? CompletableFuture.completedFuture(batch)
        : rate.acquire(bytes).thenApply(x -> batch);
  }

  /**
   * Streams the records of {@code source} that {@code open} gives from a start key to the nodes
   * {@code destinations} names for each (this node included: stored locally), from where a previous
   * run of the same change stopped.
   *
   * @throws StreamException if the source or a destination failed; run again to resume
   */
  void stream(
      long epoch,
      NodeId source,
      Function<Key, ScanCursor> open,
      Function<Entry, List<NodeId>> destinations) {
    String name = "stream-" + epoch + "-" + source.value();
    if (files.read(name + ".done").isPresent()) {
      progress(source).done();
      return;
    }
    Key start =
        files
            .read(name + ".resume")
            .map(last -> Key.of(Arrays.copyOf(last, last.length + 1)))
            .orElse(Key.of(new byte[] {0}));
    try (ScanCursor cursor = open.apply(start)) {
      while (true) {
        List<Entry> batch = await(cursor.next(BATCH_ENTRIES, BATCH_BYTES), "scan of " + source);
        if (batch.isEmpty()) {
          break;
        }
        send(source, batch, destinations);
        files.write(name + ".resume", batch.get(batch.size() - 1).key().bytes());
      }
    }
    files.write(name + ".done", new byte[0]);
    progress(source).done();
  }

  private void send(NodeId source, List<Entry> batch, Function<Entry, List<NodeId>> destinations) {
    List<Entry> local = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    long bytes = 0;
    for (Entry entry : batch) {
      long size = entry.key().size() + entry.record().value().length;
      for (NodeId destination : destinations.apply(entry)) {
        bytes += size;
        if (destination.equals(self)) {
          local.add(entry);
          if (!source.equals(self)) {
            progress(source).received(size);
          }
        } else {
          writes.add(transport.call(destination, ReplicaProtocol.WRITE, entry));
          progress(destination).sent(size);
        }
      }
    }
    if (bytes > 0) {
      await(rate.acquire(bytes), "the streaming rate");
    }
    if (!local.isEmpty()) {
      writes.add(storage.putAll(local));
    }
    await(
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)),
        "writes of streamed records");
  }

  private static <T> T await(CompletableFuture<T> future, String what) {
    try {
      return future.get(BATCH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new StreamException(what + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new StreamException(what + " took over " + BATCH_TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StreamException("interrupted during " + what, e);
    }
  }

  /** A stream that stopped; running it again resumes it. */
  static final class StreamException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StreamException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
