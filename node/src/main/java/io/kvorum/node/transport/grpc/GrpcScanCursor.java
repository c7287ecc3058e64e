package io.kvorum.node.transport.grpc;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ScanBatch;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A peer's records (a scan, the records of some hash-tree segments, a hand-off: any {@link
 * WireCodecs.Cursor}) as a pull cursor over a server-streaming call. gRPC flow control does the
 * back-pressure: one batch is asked for ahead of the consumer, no more, so the peer stops sending
 * while the consumer is slow. Waiting for a batch has a deadline; a failed call fails the cursor,
 * with the peer's error if the peer failed the scan ({@link WireEdge}).
 */
final class GrpcScanCursor<Q> implements ScanCursor, ClientResponseObserver<Q, ScanBatch> {
  private final PeerChannel channel;
  private final Duration batchTimeout;
  private final String what;
  private final ArrayDeque<List<Entry>> received = new ArrayDeque<>();
  private ClientCallStreamObserver<Q> call;
  private CompletableFuture<List<Entry>> waiting;
  private boolean finished;
  private Throwable failure;

  private GrpcScanCursor(PeerChannel channel, Duration batchTimeout, String what) {
    this.channel = channel;
    this.batchTimeout = batchTimeout;
    this.what = what;
  }

  /**
   * Opens {@code codec}'s call on {@code channel} with {@code request}: a cursor over the records
   * the peer streams back.
   */
  static <Q, P> ScanCursor open(
      PeerChannel channel, Duration batchTimeout, WireCodecs.Cursor<Q, P> codec, Q request) {
    GrpcScanCursor<P> cursor =
        new GrpcScanCursor<>(channel, batchTimeout, "its " + codec.operation().name());
    ReplicaGrpc.ReplicaStub stub = channel.stub();
    ClientCalls.asyncServerStreamingCall(
        stub.getChannel().newCall(codec.method(), stub.getCallOptions()),
        codec.encode(request),
        cursor);
    return cursor;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<Q> call) {
    this.call = call;
    call.disableAutoRequestWithInitial(1);
  }

  @Override
  public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
    CompletableFuture<List<Entry>> result;
    synchronized (this) {
      if (waiting != null) {
        return CompletableFuture.failedFuture(
            new IllegalStateException("next() called before the previous batch arrived"));
      }
      if (!received.isEmpty()) {
        call.request(1);
        return CompletableFuture.completedFuture(received.poll());
      }
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      if (finished) {
        return CompletableFuture.completedFuture(List.of());
      }
      result = new CompletableFuture<>();
      waiting = result;
    }
    return result
        .orTimeout(batchTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionallyCompose(
            error ->
                CompletableFuture.failedFuture(
                    error instanceof TimeoutException
                        ? channel.unavailable(
                            "no scan batch within " + batchTimeout.toMillis() + " ms", error)
                        : error))
        .whenComplete(
            (batch, error) -> {
              if (error != null) {
                close();
              }
            });
  }

  @Override
  public void onNext(ScanBatch batch) {
    List<Entry> entries = ProtoMapping.fromProto(batch);
    CompletableFuture<List<Entry>> consumer;
    synchronized (this) {
      consumer = waiting;
      waiting = null;
      if (consumer == null) {
        received.add(entries);
      } else {
        call.request(1);
      }
    }
    if (consumer != null) {
      consumer.complete(entries);
    }
  }

  @Override
  public void onError(Throwable error) {
    CompletableFuture<List<Entry>> consumer;
    synchronized (this) {
      failure = WireEdge.fromStatus(channel.peer(), what, error);
      consumer = waiting;
      waiting = null;
    }
    if (consumer != null) {
      consumer.completeExceptionally(failure);
    }
  }

  @Override
  public void onCompleted() {
    CompletableFuture<List<Entry>> consumer;
    synchronized (this) {
      finished = true;
      consumer = waiting;
      waiting = null;
    }
    if (consumer != null) {
      consumer.complete(List.of());
    }
  }

  @Override
  public synchronized void close() {
    if (!finished && failure == null) {
      call.cancel("scan closed", null);
    }
  }
}
