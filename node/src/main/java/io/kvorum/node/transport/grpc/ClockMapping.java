package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.PingRequest;
import io.kvorum.proto.replica.v1.PingResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import java.util.Optional;

/** The clock protocol on the wire: the {@code Ping} call, its answer with the storage figures. */
final class ClockMapping {
  private ClockMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Ping());
  }

  private static final class Ping
      implements WireCodecs.Unary<
          ClockProtocol.Ping, ClockProtocol.PeerTime, PingRequest, PingResponse> {
    @Override
    public Operation<ClockProtocol.Ping, ClockProtocol.PeerTime> operation() {
      return ClockProtocol.PING;
    }

    @Override
    public MethodDescriptor<PingRequest, PingResponse> method() {
      return ReplicaGrpc.getPingMethod();
    }

    @Override
    public PingRequest encode(ClockProtocol.Ping ping) {
      return PingRequest.getDefaultInstance();
    }

    @Override
    public ClockProtocol.Ping decode(PingRequest message) {
      return ClockProtocol.Ping.INSTANCE;
    }

    @Override
    public PingResponse encodeAnswer(ClockProtocol.PeerTime time) {
      PingResponse.Builder answer = PingResponse.newBuilder().setWallMillis(time.wallMillis());
      time.storage().ifPresent(s -> answer.setRecords(s.records()).setDiskUsedBytes(s.diskBytes()));
      return answer.build();
    }

    @Override
    public ClockProtocol.PeerTime decodeAnswer(NodeId peer, PingResponse message) {
      return new ClockProtocol.PeerTime(
          message.getWallMillis(),
          message.hasRecords() && message.hasDiskUsedBytes()
              ? Optional.of(new StorageReport(message.getRecords(), message.getDiskUsedBytes()))
              : Optional.empty());
    }
  }
}
