package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.replica.ReplicaProtocol;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReadResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanRequest;
import io.kvorum.proto.replica.v1.WriteRequest;
import io.kvorum.proto.replica.v1.WriteResponse;
import java.util.Optional;

/**
 * The replica protocol on the wire: reads and writes on the Exchange stream, scans as the {@code
 * Scan} call.
 */
final class ReplicaMapping {
  private ReplicaMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Read()).add(new Write()).add(new Scan());
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

  private static final class Scan implements WireCodecs.Cursor<KeyRange, ScanRequest> {
    @Override
    public CursorOperation<KeyRange> operation() {
      return ReplicaProtocol.SCAN;
    }

    @Override
    public MethodDescriptor<ScanRequest, ScanBatch> method() {
      return ReplicaGrpc.getScanMethod();
    }

    @Override
    public ScanRequest encode(KeyRange range) {
      ScanRequest.Builder request =
          ScanRequest.newBuilder().setStart(ProtoMapping.bytes(range.start().bytes()));
      range.end().ifPresent(end -> request.setEnd(ProtoMapping.bytes(end.bytes())));
      return request.build();
    }

    @Override
    public KeyRange decode(ScanRequest message) {
      return new KeyRange(
          ProtoMapping.key(message.getStart()),
          message.hasEnd() ? Optional.of(ProtoMapping.key(message.getEnd())) : Optional.empty());
    }
  }
}
