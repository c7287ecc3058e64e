package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.replication.CatchUpProtocol;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import java.util.Optional;

/**
 * The catch-up protocol on the wire: the {@code Hello} call, which also carries the inter-node
 * protocol each side speaks ({@link PeerProtocol}): a hello from, or answered by, a node this one
 * cannot talk to is refused as an invalid request (not the peer's fault for its breaker), logged
 * once and counted.
 */
final class CatchUpMapping {
  private CatchUpMapping() {}

  static void register(WireProtocols.Builder wire, NodeId self, PeerProtocol protocol) {
    wire.add(new Hello(self, protocol));
  }

  private record Hello(NodeId self, PeerProtocol protocol)
      implements WireCodecs.Unary<NodeId, Long, HelloRequest, HelloResponse> {
    @Override
    public Operation<NodeId, Long> operation() {
      return CatchUpProtocol.HELLO;
    }

    @Override
    public MethodDescriptor<HelloRequest, HelloResponse> method() {
      return ReplicaGrpc.getHelloMethod();
    }

    @Override
    public HelloRequest encode(NodeId from) {
      return HelloRequest.newBuilder().setNodeId(from.value()).setProtocol(protocol.wire()).build();
    }

    @Override
    public NodeId decode(HelloRequest message) {
      NodeId peer = NodeId.of(message.getNodeId());
      Optional<String> refusal = protocol.refusal(peer, message.getProtocol());
      if (refusal.isPresent()) {
        throw new InvalidRequestException("protocol", refusal.get());
      }
      return peer;
    }

    @Override
    public HelloResponse encodeAnswer(Long delivered) {
      return HelloResponse.newBuilder()
          .setNodeId(self.value())
          .setHintsDelivered(delivered)
          .setProtocol(protocol.wire())
          .build();
    }

    @Override
    public Long decodeAnswer(NodeId peer, HelloResponse message) {
      Optional<String> refusal = protocol.refusal(peer, message.getProtocol());
      if (refusal.isPresent()) {
        throw new InvalidRequestException(null, refusal.get());
      }
      return message.getHintsDelivered();
    }

    /** A hello ended without an answer is one of a release that answered none: no hints. */
    @Override
    public Long ifNoAnswer() {
      return 0L;
    }
  }
}
