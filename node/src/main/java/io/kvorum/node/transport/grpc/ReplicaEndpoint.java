package io.kvorum.node.transport.grpc;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.transport.ReplicaService;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.ReplicaError;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanRequest;
import io.kvorum.proto.replica.v1.WriteResponse;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC face of this node's {@link ReplicaService}. Runs on gRPC's transport threads (direct
 * executor) and never blocks: storage work completes on the storage executor.
 *
 * <p>Flow control on the shared stream: at most {@value #WINDOW} requests of one stream are served
 * at once; one more is read for each response that leaves, and none while the client does not read
 * its responses. Every message observed advances this node's clock.
 */
final class ReplicaEndpoint extends ReplicaGrpc.ReplicaImplBase {
  private static final Logger log = LoggerFactory.getLogger(ReplicaEndpoint.class);
  static final int WINDOW = 1024;
  private static final int SCAN_BATCH_ENTRIES = 256;
  static final int SCAN_BATCH_BYTES = 1 << 20;

  private final NodeId self;
  private final ReplicaService service;
  private final Clock clock;

  ReplicaEndpoint(NodeId self, ReplicaService service, Clock clock) {
    this.self = self;
    this.service = service;
    this.clock = clock;
  }

  private long hlc() {
    return clock.current().value();
  }

  @Override
  public StreamObserver<ReplicaRequest> exchange(StreamObserver<ReplicaResponse> responses) {
    return new Exchange((ServerCallStreamObserver<ReplicaResponse>) responses);
  }

  /**
   * One peer's request stream. Responses pass through a queue ({@link #reply}) and requests in
   * flight are counted without a lock, so the event loop reading requests and the storage threads
   * answering them do not wait for each other; the rest of the state is guarded by the instance's
   * monitor, which only the thread sending responses and the rare stream events take.
   */
  private final class Exchange implements StreamObserver<ReplicaRequest> {
    private final ServerCallStreamObserver<ReplicaResponse> out;
    private final Queue<ReplicaResponse> replies = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private int owed;
    private boolean halfClosed;

    /** No more responses may be sent: the call was cancelled, failed or completed. */
    private boolean closed;

    Exchange(ServerCallStreamObserver<ReplicaResponse> out) {
      this.out = out;
      out.disableAutoRequest();
      out.setOnCancelHandler(this::cancelled);
      out.setOnReadyHandler(this::ready);
      out.request(WINDOW);
    }

    @Override
    public void onNext(ReplicaRequest request) {
      clock.observe(new Version(request.getHlc()));
      inFlight.incrementAndGet();
      CompletableFuture<ReplicaResponse.Builder> result;
      try {
        result = dispatch(request);
      } catch (RuntimeException e) {
        result = CompletableFuture.failedFuture(e);
      }
      result.whenComplete(
          (response, error) ->
              reply(
                  (error == null ? response : failure(error))
                      .setRequestId(request.getRequestId())
                      .setHlc(hlc())
                      .build()));
    }

    private CompletableFuture<ReplicaResponse.Builder> dispatch(ReplicaRequest request) {
      return switch (request.getOperationCase()) {
        case READ ->
            service
                .read(ProtoMapping.key(request.getRead().getKey()))
                .thenApply(ReplicaEndpoint::readResponse);
        case WRITE ->
            service
                .write(
                    ProtoMapping.key(request.getWrite().getKey()),
                    ProtoMapping.fromProto(request.getWrite().getRecord()))
                .thenApply(
                    ok ->
                        ReplicaResponse.newBuilder().setWrite(WriteResponse.getDefaultInstance()));
        case OPERATION_NOT_SET ->
            CompletableFuture.failedFuture(
                new InvalidRequestException(null, "a request without an operation"));
      };
    }

    /**
     * Queues a response; whichever thread finds the queue idle sends everything queued, so storage
     * threads finishing at once never wait for each other on the stream (the response observer is
     * not thread-safe and was guarded by one monitor, the most contended lock of a node under
     * load).
     */
    private void reply(ReplicaResponse response) {
      replies.add(response);
      if (pending.getAndIncrement() != 0) {
        return;
      }
      int missed = 1;
      do {
        drain();
        missed = pending.addAndGet(-missed);
      } while (missed != 0);
    }

    private synchronized void drain() {
      int sent = 0;
      for (ReplicaResponse response = replies.poll(); response != null; response = replies.poll()) {
        inFlight.decrementAndGet();
        if (!closed) {
          out.onNext(response);
          sent++;
        }
      }
      if (sent > 0) {
        if (out.isReady()) {
          out.request(sent);
        } else {
          owed += sent;
        }
      }
      completeIfDone();
    }

    private void completeIfDone() {
      if (halfClosed && inFlight.get() == 0 && !closed) {
        closed = true;
        out.onCompleted();
      }
    }

    private synchronized void ready() {
      if (owed > 0 && !closed) {
        out.request(owed);
        owed = 0;
      }
    }

    private synchronized void cancelled() {
      closed = true;
    }

    @Override
    public synchronized void onError(Throwable error) {
      closed = true;
    }

    @Override
    public synchronized void onCompleted() {
      halfClosed = true;
      completeIfDone();
    }
  }

  private static ReplicaResponse.Builder readResponse(Optional<io.kvorum.node.core.Record> record) {
    ReadResponse.Builder read = ReadResponse.newBuilder();
    record.ifPresent(r -> read.setRecord(ProtoMapping.toProto(r)));
    return ReplicaResponse.newBuilder().setRead(read);
  }

  private static ReplicaResponse.Builder failure(Throwable error) {
    Throwable cause = Failures.unwrap(error);
    ReplicaError.Code code =
        switch (cause) {
          case OverloadedException e -> ReplicaError.Code.OVERLOADED;
          case InvalidRequestException e -> ReplicaError.Code.INVALID;
          default -> ReplicaError.Code.INTERNAL;
        };
    if (code == ReplicaError.Code.INTERNAL) {
      log.warn("a replica request failed", cause);
    }
    return ReplicaResponse.newBuilder()
        .setError(
            ReplicaError.newBuilder().setCode(code).setMessage(String.valueOf(cause.getMessage())));
  }

  @Override
  public void scan(ScanRequest request, StreamObserver<ScanBatch> responses) {
    clock.observe(new Version(request.getHlc()));
    KeyRange range =
        new KeyRange(
            ProtoMapping.key(request.getStart()),
            request.hasEnd() ? Optional.of(ProtoMapping.key(request.getEnd())) : Optional.empty());
    new ScanPump((ServerCallStreamObserver<ScanBatch>) responses, service.scan(range)).start();
  }

  /** Sends a cursor's batches while the client's flow-control window has room. */
  private final class ScanPump {
    private final ServerCallStreamObserver<ScanBatch> out;
    private final ScanCursor cursor;
    private boolean fetching;
    private boolean done;

    ScanPump(ServerCallStreamObserver<ScanBatch> out, ScanCursor cursor) {
      this.out = out;
      this.cursor = cursor;
    }

    void start() {
      out.setOnCancelHandler(this::cancel);
      out.setOnReadyHandler(this::pump);
      pump();
    }

    private synchronized void pump() {
      if (done || fetching || !out.isReady()) {
        return;
      }
      fetching = true;
      cursor.next(SCAN_BATCH_ENTRIES, SCAN_BATCH_BYTES).whenComplete(this::send);
    }

    private void send(java.util.List<io.kvorum.node.core.Entry> batch, Throwable error) {
      synchronized (this) {
        fetching = false;
        if (done) {
          return;
        }
        if (error != null) {
          finish();
          out.onError(
              Status.UNAVAILABLE.withDescription(String.valueOf(error)).asRuntimeException());
          return;
        }
        if (batch.isEmpty()) {
          finish();
          out.onCompleted();
          return;
        }
        out.onNext(ProtoMapping.toProto(batch, hlc()));
      }
      pump();
    }

    private synchronized void cancel() {
      finish();
    }

    private void finish() {
      done = true;
      cursor.close();
    }
  }

  @Override
  public void hello(HelloRequest request, StreamObserver<HelloResponse> responses) {
    clock.observe(new Version(request.getHlc()));
    NodeId peer;
    try {
      peer = NodeId.of(request.getNodeId());
    } catch (IllegalArgumentException e) {
      responses.onError(
          Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    log.info("{} says hello; delivering the hints held for it", peer);
    service
        .hello(peer)
        .whenComplete(
            (delivered, error) -> {
              if (error != null) {
                responses.onError(
                    Status.UNAVAILABLE.withDescription(String.valueOf(error)).asRuntimeException());
              } else {
                responses.onNext(
                    HelloResponse.newBuilder()
                        .setNodeId(self.value())
                        .setHlc(hlc())
                        .setHintsDelivered(delivered)
                        .build());
                responses.onCompleted();
              }
            });
  }
}
