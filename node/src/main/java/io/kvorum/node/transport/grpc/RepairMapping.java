package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.antientropy.RepairProtocol;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.SegmentsRequest;
import io.kvorum.proto.replica.v1.TreeHashesRequest;
import io.kvorum.proto.replica.v1.TreeHashesResponse;

/** The anti-entropy protocol on the wire: the {@code TreeHashes} and {@code Segments} calls. */
final class RepairMapping {
  private RepairMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Hashes()).add(new Segments());
  }

  private static final class Hashes
      implements WireCodecs.Unary<
          RepairProtocol.Hashes, long[], TreeHashesRequest, TreeHashesResponse> {
    @Override
    public Operation<RepairProtocol.Hashes, long[]> operation() {
      return RepairProtocol.TREE_HASHES;
    }

    @Override
    public MethodDescriptor<TreeHashesRequest, TreeHashesResponse> method() {
      return ReplicaGrpc.getTreeHashesMethod();
    }

    @Override
    public TreeHashesRequest encode(RepairProtocol.Hashes ask) {
      TreeHashesRequest.Builder request =
          TreeHashesRequest.newBuilder().setNodeId(ask.from().value()).setLevel(ask.level());
      for (int position : ask.positions()) {
        request.addPositions(position);
      }
      return request.build();
    }

    @Override
    public RepairProtocol.Hashes decode(TreeHashesRequest message) {
      return new RepairProtocol.Hashes(
          NodeId.of(message.getNodeId()),
          message.getLevel(),
          message.getPositionsList().stream().mapToInt(p -> p).toArray());
    }

    @Override
    public TreeHashesResponse encodeAnswer(long[] hashes) {
      TreeHashesResponse.Builder response = TreeHashesResponse.newBuilder();
      for (long hash : hashes) {
        response.addHashes(hash);
      }
      return response.build();
    }

    @Override
    public long[] decodeAnswer(NodeId peer, TreeHashesResponse message) {
      return message.getHashesList().stream().mapToLong(h -> h).toArray();
    }
  }

  private static final class Segments
      implements WireCodecs.Cursor<RepairProtocol.Segments, SegmentsRequest> {
    @Override
    public CursorOperation<RepairProtocol.Segments> operation() {
      return RepairProtocol.SEGMENTS;
    }

    @Override
    public MethodDescriptor<SegmentsRequest, ScanBatch> method() {
      return ReplicaGrpc.getSegmentsMethod();
    }

    @Override
    public SegmentsRequest encode(RepairProtocol.Segments ask) {
      SegmentsRequest.Builder request = SegmentsRequest.newBuilder().setNodeId(ask.from().value());
      for (int segment : ask.segments()) {
        request.addSegments(segment);
      }
      return request.build();
    }

    @Override
    public RepairProtocol.Segments decode(SegmentsRequest message) {
      return new RepairProtocol.Segments(
          NodeId.of(message.getNodeId()),
          message.getSegmentsList().stream().mapToInt(s -> s).toArray());
    }
  }
}
