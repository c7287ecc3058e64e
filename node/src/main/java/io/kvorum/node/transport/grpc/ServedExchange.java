package io.kvorum.node.transport.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.transport.ReplicaService;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.ReplicaError;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.kvorum.proto.replica.v1.WriteResponse;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One peer's replica stream, served. The writes of a received batch go to storage together ({@link
 * ReplicaService#writeAll}, one storage batch); reads go one by one. Every request gets its own
 * response, and responses leave in batches: the first answer into an idle queue schedules one drain
 * on the stream's event loop, which sends everything answered by then as one message (bounded like
 * a request batch).
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

  private final ReplicaService service;
  private final ServerCallStreamObserver<ReplicaResponseBatch> out;
  private final EventLoop loop;
  private final Queue<ReplicaResponse> answers = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();

  // Owned by the event loop.
  private int inFlight;
  private boolean reading;
  private boolean halfClosed;

  /** No more responses may be sent: the call was cancelled, failed or completed. */
  private boolean closed;

  /** Must be created while gRPC hands the call to the service (it sets the call's handlers). */
  ServedExchange(
      ReplicaService service, ServerCallStreamObserver<ReplicaResponseBatch> out, EventLoop loop) {
    this.service = service;
    this.out = out;
    this.loop = loop;
    out.disableAutoRequest();
    out.setOnCancelHandler(() -> onLoop(() -> closed = true));
    out.setOnReadyHandler(() -> onLoop(this::readMore));
    onLoop(this::readMore);
  }

  @Override
  public void onNext(ReplicaRequestBatch batch) {
    onLoop(() -> received(batch));
  }

  @Override
  public void onError(Throwable error) {
    onLoop(() -> closed = true);
  }

  @Override
  public void onCompleted() {
    onLoop(
        () -> {
          halfClosed = true;
          finishIfDone();
        });
  }

  private void received(ReplicaRequestBatch batch) {
    reading = false;
    inFlight += batch.getRequestsCount();
    List<Entry> writes = new ArrayList<>();
    List<Long> writeIds = new ArrayList<>();
    for (ReplicaRequest request : batch.getRequestsList()) {
      long id = request.getRequestId();
      // A key or record that does not decode is the request's fault: INVALID for it alone.
      try {
        switch (request.getOperationCase()) {
          case READ -> read(id, request.getRead());
          case WRITE -> {
            writes.add(
                new Entry(
                    ProtoMapping.key(request.getWrite().getKey()),
                    ProtoMapping.fromProto(request.getWrite().getRecord())));
            writeIds.add(id);
          }
          case OPERATION_NOT_SET ->
              answer(
                  failed(id, new InvalidRequestException(null, "a request without an operation")));
        }
      } catch (IllegalArgumentException e) {
        answer(failed(id, new InvalidRequestException(null, e.getMessage())));
      }
    }
    if (!writes.isEmpty()) {
      write(writeIds, writes);
    }
    readMore();
  }

  private void read(long id, ReadRequest request) {
    Key key = ProtoMapping.key(request.getKey());
    CompletableFuture<Optional<Record>> record;
    try {
      record = service.read(key);
    } catch (RuntimeException e) {
      record = CompletableFuture.failedFuture(e);
    }
    record.whenComplete(
        (found, error) -> answer(error == null ? readResponse(id, found) : failed(id, error)));
  }

  /** One storage batch for the writes that arrived together; each still gets its own answer. */
  private void write(List<Long> ids, List<Entry> writes) {
    CompletableFuture<Void> written;
    try {
      written = service.writeAll(writes);
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    written.whenComplete(
        (ok, error) -> {
          ReplicaError coded = error == null ? null : WireEdge.toWire(error);
          for (long id : ids) {
            answer(
                coded == null
                    ? ReplicaResponse.newBuilder()
                        .setRequestId(id)
                        .setWrite(WriteResponse.getDefaultInstance())
                        .build()
                    : ReplicaResponse.newBuilder().setRequestId(id).setError(coded).build());
          }
        });
  }

  private static ReplicaResponse readResponse(long id, Optional<Record> record) {
    ReadResponse.Builder read = ReadResponse.newBuilder();
    record.ifPresent(r -> read.setRecord(ProtoMapping.toProto(r)));
    return ReplicaResponse.newBuilder().setRequestId(id).setRead(read).build();
  }

  private static ReplicaResponse failed(long id, Throwable error) {
    return ReplicaResponse.newBuilder().setRequestId(id).setError(WireEdge.toWire(error)).build();
  }

  /** Queues an answer; from any thread. */
  private void answer(ReplicaResponse response) {
    answers.add(response);
    if (drainScheduled.compareAndSet(false, true)) {
      // Always a task, even on the loop: answers completing meanwhile leave in the same batch.
      schedule(this::drain);
    }
  }

  private void drain() {
    // Cleared before taking, so an answer queued after this point schedules another drain.
    drainScheduled.set(false);
    while (!answers.isEmpty()) {
      ReplicaResponseBatch batch = nextBatch();
      inFlight -= batch.getResponsesCount();
      if (!closed) {
        out.onNext(batch);
      }
    }
    readMore();
    finishIfDone();
  }

  private ReplicaResponseBatch nextBatch() {
    ReplicaResponseBatch.Builder batch = ReplicaResponseBatch.newBuilder();
    long bytes = 0;
    for (ReplicaResponse r = answers.peek(); r != null; r = answers.peek()) {
      int size = r.getSerializedSize();
      int count = batch.getResponsesCount();
      if (count > 0
          && (count == ProtoMapping.BATCH_ENTRIES || bytes + size > ProtoMapping.BATCH_BYTES)) {
        break;
      }
      answers.poll();
      batch.addResponses(r);
      bytes += size;
    }
    return batch.build();
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
      closed = true;
      out.onCompleted();
    }
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
      // The loop has stopped with the server: the call is gone, nothing is left to answer.
    }
  }
}
