package io.kvorum.node.transport.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.proto.replica.v1.ReplicaError;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One peer's replica stream, served: each request to its operation's handler ({@link
 * PeerHandlers}), as the operation's mapping decodes it ({@link WireProtocols}). The requests of a
 * received batch whose operation serves requests together (writes: one storage batch) go together;
 * the others one by one. Every request gets its own response, and responses leave in batches, as
 * {@link ExchangeBatcher} sends them on the stream's event loop: all that are answered, whether or
 * not the stream is ready, since the flow control below bounds them.
 *
 * <p>Flow control: the next batch is read only while fewer than {@value #WINDOW} requests minus a
 * batch are being served and the caller reads its responses, so at most {@value #WINDOW} requests
 * of a well-behaved caller are in flight.
 *
 * <p>Threads: everything but queuing an answer runs on the event loop of the stream's connection
 * (gRPC calls in on it), which owns the state below without locks; storage threads only queue.
 */
final class ServedExchange implements StreamObserver<ReplicaRequestBatch> {
  static final int WINDOW = 1024;

  private final WireProtocols wire;
  private final PeerHandlers handlers;
  private final ServerCallStreamObserver<ReplicaResponseBatch> out;
  private final ExchangeBatcher<ReplicaResponse> batches;
  private final Consumer<ServedExchange> ended;

  // Owned by the event loop.
  private int inFlight;
  private boolean reading;
  private boolean halfClosed;

  /** No more responses may be sent: the call was cancelled, failed or completed. */
  private boolean closed;

  /**
   * Must be created while gRPC hands the call to the service (it sets the call's handlers).
   *
   * @param ended told once the stream has ended, whichever side ended it
   */
  ServedExchange(
      WireProtocols wire,
      PeerHandlers handlers,
      ServerCallStreamObserver<ReplicaResponseBatch> out,
      EventLoop loop,
      Consumer<ServedExchange> ended) {
    this.wire = wire;
    this.handlers = handlers;
    this.out = out;
    this.ended = ended;
    this.batches = new ExchangeBatcher<>(loop, new Answers());
    out.disableAutoRequest();
    out.setOnCancelHandler(() -> batches.onLoop(this::close));
    out.setOnReadyHandler(() -> batches.onLoop(this::readMore));
    batches.onLoop(this::readMore);
  }

  @Override
  public void onNext(ReplicaRequestBatch batch) {
    batches.onLoop(() -> received(batch));
  }

  @Override
  public void onError(Throwable error) {
    batches.onLoop(this::close);
  }

  @Override
  public void onCompleted() {
    end();
  }

  /**
   * Takes no more requests and ends the stream once those taken are answered: the caller closed its
   * side, or this node is stopping.
   */
  void end() {
    batches.onLoop(
        () -> {
          halfClosed = true;
          finishIfDone();
        });
  }

  private void close() {
    closed = true;
    ended.accept(this);
  }

  private void received(ReplicaRequestBatch batch) {
    reading = false;
    inFlight += batch.getRequestsCount();
    Map<WireCodecs.Exchanged<?, ?>, Together<?>> together = new LinkedHashMap<>();
    for (ReplicaRequest request : batch.getRequestsList()) {
      long id = request.getRequestId();
      WireCodecs.Exchanged<?, ?> codec = wire.exchanged(request.getOperationCase());
      if (codec == null) {
        answer(failed(id, new InvalidRequestException(null, "a request without an operation")));
        continue;
      }
      // A key or record that does not decode is the request's fault: INVALID for it alone.
      try {
        if (handlers.batches(codec.operation())) {
          together.computeIfAbsent(codec, Together::new).add(id, request);
        } else {
          serve(id, codec, request);
        }
      } catch (RuntimeException e) {
        answer(failed(id, ServedProtocols.invalid(e)));
      }
    }
    together.values().forEach(Together::serve);
    readMore();
  }

  private <Q, A> void serve(long id, WireCodecs.Exchanged<Q, A> codec, ReplicaRequest request) {
    Q decoded = codec.takeRequest(request);
    handlers
        .handle(codec.operation(), decoded)
        .whenComplete(
            (answer, error) -> {
              if (error != null) {
                answer(failed(id, error));
                return;
              }
              ReplicaResponse.Builder response = ReplicaResponse.newBuilder().setRequestId(id);
              codec.putAnswer(response, answer);
              answer(response.build());
            });
  }

  /**
   * The requests of one batching operation (writes) that arrived together: served as one ({@link
   * PeerHandlers#handleAll}, one storage batch), each still answered on its own.
   */
  private final class Together<Q> {
    private final WireCodecs.Exchanged<Q, Void> codec;
    private final List<Long> ids = new ArrayList<>();
    private final List<Q> requests = new ArrayList<>();

    @SuppressWarnings("unchecked") // a batching operation answers nothing (Void)
    Together(WireCodecs.Exchanged<?, ?> codec) {
      this.codec = (WireCodecs.Exchanged<Q, Void>) codec;
    }

    void add(long id, ReplicaRequest request) {
      Q decoded = codec.takeRequest(request);
      ids.add(id);
      requests.add(decoded);
    }

    void serve() {
      handlers
          .handleAll(codec.operation(), requests)
          .whenComplete(
              (ok, error) -> {
                ReplicaError coded = error == null ? null : WireEdge.toWire(error);
                for (long id : ids) {
                  ReplicaResponse.Builder response = ReplicaResponse.newBuilder().setRequestId(id);
                  if (coded == null) {
                    codec.putAnswer(response, null);
                  } else {
                    response.setError(coded);
                  }
                  answer(response.build());
                }
              });
    }
  }

  private static ReplicaResponse failed(long id, Throwable error) {
    return ReplicaResponse.newBuilder().setRequestId(id).setError(WireEdge.toWire(error)).build();
  }

  /** Queues an answer; from any thread. */
  private void answer(ReplicaResponse response) {
    batches.add(response);
  }

  /** How answers leave: all at once, each counted out of the requests in flight. */
  private final class Answers implements ExchangeBatcher.Side<ReplicaResponse> {
    @Override
    public void drained() {
      batches.flush();
      readMore();
      finishIfDone();
    }

    @Override
    public int size(ReplicaResponse response) {
      return response.getSerializedSize();
    }

    /** Always: the window bounds the answers, so holding them back would only delay them. */
    @Override
    public boolean ready() {
      return true;
    }

    @Override
    public void send(List<ReplicaResponse> batch) {
      inFlight -= batch.size();
      if (!closed) {
        out.onNext(ReplicaResponseBatch.newBuilder().addAllResponses(batch).build());
      }
    }
  }

  private void readMore() {
    if (!reading
        && !closed
        && !halfClosed
        && inFlight <= WINDOW - ProtoMapping.BATCH_ENTRIES
        && out.isReady()) {
      reading = true;
      out.request(1);
    }
  }

  private void finishIfDone() {
    if (halfClosed && inFlight == 0 && !closed) {
      close();
      out.onCompleted();
    }
  }
}
