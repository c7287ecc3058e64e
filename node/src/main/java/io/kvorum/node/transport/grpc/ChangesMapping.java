package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.changes.ChangesProtocol;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.Change;
import io.kvorum.proto.replica.v1.ChangesRequest;
import io.kvorum.proto.replica.v1.ChangesResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The change-feed protocol on the wire: the {@code Changes} call and its page of the log. */
final class ChangesMapping {
  private ChangesMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Read());
  }

  private static final class Read
      implements WireCodecs.Unary<
          ChangesProtocol.Read, ChangeLog.Page, ChangesRequest, ChangesResponse> {
    @Override
    public Operation<ChangesProtocol.Read, ChangeLog.Page> operation() {
      return ChangesProtocol.READ;
    }

    @Override
    public MethodDescriptor<ChangesRequest, ChangesResponse> method() {
      return ReplicaGrpc.getChangesMethod();
    }

    @Override
    public ChangesRequest encode(ChangesProtocol.Read read) {
      ChangesRequest.Builder request =
          ChangesRequest.newBuilder()
              .setStart(ProtoMapping.bytes(read.range().start().bytes()))
              .setAfter(read.after())
              .setLimit(read.limit());
      read.range().end().ifPresent(end -> request.setEnd(ProtoMapping.bytes(end.bytes())));
      return request.build();
    }

    @Override
    public ChangesProtocol.Read decode(ChangesRequest message) {
      return new ChangesProtocol.Read(
          new KeyRange(
              ProtoMapping.key(message.getStart()),
              message.hasEnd()
                  ? Optional.of(ProtoMapping.key(message.getEnd()))
                  : Optional.empty()),
          message.getAfter(),
          message.getLimit());
    }

    @Override
    public ChangesResponse encodeAnswer(ChangeLog.Page page) {
      ChangesResponse.Builder answer =
          ChangesResponse.newBuilder()
              .setClosed(page.closed())
              .setPurgedBefore(page.purgedBefore())
              .setMore(page.more());
      for (ChangeLog.Change change : page.changes()) {
        answer.addChanges(
            Change.newBuilder()
                .setStamp(change.stamp())
                .setKey(ProtoMapping.bytes(change.key().bytes()))
                .setRecord(ProtoMapping.toProto(change.record())));
      }
      return answer.build();
    }

    @Override
    public ChangeLog.Page decodeAnswer(NodeId peer, ChangesResponse message) {
      List<ChangeLog.Change> changes = new ArrayList<>(message.getChangesCount());
      for (Change change : message.getChangesList()) {
        changes.add(
            new ChangeLog.Change(
                change.getStamp(),
                ProtoMapping.key(change.getKey()),
                ProtoMapping.fromProto(change.getRecord())));
      }
      return new ChangeLog.Page(
          changes, message.getClosed(), message.getPurgedBefore(), message.getMore());
    }
  }
}
