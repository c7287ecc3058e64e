package io.kvorum.api;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The nodes a client sends to: its seeds and the members it learned from {@code /v0/cluster}, taken
 * in turn (round-robin), skipping a node for a while after it failed to answer. Thread-safe.
 */
final class Endpoints {
  private final List<URI> seeds;
  private final Map<URI, Long> downUntilNanos = new ConcurrentHashMap<>();
  private final AtomicInteger turn = new AtomicInteger();
  private volatile List<URI> all;

  Endpoints(List<URI> seeds) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a client needs at least one node to talk to");
    }
    this.seeds = List.copyOf(seeds);
    this.all = this.seeds;
  }

  List<URI> all() {
    return all;
  }

  /** The next node in turn that is not marked down; if every node is, the next one anyway. */
  URI next() {
    List<URI> nodes = all;
    for (int i = 0; i < nodes.size(); i++) {
      URI node = nodes.get(Math.floorMod(turn.getAndIncrement(), nodes.size()));
      if (reachable(node)) {
        return node;
      }
    }
    return nodes.get(Math.floorMod(turn.getAndIncrement(), nodes.size()));
  }

  /** Whether {@code node} is not marked down now. */
  boolean reachable(URI node) {
    Long until = downUntilNanos.get(node);
    return until == null || until - System.nanoTime() <= 0;
  }

  void markDown(URI node, long forNanos) {
    downUntilNanos.put(node, System.nanoTime() + forNanos);
  }

  void markUp(URI node) {
    downUntilNanos.remove(node);
  }

  /**
   * Adds the members a node listed in its cluster view, each at the HTTP address it advertises
   * ({@code nodes[].httpAddress}). Seeds stay whatever the view says.
   */
  void learn(URI answeredBy, Map<String, Object> cluster) {
    if (!(cluster.get("nodes") instanceof List<?> nodes)) {
      return;
    }
    Set<URI> merged = new LinkedHashSet<>(seeds);
    for (Object node : nodes) {
      if (node instanceof Map<?, ?> member) {
        URI learned = httpAddress(answeredBy, member);
        if (learned != null) {
          merged.add(learned);
        }
      }
    }
    all = List.copyOf(new ArrayList<>(merged));
  }

  /**
   * Where {@code member} answers HTTP: the address it advertises, else (a node of a release before
   * it advertised one) its inter-node host at the port of the node that listed it; always in that
   * node's scheme. Null when the entry names neither.
   */
  private static URI httpAddress(URI answeredBy, Map<?, ?> member) {
    URI advertised = advertised(answeredBy, member);
    return advertised != null ? advertised : derived(answeredBy, member);
  }

  /** The HTTP address {@code member} advertises ({@code httpAddress}), or null if none. */
  static URI advertised(URI answeredBy, Map<?, ?> member) {
    if (member.get("httpAddress") instanceof String http && !http.isBlank()) {
      return URI.create(answeredBy.getScheme() + "://" + http);
    }
    return null;
  }

  /** {@code member}'s inter-node host at the port of the node that listed it, or null if none. */
  static URI derived(URI answeredBy, Map<?, ?> member) {
    if (member.get("address") instanceof String address) {
      int colon = address.lastIndexOf(':');
      String host = colon > 0 ? address.substring(0, colon) : address;
      if (!host.isEmpty()) {
        return URI.create(answeredBy.getScheme() + "://" + host + ":" + answeredBy.getPort());
      }
    }
    return null;
  }
}
