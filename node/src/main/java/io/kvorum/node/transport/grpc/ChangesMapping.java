package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.changes.ChangesProtocol;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.Change;
import io.kvorum.proto.replica.v1.ChangesPage;
import io.kvorum.proto.replica.v1.ChangesRead;
import io.kvorum.proto.replica.v1.ChangesRequest;
import io.kvorum.proto.replica.v1.ChangesResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The change-feed protocol on the wire: the {@code Changes} call, its reads and their pages. */
final class ChangesMapping {
  private ChangesMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Read());
  }

  private static final class Read
      implements WireCodecs.Unary<
          List<ChangeLog.Read>, List<ChangeLog.Page>, ChangesRequest, ChangesResponse> {
    @Override
    public Operation<List<ChangeLog.Read>, List<ChangeLog.Page>> operation() {
      return ChangesProtocol.READ;
    }

    @Override
    public MethodDescriptor<ChangesRequest, ChangesResponse> method() {
      return ReplicaGrpc.getChangesMethod();
    }

    @Override
    public ChangesRequest encode(List<ChangeLog.Read> reads) {
      ChangesRequest.Builder request = ChangesRequest.newBuilder();
      for (ChangeLog.Read read : reads) {
        ChangesRead.Builder one =
            ChangesRead.newBuilder()
                .setStart(ProtoMapping.bytes(read.range().start().bytes()))
                .setAfter(read.after())
                .setLimit(read.limit());
        read.range().end().ifPresent(end -> one.setEnd(ProtoMapping.bytes(end.bytes())));
        request.addReads(one);
      }
      return request.build();
    }

    @Override
    public List<ChangeLog.Read> decode(ChangesRequest message) {
      List<ChangeLog.Read> reads = new ArrayList<>(message.getReadsCount());
      for (ChangesRead read : message.getReadsList()) {
        reads.add(
            new ChangeLog.Read(
                new KeyRange(
                    ProtoMapping.key(read.getStart()),
                    read.hasEnd()
                        ? Optional.of(ProtoMapping.key(read.getEnd()))
                        : Optional.empty()),
                read.getAfter(),
                read.getLimit()));
      }
      return reads;
    }

    @Override
    public ChangesResponse encodeAnswer(List<ChangeLog.Page> pages) {
      ChangesResponse.Builder answer = ChangesResponse.newBuilder();
      for (ChangeLog.Page page : pages) {
        ChangesPage.Builder one =
            ChangesPage.newBuilder()
                .setClosed(page.closed())
                .setPurgedBefore(page.purgedBefore())
                .setMore(page.more());
        for (ChangeLog.Change change : page.changes()) {
          one.addChanges(
              Change.newBuilder()
                  .setStamp(change.stamp())
                  .setKey(ProtoMapping.bytes(change.key().bytes()))
                  .setRecord(ProtoMapping.toProto(change.record())));
        }
        answer.addPages(one);
      }
      return answer.build();
    }

    @Override
    public List<ChangeLog.Page> decodeAnswer(NodeId peer, ChangesResponse message) {
      List<ChangeLog.Page> pages = new ArrayList<>(message.getPagesCount());
      for (ChangesPage page : message.getPagesList()) {
        List<ChangeLog.Change> changes = new ArrayList<>(page.getChangesCount());
        for (Change change : page.getChangesList()) {
          changes.add(
              new ChangeLog.Change(
                  change.getStamp(),
                  ProtoMapping.key(change.getKey()),
                  ProtoMapping.fromProto(change.getRecord())));
        }
        pages.add(
            new ChangeLog.Page(changes, page.getClosed(), page.getPurgedBefore(), page.getMore()));
      }
      return pages;
    }
  }
}
