package io.kvorum.node.transport.grpc;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.PeerTransportContract;
import io.kvorum.node.transport.TransportTestCluster;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The contract, bound to the real inter-node path: {@link GrpcPeerTransport} clients talking to
 * {@link GrpcReplicaServer}s on free ports of this machine.
 */
class GrpcPeerTransportTest extends PeerTransportContract {
  @Override
  protected TransportTestCluster start(
      int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    return GrpcTestCluster.start(size, callTimeout, walls);
  }
}
