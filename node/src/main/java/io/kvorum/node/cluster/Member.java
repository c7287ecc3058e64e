package io.kvorum.node.cluster;

import io.kvorum.node.core.NodeId;
import java.util.Objects;

/**
 * A node of the static topology and where its inter-node (gRPC) endpoint listens.
 *
 * @param id the node's unique id
 * @param host host name or address peers dial
 * @param grpcPort the node's inter-node port
 */
public record Member(NodeId id, String host, int grpcPort) {
  public Member {
    Objects.requireNonNull(id, "id");
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("member " + id + " has no host");
    }
    if (grpcPort < 1 || grpcPort > 65535) {
      throw new IllegalArgumentException("member " + id + " has port " + grpcPort);
    }
  }

  @Override
  public String toString() {
    return id + "=" + host + ":" + grpcPort;
  }
}
