package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import java.time.Duration;
import java.util.List;

/**
 * The faults a test puts on the links between the nodes of a cluster, whatever carries their
 * messages. A cut link loses what it carries: calls over it fail at their deadline with {@link
 * io.kvorum.node.core.PeerUnavailableException}, and the node at its far end is unreachable ({@link
 * io.kvorum.node.transport.PeerTransport#state}). A slowed link delivers late; a call whose
 * messages take longer than its deadline fails, although its request may still arrive. Healing
 * tells every node's transport that the peers it can reach again are reachable ({@link
 * io.kvorum.node.transport.PeerTransport#onPeerReachable}).
 */
public interface LinkFaults {
  /** Cuts both directions between {@code a} and {@code b}. */
  void partition(NodeId a, NodeId b);

  /** Cuts {@code node} from every one of {@code others}. */
  default void isolate(NodeId node, List<NodeId> others) {
    others.stream().filter(other -> !other.equals(node)).forEach(other -> partition(node, other));
  }

  /** Restores every link and removes every delay. */
  void heal();

  /** Messages from {@code from} to {@code to} take {@code delay} to arrive (zero: none). */
  void delay(NodeId from, NodeId to, Duration delay);
}
