package io.kvorum.node.coordinator;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.membership.Membership;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts the requests about one key this node coordinates ({@code
 * kvorum_coordinated_requests_total}), {@code forwarded="true"} for those whose key it holds no
 * replica of, so that every copy of the request goes over the network: the hop a placement-aware
 * client saves, and the figure that shows whether clients route.
 */
final class ForwardedRequests {
  private static final String NAME = "kvorum.coordinated.requests";
  private static final String DESCRIPTION =
      "requests about one key (get, put, delete, conditional or not) coordinated here; forwarded:"
          + " this node holds none of the key's replicas";

  private final Membership membership;
  private final NodeId self;
  private final Counter local;
  private final Counter forwarded;

  ForwardedRequests(Membership membership, NodeId self, MeterRegistry registry) {
    this.membership = membership;
    this.self = self;
    this.local =
        Counter.builder(NAME).description(DESCRIPTION).tag("forwarded", "false").register(registry);
    this.forwarded =
        Counter.builder(NAME).description(DESCRIPTION).tag("forwarded", "true").register(registry);
  }

  /** Counts a request about {@code key} for {@code from} copies, coordinated here. */
  void count(Key key, int from) {
    (membership.owners().replicates(self, key, from) ? local : forwarded).increment();
  }
}
