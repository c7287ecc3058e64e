package io.kvorum.node.membership;

import io.kvorum.node.antientropy.RepairRate;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.StreamFigures;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Streams the records of one source (this node's storage, or a peer's through the Handoff call) to
 * the nodes each record should reach, at the node's repair rate, in key order. Resumable: after
 * each batch is stored on every destination, the last key passed is kept in the data directory
 * ({@code stream-<epoch>-<source>.resume}), and a restarted stream carries on after it; a finished
 * source leaves {@code stream-<epoch>-<source>.done}. Receivers merge by last-writer-wins, so a
 * batch sent twice is harmless.
 *
 * <p>Nothing waits on a thread: a stream is a chain of steps on the membership worker, each started
 * when the batch it needs has come ({@link Execution#loop}). Each wait has a deadline on the node's
 * scheduler, {@value #BATCH_TIMEOUT_SECONDS} s: the next batch of the scan, the streaming rate's
 * permit, the writes of a batch on its destinations; one missed fails the stream. The sources of a
 * drive ({@link ChangeDriver}) stream at once and share the rate and the figures.
 */
final class Streamer {
  private static final int BATCH_ENTRIES = 256;
  private static final long BATCH_BYTES = 1 << 20;
  private static final long BATCH_TIMEOUT_SECONDS = 60;
  private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(BATCH_TIMEOUT_SECONDS);

  private final NodeId self;
  private final StorageEngine storage;
  private final PeerTransport transport;
  private final RepairRate rate;
  private final MembershipStore files;
  private final Execution execution;
  private final Map<NodeId, StreamProgress> progress = new ConcurrentHashMap<>();

  /**
   * @param execution where the steps of a stream run (the worker: they read and write its files),
   *     where its deadlines are kept, and whether the node is closing
   */
  Streamer(
      NodeId self,
      StorageEngine storage,
      PeerTransport transport,
      RepairRate rate,
      MembershipStore files,
      Execution execution) {
    this.self = self;
    this.storage = storage;
    this.transport = transport;
    this.rate = rate;
    this.files = files;
    this.execution = execution;
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
   * run of the same change stopped. Called on the worker, where each of its steps runs (reading and
   * writing the resume files); streams of several sources run at once, their steps interleaved.
   *
   * @return completes once every record is on its destinations and the source is marked done; fails
   *     with {@link StreamException} if the source or a destination failed, a batch did not come or
   *     was not stored within its deadline, or the node is closing: run again to resume
   */
  CompletableFuture<Void> stream(
      long epoch,
      NodeId source,
      Function<Key, ScanCursor> open,
      Function<Entry, List<NodeId>> destinations) {
    String name = "stream-" + epoch + "-" + source.value();
    if (files.read(name + ".done").isPresent()) {
      progress(source).done();
      return CompletableFuture.completedFuture(null);
    }
    Key start =
        files
            .read(name + ".resume")
            .map(last -> Key.of(Arrays.copyOf(last, last.length + 1)))
            .orElse(Key.of(new byte[] {0}));
    ScanCursor cursor = open.apply(start);
    return execution
        .loop(() -> nextBatch(name, source, cursor, destinations))
        .whenComplete((done, error) -> cursor.close())
        .thenRunAsync(
            () -> {
              files.write(name + ".done", new byte[0]);
              progress(source).done();
            },
            execution.worker());
  }

  /** Streams the cursor's next batch; completes with whether there may be more. */
  private CompletableFuture<Boolean> nextBatch(
      String name, NodeId source, ScanCursor cursor, Function<Entry, List<NodeId>> destinations) {
    if (execution.closed()) {
      throw new StreamException("the node is closing", null);
    }
    return await(cursor.next(BATCH_ENTRIES, BATCH_BYTES), "scan of " + source)
        .thenComposeAsync(
            batch ->
                batch.isEmpty()
                    ? CompletableFuture.completedFuture(false)
                    : send(source, batch, destinations)
                        .thenApplyAsync(
                            stored -> {
                              // Only once every destination stored the batch: a resumed stream
                              // never skips a record that did not arrive.
                              files.write(
                                  name + ".resume", batch.get(batch.size() - 1).key().bytes());
                              return true;
                            },
                            execution.worker()),
            execution.worker());
  }

  private CompletableFuture<Void> send(
      NodeId source, List<Entry> batch, Function<Entry, List<NodeId>> destinations) {
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
    CompletableFuture<Void> paced =
        bytes > 0
            ? await(rate.acquire(bytes), "the streaming rate")
            : CompletableFuture.completedFuture(null);
    return paced.thenComposeAsync(
        unused -> {
          if (!local.isEmpty()) {
            writes.add(storage.putAllStreamed(local));
          }
          return await(
              CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)),
              "writes of streamed records");
        },
        execution.worker());
  }

  /**
   * {@code future}'s outcome within the batch deadline, a failure as a {@link StreamException}
   * naming {@code what}: "failed" with its cause, or "took over" the deadline (then it is
   * cancelled).
   */
  private <T> CompletableFuture<T> await(CompletableFuture<T> future, String what) {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    execution
        .within(future, BATCH_TIMEOUT)
        .whenComplete(
            (value, error) -> {
              Throwable cause = error == null ? null : Failures.unwrap(error);
              if (cause == null) {
                outcome.complete(value);
              } else if (cause instanceof TimeoutException) {
                outcome.completeExceptionally(
                    new StreamException(
                        what + " took over " + BATCH_TIMEOUT.toSeconds() + " s", cause));
              } else {
                outcome.completeExceptionally(
                    new StreamException(what + " failed: " + cause, cause));
              }
            });
    return outcome;
  }

  /** A stream that stopped; running it again resumes it. */
  static final class StreamException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StreamException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
