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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The caller's side of the replica stream to one peer: one long-lived Exchange call that every
 * replica read and write to the peer shares.
 *
 * <p><b>Batching without delay.</b> Requests from any thread leave in batches, as {@link
 * ExchangeBatcher} sends them on the event loop of the peer's channel. While the stream's flow
 * control says not ready (the previous batch is still being written), requests wait and leave
 * together once it is.
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
  private final ExchangeBatcher<Pending> batches;
  private final AtomicInteger unsentCount = new AtomicInteger();
  private final AtomicLong ids = new AtomicLong();
  private volatile boolean closed;

  // Owned by the event loop.
  private final Map<Long, Pending> open = new LinkedHashMap<>();
  private Call call;
  private ScheduledFuture<?> sweep;

  ReplicaStream(NodeId peer, EventLoop loop, ReplicaGrpc.ReplicaStub stub, Duration timeout) {
    this.peer = peer;
    this.loop = loop;
    this.stub = stub;
    this.timeout = timeout;
    this.batches = new ExchangeBatcher<>(loop, new Requests());
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
      batches.add(pending);
    }
    return pending.result;
  }

  /** Fails every request not answered yet and ends the stream. */
  void close() {
    closed = true;
    batches.execute(
        () -> {
          Call ended = call;
          if (ended != null) {
            broke(ended, unavailable("the transport is closed", null));
            ended.cancel();
          }
          if (sweep != null) {
            sweep.cancel(false);
          }
          // Requests still queued fail in the drain that their queuing scheduled.
        });
  }

  /** How requests leave: each registered for its answer and deadline once off the queue. */
  private final class Requests implements ExchangeBatcher.Side<Pending> {
    @Override
    public boolean take(Pending p) {
      if (closed) {
        unsentCount.decrementAndGet();
        p.fail(unavailable("the transport is closed", null));
        return false;
      }
      open.put(p.request.getRequestId(), p);
      return true;
    }

    @Override
    public void drained() {
      if (!batches.hasUnsent()) {
        return;
      }
      armSweep();
      if (call == null) {
        call = new Call();
        call.start();
      }
      batches.flush();
    }

    /** A request already past its deadline is not sent. */
    @Override
    public boolean drop(Pending p) {
      if (p.result.isDone()) {
        unsentCount.decrementAndGet();
        return true;
      }
      return false;
    }

    @Override
    public int size(Pending p) {
      return p.request.getSerializedSize();
    }

    @Override
    public boolean ready() {
      return call != null && call.out.isReady();
    }

    @Override
    public void send(List<Pending> batch) {
      unsentCount.addAndGet(-batch.size());
      ReplicaRequestBatch.Builder message = ReplicaRequestBatch.newBuilder();
      for (int i = 0; i < batch.size(); i++) {
        message.addRequests(batch.get(i).request);
      }
      call.out.onNext(message.build());
    }

    /** Nothing will answer what is queued. */
    @Override
    public void stopped(List<Pending> queued) {
      closed = true;
      queued.forEach(p -> p.fail(unavailable("the transport is closed", null)));
    }
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
    unsentCount.addAndGet(-batches.clearUnsent());
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
    if (!expired.isEmpty()) {
      RuntimeException late = unavailable("no answer within " + timeout.toMillis() + " ms", null);
      expired.forEach(p -> p.fail(late));
    }
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
      out.setOnReadyHandler(() -> batches.onLoop(this::flush));
    }

    /** Sends batches while the stream can take them; the rest waits for the next ready. */
    void flush() {
      if (call == this) {
        batches.flush();
      }
    }

    void cancel() {
      out.cancel("the transport is closed", null);
    }

    @Override
    public void onNext(ReplicaResponseBatch batch) {
      batches.onLoop(
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
      batches.onLoop(() -> broke(this, unavailable(reason, error)));
    }

    @Override
    public void onCompleted() {
      batches.onLoop(() -> broke(this, unavailable("it closed the stream", null)));
    }
  }
}
