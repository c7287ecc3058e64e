package io.kvorum.node.topology;

import io.kvorum.node.core.NodeId;
import java.util.Objects;

/**
 * A member of the cluster, where its inter-node (gRPC) endpoint listens, and its failure domain.
 *
 * @param id the node's unique id
 * @param host host name or address peers dial
 * @param grpcPort the node's inter-node port
 * @param zone the node's failure domain (SPEC §3); {@link Zone#NONE} for a node that names none
 */
public record Member(NodeId id, String host, int grpcPort, Zone zone) {
  public Member {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(zone, "zone");
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("member " + id + " has no host");
    }
    if (grpcPort < 1 || grpcPort > 65535) {
      throw new IllegalArgumentException("member " + id + " has port " + grpcPort);
    }
  }

  /** A member in the unnamed zone. */
  public Member(NodeId id, String host, int grpcPort) {
    this(id, host, grpcPort, Zone.NONE);
  }

  /** This member in {@code other}. */
  public Member inZone(Zone other) {
    return new Member(id, host, grpcPort, other);
  }

  @Override
  public String toString() {
    return id + "=" + host + ":" + grpcPort + (zone.named() ? " in zone " + zone : "");
  }
}
