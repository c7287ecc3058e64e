package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Which directed links of a test cluster are cut, and how long each takes to deliver. */
final class LinkTable {
  private record Link(NodeId from, NodeId to) {}

  private final Set<Link> cut = ConcurrentHashMap.newKeySet();
  private final Map<Link, Duration> delays = new ConcurrentHashMap<>();

  void partition(NodeId a, NodeId b) {
    cut.add(new Link(a, b));
    cut.add(new Link(b, a));
  }

  void delay(NodeId from, NodeId to, Duration delay) {
    delays.put(new Link(from, to), delay);
  }

  void clear() {
    cut.clear();
    delays.clear();
  }

  boolean isCut(NodeId from, NodeId to) {
    return cut.contains(new Link(from, to));
  }

  /** Whether either direction between {@code a} and {@code b} is cut or slowed. */
  boolean faulted(NodeId a, NodeId b) {
    return isCut(a, b) || isCut(b, a) || !delayOf(a, b).isZero() || !delayOf(b, a).isZero();
  }

  Duration delayOf(NodeId from, NodeId to) {
    return delays.getOrDefault(new Link(from, to), Duration.ZERO);
  }
}
