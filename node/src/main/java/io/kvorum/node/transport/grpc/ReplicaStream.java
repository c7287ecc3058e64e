package io.kvorum.node.transport.grpc;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The caller's side of the replica stream to one peer: one long-lived Exchange call that every
 * replica read and write to the peer shares.
 *
 * <p><b>Batching without delay.</b> Requests from any thread go to a queue; the first one into an
 * idle queue schedules one drain on the event loop of the peer's channel, which sends everything
 * queued by then as one message (bounded by {@link ProtoMapping#BATCH_ENTRIES} and {@link
 * ProtoMapping#BATCH_BYTES}). While the stream's flow control says not ready (the previous batch is
 * still being written), requests wait and leave together once it is. No timer, no linger: a lone
 * request leaves on the next turn of the loop.
 *
 * <p><b>Bounds and failures.</b> At most {@value #MAX_BACKLOG} requests wait unsent; beyond that a
 * request fails at once. Every request has its own deadline, sent or not. When the stream breaks,
 * every request waiting on it fails at once and the next request opens a new stream (the channel
 * reconnects by itself). Answers are matched to requests by id; a late answer is dropped.
 *
 * <p><b>Threads.</b> {@link #submit} and {@link #close} may be called from any thread; all other
 * work, and every completion of a returned future, runs on the channel's event loop, which owns the
 * state below without locks.
 */
final class ReplicaStream {
  static final int MAX_BACKLOG = 8192;

  private final NodeId peer;
  private final EventLoop loop;
  private final ReplicaGrpc.ReplicaStub stub;
  private final Duration timeout;
  private final Queue<Pending> submitted = new ConcurrentLinkedQueue<>();
  private final AtomicInteger unsentCount = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicLong ids = new AtomicLong();
  private volatile boolean closed;

  // Owned by the event loop.
  private final Map<Long, Pending> open = new LinkedHashMap<>();
  private final ArrayDeque<Pending> unsent = new ArrayDeque<>();
  private Call call;
  private ScheduledFuture<?> sweep;

  ReplicaStream(NodeId peer, EventLoop loop, ReplicaGrpc.ReplicaStub stub, Duration timeout) {
    this.peer = peer;
    this.loop = loop;
    this.stub = stub;
    this.timeout = timeout;
  }

  /** Sends one request; its answer, or a failure, comes within the deadline. */
  CompletableFuture<ReplicaResponse> submit(ReplicaRequest.Builder request) {
    Pending pending =
        new Pending(
            request.setRequestId(ids.incrementAndGet()).build(),
            System.nanoTime() + timeout.toNanos());
    if (closed) {
      pending.fail(unavailable("the transport is closed", null));
    } else if (unsentCount.incrementAndGet() > MAX_BACKLOG) {
      unsentCount.decrementAndGet();
      pending.fail(unavailable("its stream is backed up", null));
    } else {
      submitted.add(pending);
      if (drainScheduled.compareAndSet(false, true)) {
        // Always a task, even on the loop: what else is queued during this turn joins the batch.
        schedule(this::drain);
      }
    }
    return pending.result;
  }

  /** Fails every request not answered yet and ends the stream. */
  void close() {
    closed = true;
    schedule(
        () -> {
          Call ended = call;
          if (ended != null) {
            broke(ended, unavailable("the transport is closed", null));
            ended.cancel();
          }
          if (sweep != null) {
            sweep.cancel(false);
          }
          drain();
        });
  }

  private void onLoop(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
    } else {
      schedule(task);
    }
  }

  private void schedule(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      // The loop has stopped: so has the transport; nothing will answer what is queued.
      closed = true;
      for (Pending p = submitted.poll(); p != null; p = submitted.poll()) {
        p.fail(unavailable("the transport is closed", null));
      }
    }
  }

  private void drain() {
    // Cleared before taking, so a request queued after this point schedules another drain.
    drainScheduled.set(false);
    for (Pending p = submitted.poll(); p != null; p = submitted.poll()) {
      if (closed) {
        unsentCount.decrementAndGet();
        p.fail(unavailable("the transport is closed", null));
      } else {
        open.put(p.request.getRequestId(), p);
        unsent.add(p);
      }
    }
    if (unsent.isEmpty()) {
      return;
    }
    armSweep();
    if (call == null) {
      call = new Call();
      call.start();
    }
    if (call != null) {
      call.flush();
    }
  }

  /** The next batch from the unsent requests; requests already past their deadline are skipped. */
  private ReplicaRequestBatch nextBatch() {
    ReplicaRequestBatch.Builder batch = ReplicaRequestBatch.newBuilder();
    long bytes = 0;
    for (Pending p = unsent.peek(); p != null; p = unsent.peek()) {
      if (p.result.isDone()) {
        unsent.poll();
        unsentCount.decrementAndGet();
        continue;
      }
      int size = p.request.getSerializedSize();
      int count = batch.getRequestsCount();
      if (count > 0
          && (count == ProtoMapping.BATCH_ENTRIES || bytes + size > ProtoMapping.BATCH_BYTES)) {
        break;
      }
      unsent.poll();
      unsentCount.decrementAndGet();
      batch.addRequests(p.request);
      bytes += size;
    }
    return batch.build();
  }

  private void answered(ReplicaResponseBatch batch) {
    for (ReplicaResponse response : batch.getResponsesList()) {
      Pending p = open.remove(response.getRequestId());
      if (p == null) {
        continue; // past its deadline, or its stream broke: already failed
      }
      if (response.hasError()) {
        p.result.completeExceptionally(WireEdge.fromWire(peer, response.getError()));
      } else {
        p.result.complete(response);
      }
    }
  }

  private void broke(Call broken, RuntimeException error) {
    if (call != broken) {
      return;
    }
    call = null;
    List<Pending> failed = new ArrayList<>(open.values());
    open.clear();
    unsentCount.addAndGet(-unsent.size());
    unsent.clear();
    failed.forEach(p -> p.fail(error));
  }

  /** Keeps one timer, at the oldest open request's deadline: requests are open oldest first. */
  private void armSweep() {
    if (sweep != null || open.isEmpty()) {
      return;
    }
    long delay = open.values().iterator().next().deadlineNanos - System.nanoTime();
    sweep = loop.schedule(this::sweep, Math.max(delay, 0), TimeUnit.NANOSECONDS);
  }

  private void sweep() {
    sweep = null;
    long now = System.nanoTime();
    List<Pending> expired = new ArrayList<>();
    for (Iterator<Pending> it = open.values().iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (p.deadlineNanos - now > 0) {
        break;
      }
      it.remove();
      expired.add(p);
    }
    RuntimeException late = unavailable("no answer within " + timeout.toMillis() + " ms", null);
    expired.forEach(p -> p.fail(late));
    armSweep();
  }

  private PeerUnavailableException unavailable(String reason, Throwable cause) {
    return new PeerUnavailableException(peer, reason, cause);
  }

  /** A request and what its caller waits for. */
  private static final class Pending {
    final ReplicaRequest request;
    final long deadlineNanos;
    final CompletableFuture<ReplicaResponse> result = new CompletableFuture<>();

    Pending(ReplicaRequest request, long deadlineNanos) {
      this.request = request;
      this.deadlineNanos = deadlineNanos;
    }

    void fail(RuntimeException error) {
      result.completeExceptionally(error);
    }
  }

  /** One Exchange call; its callbacks hop to the loop if gRPC calls them from elsewhere. */
  private final class Call
      implements ClientResponseObserver<ReplicaRequestBatch, ReplicaResponseBatch> {
    private ClientCallStreamObserver<ReplicaRequestBatch> out;

    void start() {
      stub.exchange(this);
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ReplicaRequestBatch> out) {
      this.out = out;
      out.setOnReadyHandler(() -> onLoop(this::flush));
    }

    /** Sends batches while the stream can take them; the rest waits for the next ready. */
    void flush() {
      while (call == this && !unsent.isEmpty() && out.isReady()) {
        ReplicaRequestBatch batch = nextBatch();
        if (batch.getRequestsCount() > 0) {
          out.onNext(batch);
        }
      }
    }

    void cancel() {
      out.cancel("the transport is closed", null);
    }

    @Override
    public void onNext(ReplicaResponseBatch batch) {
      onLoop(
          () -> {
            if (call == this) {
              answered(batch);
            }
          });
    }

    @Override
    public void onError(Throwable error) {
      Status status = Status.fromThrowable(error);
      String reason =
          "its stream failed: "
              + status.getCode()
              + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")");
      onLoop(() -> broke(this, unavailable(reason, error)));
    }

    @Override
    public void onCompleted() {
      onLoop(() -> broke(this, unavailable("it closed the stream", null)));
    }
  }
}
