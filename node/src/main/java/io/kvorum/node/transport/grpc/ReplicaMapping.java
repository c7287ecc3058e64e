package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.replica.ReplicaBatch;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.replica.ReplicaScan;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.BatchReadResult;
import io.kvorum.proto.replica.v1.BatchRequest;
import io.kvorum.proto.replica.v1.BatchResponse;
import io.kvorum.proto.replica.v1.BatchWriteResult;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanRequest;
import io.kvorum.proto.replica.v1.WriteRequest;
import io.kvorum.proto.replica.v1.WriteResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The replica protocol on the wire: reads, writes and a client batch's items on the Exchange
 * stream, scans as the {@code Scan} call.
 */
final class ReplicaMapping {
  private ReplicaMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Read()).add(new Write()).add(new Batch()).add(new Scan());
  }

  private static final class Read implements WireCodecs.Exchanged<Key, Optional<Record>> {
    @Override
    public Operation<Key, Optional<Record>> operation() {
      return ReplicaProtocol.READ;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.READ;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, Key key) {
      message.setRead(ReadRequest.newBuilder().setKey(ProtoMapping.bytes(key.bytes())));
    }

    @Override
    public Key takeRequest(ReplicaRequest message) {
      return ProtoMapping.key(message.getRead().getKey());
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, Optional<Record> record) {
      ReadResponse.Builder read = ReadResponse.newBuilder();
      record.ifPresent(r -> read.setRecord(ProtoMapping.toProto(r)));
      message.setRead(read);
    }

    @Override
    public Optional<Record> takeAnswer(NodeId peer, ReplicaResponse message) {
      ProtoMapping.expect(message, ReplicaResponse.ResultCase.READ);
      return message.getRead().hasRecord()
          ? Optional.of(ProtoMapping.fromProto(message.getRead().getRecord()))
          : Optional.empty();
    }
  }

  private static final class Write implements WireCodecs.Exchanged<Entry, Void> {
    @Override
    public Operation<Entry, Void> operation() {
      return ReplicaProtocol.WRITE;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.WRITE;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, Entry write) {
      message.setWrite(
          WriteRequest.newBuilder()
              .setKey(ProtoMapping.bytes(write.key().bytes()))
              .setRecord(ProtoMapping.toProto(write.record())));
    }

    @Override
    public Entry takeRequest(ReplicaRequest message) {
      return new Entry(
          ProtoMapping.key(message.getWrite().getKey()),
          ProtoMapping.fromProto(message.getWrite().getRecord()));
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, Void answer) {
      message.setWrite(WriteResponse.getDefaultInstance());
    }

    @Override
    public Void takeAnswer(NodeId peer, ReplicaResponse message) {
      return null;
    }
  }

  private static final class Batch
      implements WireCodecs.Exchanged<ReplicaBatch, ReplicaBatch.Answer> {
    @Override
    public Operation<ReplicaBatch, ReplicaBatch.Answer> operation() {
      return ReplicaProtocol.BATCH;
    }

    @Override
    public ReplicaRequest.OperationCase requestCase() {
      return ReplicaRequest.OperationCase.BATCH;
    }

    @Override
    public void putRequest(ReplicaRequest.Builder message, ReplicaBatch batch) {
      BatchRequest.Builder request = BatchRequest.newBuilder();
      batch.reads().forEach(key -> request.addReads(ProtoMapping.bytes(key.bytes())));
      for (Entry write : batch.writes()) {
        request.addWrites(
            WriteRequest.newBuilder()
                .setKey(ProtoMapping.bytes(write.key().bytes()))
                .setRecord(ProtoMapping.toProto(write.record())));
      }
      message.setBatch(request);
    }

    @Override
    public ReplicaBatch takeRequest(ReplicaRequest message) {
      BatchRequest request = message.getBatch();
      List<Key> reads = new ArrayList<>(request.getReadsCount());
      request.getReadsList().forEach(key -> reads.add(ProtoMapping.key(key)));
      List<Entry> writes = new ArrayList<>(request.getWritesCount());
      for (WriteRequest write : request.getWritesList()) {
        writes.add(
            new Entry(ProtoMapping.key(write.getKey()), ProtoMapping.fromProto(write.getRecord())));
      }
      return new ReplicaBatch(reads, writes);
    }

    @Override
    public void putAnswer(ReplicaResponse.Builder message, ReplicaBatch.Answer answer) {
      BatchResponse.Builder response = BatchResponse.newBuilder();
      for (ReplicaBatch.Outcome<Optional<Record>> read : answer.reads()) {
        BatchReadResult.Builder result = BatchReadResult.newBuilder();
        if (read.omitted()) {
          result.setOmitted(true);
        } else if (read.failure() != null) {
          result.setError(WireEdge.toWire(read.failure()));
        } else {
          ReadResponse.Builder found = ReadResponse.newBuilder();
          read.value().ifPresent(r -> found.setRecord(ProtoMapping.toProto(r)));
          result.setRead(found);
        }
        response.addReads(result);
      }
      for (ReplicaBatch.Outcome<Void> write : answer.writes()) {
        BatchWriteResult.Builder result = BatchWriteResult.newBuilder();
        if (write.failure() != null) {
          result.setError(WireEdge.toWire(write.failure()));
        }
        response.addWrites(result);
      }
      message.setBatch(response);
    }

    @Override
    public ReplicaBatch.Answer takeAnswer(NodeId peer, ReplicaResponse message) {
      ProtoMapping.expect(message, ReplicaResponse.ResultCase.BATCH);
      BatchResponse response = message.getBatch();
      List<ReplicaBatch.Outcome<Optional<Record>>> reads = new ArrayList<>();
      for (BatchReadResult read : response.getReadsList()) {
        if (read.getOmitted()) {
          reads.add(ReplicaBatch.Outcome.omittedRead());
        } else if (read.hasError()) {
          reads.add(ReplicaBatch.Outcome.failed(WireEdge.fromWire(peer, read.getError())));
        } else {
          reads.add(
              ReplicaBatch.Outcome.of(
                  read.getRead().hasRecord()
                      ? Optional.of(ProtoMapping.fromProto(read.getRead().getRecord()))
                      : Optional.empty()));
        }
      }
      List<ReplicaBatch.Outcome<Void>> writes = new ArrayList<>();
      for (BatchWriteResult write : response.getWritesList()) {
        writes.add(
            write.hasError()
                ? ReplicaBatch.Outcome.failed(WireEdge.fromWire(peer, write.getError()))
                : ReplicaBatch.Outcome.of(null));
      }
      return new ReplicaBatch.Answer(reads, writes);
    }
  }

  private static final class Scan implements WireCodecs.Cursor<ReplicaScan, ScanRequest> {
    @Override
    public CursorOperation<ReplicaScan> operation() {
      return ReplicaProtocol.SCAN;
    }

    @Override
    public MethodDescriptor<ScanRequest, ScanBatch> method() {
      return ReplicaGrpc.getScanMethod();
    }

    @Override
    public ScanRequest encode(ReplicaScan scan) {
      KeyRange range = scan.range();
      ScanRequest.Builder request =
          ScanRequest.newBuilder()
              .setStart(ProtoMapping.bytes(range.start().bytes()))
              .setFirstBatch(scan.firstBatch());
      range.end().ifPresent(end -> request.setEnd(ProtoMapping.bytes(end.bytes())));
      return request.build();
    }

    @Override
    public ReplicaScan decode(ScanRequest message) {
      return new ReplicaScan(
          new KeyRange(
              ProtoMapping.key(message.getStart()),
              message.hasEnd()
                  ? Optional.of(ProtoMapping.key(message.getEnd()))
                  : Optional.empty()),
          (int) Math.min(Integer.MAX_VALUE, Integer.toUnsignedLong(message.getFirstBatch())));
    }
  }
}
