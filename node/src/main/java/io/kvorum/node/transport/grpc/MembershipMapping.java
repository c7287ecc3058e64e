package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteString;
import io.grpc.MethodDescriptor;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.MembershipProtocol;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.ClusterStateCodec;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Zone;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.GossipRequest;
import io.kvorum.proto.replica.v1.GossipResponse;
import io.kvorum.proto.replica.v1.HandoffRequest;
import io.kvorum.proto.replica.v1.JoinRequest;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ScanBatch;
import java.util.Optional;

/**
 * The membership protocol on the wire: the {@code Gossip} and {@code Join} calls, both answered by
 * a cluster state in {@link ClusterStateCodec}'s form, and the {@code Handoff} stream.
 */
final class MembershipMapping {
  private MembershipMapping() {}

  static void register(WireProtocols.Builder wire) {
    wire.add(new Gossip()).add(new Join()).add(new Handoff());
  }

  private static GossipResponse state(ClusterState state) {
    return GossipResponse.newBuilder()
        .setClusterState(ByteString.copyFrom(ClusterStateCodec.encode(state)))
        .build();
  }

  private static ClusterState state(GossipResponse message) {
    return ClusterStateCodec.decode(message.getClusterState().toByteArray());
  }

  private static final class Gossip
      implements WireCodecs.Unary<
          MembershipProtocol.Gossip, ClusterState, GossipRequest, GossipResponse> {
    @Override
    public Operation<MembershipProtocol.Gossip, ClusterState> operation() {
      return MembershipProtocol.GOSSIP;
    }

    @Override
    public MethodDescriptor<GossipRequest, GossipResponse> method() {
      return ReplicaGrpc.getGossipMethod();
    }

    @Override
    public GossipRequest encode(MembershipProtocol.Gossip gossip) {
      return GossipRequest.newBuilder()
          .setNodeId(gossip.from().value())
          .setClusterState(ByteString.copyFrom(ClusterStateCodec.encode(gossip.state())))
          .build();
    }

    @Override
    public MembershipProtocol.Gossip decode(GossipRequest message) {
      return new MembershipProtocol.Gossip(
          NodeId.of(message.getNodeId()),
          ClusterStateCodec.decode(message.getClusterState().toByteArray()));
    }

    @Override
    public GossipResponse encodeAnswer(ClusterState answer) {
      return state(answer);
    }

    @Override
    public ClusterState decodeAnswer(NodeId peer, GossipResponse message) {
      return state(message);
    }
  }

  private static final class Join
      implements WireCodecs.Unary<Member, ClusterState, JoinRequest, GossipResponse> {
    @Override
    public Operation<Member, ClusterState> operation() {
      return MembershipProtocol.JOIN;
    }

    @Override
    public MethodDescriptor<JoinRequest, GossipResponse> method() {
      return ReplicaGrpc.getJoinMethod();
    }

    @Override
    public JoinRequest encode(Member member) {
      return JoinRequest.newBuilder()
          .setNodeId(member.id().value())
          .setHost(member.host())
          .setGrpcPort(member.grpcPort())
          .setZone(member.zone().name())
          .build();
    }

    @Override
    public Member decode(JoinRequest message) {
      return new Member(
          NodeId.of(message.getNodeId()),
          message.getHost(),
          message.getGrpcPort(),
          Zone.of(message.getZone()));
    }

    @Override
    public GossipResponse encodeAnswer(ClusterState answer) {
      return state(answer);
    }

    @Override
    public ClusterState decodeAnswer(NodeId peer, GossipResponse message) {
      return state(message);
    }
  }

  private static final class Handoff
      implements WireCodecs.Cursor<MembershipProtocol.Handoff, HandoffRequest> {
    @Override
    public CursorOperation<MembershipProtocol.Handoff> operation() {
      return MembershipProtocol.HANDOFF;
    }

    @Override
    public MethodDescriptor<HandoffRequest, ScanBatch> method() {
      return ReplicaGrpc.getHandoffMethod();
    }

    @Override
    public HandoffRequest encode(MembershipProtocol.Handoff handoff) {
      HandoffRequest.Builder request =
          HandoffRequest.newBuilder()
              .setEpoch(handoff.epoch())
              .setStart(ProtoMapping.bytes(handoff.start().bytes()));
      handoff.to().ifPresent(to -> request.setNodeId(to.value()));
      return request.build();
    }

    @Override
    public MembershipProtocol.Handoff decode(HandoffRequest message) {
      return new MembershipProtocol.Handoff(
          message.getEpoch(),
          message.hasNodeId() ? Optional.of(NodeId.of(message.getNodeId())) : Optional.empty(),
          ProtoMapping.key(message.getStart()));
    }
  }
}
