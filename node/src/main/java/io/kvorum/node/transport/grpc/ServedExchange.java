package io.kvorum.node.transport.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.consensus.Reply;
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
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One peer's replica stream, served. The writes of a received batch go to storage together ({@link
 * ReplicaService#writeAll}, one storage batch); reads go one by one. Every request gets its own
 * response, and responses leave in batches, as {@link ExchangeBatcher} sends them on the stream's
 * event loop: all that are answered, whether or not the stream is ready, since the flow control
 * below bounds them.
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
      ReplicaService service,
      ServerCallStreamObserver<ReplicaResponseBatch> out,
      EventLoop loop,
      Consumer<ServedExchange> ended) {
    this.service = service;
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
          case PREPARE ->
              paxos(
                  id,
                  () ->
                      service.prepare(
                          ProtoMapping.key(request.getPrepare().getKey()),
                          PaxosMapping.fromProto(request.getPrepare().getBallot())));
          case ACCEPT ->
              paxos(
                  id,
                  () ->
                      service.accept(
                          ProtoMapping.key(request.getAccept().getKey()),
                          PaxosMapping.fromProto(request.getAccept().getProposal())));
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

  /** A prepare or accept, answered once the acceptor's new state is durable. */
  private void paxos(long id, Supplier<CompletableFuture<Reply>> step) {
    CompletableFuture<Reply> reply;
    try {
      reply = step.get();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    reply.whenComplete(
        (answer, error) ->
            answer(
                error == null
                    ? ReplicaResponse.newBuilder()
                        .setRequestId(id)
                        .setPaxos(PaxosMapping.toProto(answer))
                        .build()
                    : failed(id, error)));
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
