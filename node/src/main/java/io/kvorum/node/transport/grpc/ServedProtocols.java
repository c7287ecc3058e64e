package io.kvorum.node.transport.grpc;

import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.kvorum.proto.replica.v1.ScanBatch;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's handlers ({@link PeerHandlers}) served to its peers as the gRPC service the wire
 * mappings describe ({@link WireProtocols}): the Exchange stream ({@link ServedExchange}), a method
 * per unary operation, a server-streaming method per cursor operation. Runs on the node's event
 * loops (direct executor) and never blocks. A failure is handed to gRPC as the domain error it is;
 * the node's {@link WireEdge} codes it (and stamps the clock on every message), so nothing here
 * deals with either. A request that does not decode is answered as an invalid request.
 */
final class ServedProtocols {
  private final WireProtocols wire;
  private final PeerHandlers handlers;
  private final EventLoops loops;
  private final Set<ServedExchange> exchanges = ConcurrentHashMap.newKeySet();

  ServedProtocols(WireProtocols wire, PeerHandlers handlers, EventLoops loops) {
    this.wire = wire;
    this.handlers = handlers;
    this.loops = loops;
  }

  /** The service: every method of the {@code Replica} service bound to its operation. */
  ServerServiceDefinition service() {
    ServerServiceDefinition.Builder service =
        ServerServiceDefinition.builder(ReplicaGrpc.getServiceDescriptor())
            .addMethod(
                ReplicaGrpc.getExchangeMethod(),
                ServerCalls.asyncBidiStreamingCall(this::exchange));
    wire.unaries().forEach(codec -> bind(service, codec));
    wire.cursors().forEach(codec -> bind(service, codec));
    return service.build();
  }

  private StreamObserver<ReplicaRequestBatch> exchange(
      StreamObserver<ReplicaResponseBatch> responses) {
    // gRPC opens the call on the event loop of its connection: the stream works on that loop.
    ServedExchange exchange =
        new ServedExchange(
            wire,
            handlers,
            (ServerCallStreamObserver<ReplicaResponseBatch>) responses,
            loops.current().orElseGet(loops::next),
            exchanges::remove);
    exchanges.add(exchange);
    return exchange;
  }

  /**
   * The node is stopping: every Exchange stream takes no more requests and ends once those it took
   * are answered, so that the server need not wait for its peers to end streams they keep open.
   */
  void endExchanges() {
    exchanges.forEach(ServedExchange::end);
  }

  private <Q, A, P, R> void bind(
      ServerServiceDefinition.Builder service, WireCodecs.Unary<Q, A, P, R> codec) {
    service.addMethod(
        codec.method(),
        ServerCalls.asyncUnaryCall(
            (P message, StreamObserver<R> responses) -> {
              CompletableFuture<A> answer;
              try {
                answer = handlers.handle(codec.operation(), codec.decode(message));
              } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(invalid(e));
              }
              answer.whenComplete(
                  (value, error) -> {
                    if (error != null) {
                      responses.onError(Failures.unwrap(error));
                    } else {
                      responses.onNext(codec.encodeAnswer(value));
                      responses.onCompleted();
                    }
                  });
            }));
  }

  private <Q, P> void bind(ServerServiceDefinition.Builder service, WireCodecs.Cursor<Q, P> codec) {
    service.addMethod(
        codec.method(),
        ServerCalls.asyncServerStreamingCall(
            (P message, StreamObserver<ScanBatch> responses) -> {
              ScanCursor cursor;
              try {
                cursor = handlers.open(codec.operation(), codec.decode(message));
              } catch (RuntimeException e) {
                responses.onError(invalid(e));
                return;
              }
              new ScanPump((ServerCallStreamObserver<ScanBatch>) responses, cursor).start();
            }));
  }

  /** A request that did not decode is the caller's fault; a refusal while decoding, as it is. */
  static RuntimeException invalid(RuntimeException decoding) {
    return decoding instanceof IllegalArgumentException
        ? new InvalidRequestException(null, decoding.getMessage())
        : decoding;
  }

  /** Sends a cursor's batches while the client's flow-control window has room. */
  private static final class ScanPump {
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
      cursor.next(ProtoMapping.BATCH_ENTRIES, ProtoMapping.BATCH_BYTES).whenComplete(this::send);
    }

    private void send(List<Entry> batch, Throwable error) {
      synchronized (this) {
        fetching = false;
        if (done) {
          return;
        }
        if (error != null) {
          finish();
          out.onError(Failures.unwrap(error));
          return;
        }
        if (batch.isEmpty()) {
          finish();
          out.onCompleted();
          return;
        }
        out.onNext(ProtoMapping.toProto(batch));
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
}
