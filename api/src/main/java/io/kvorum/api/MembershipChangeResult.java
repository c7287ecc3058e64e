package io.kvorum.api;

import java.util.Map;

/**
 * What a node answered to {@link KvorumAdmin#decommission} or {@link KvorumAdmin#remove}: the
 * change started ({@code 202}), or, for the removal of a node that died while joining, its join
 * aborted ({@code 200}: the cluster keeps the members it had, nothing more to follow).
 *
 * @param aborted whether a join was aborted rather than a change started
 * @param node the id of the node that answered, or null if it did not say
 * @param change the change started or aborted, or null if the node did not say
 */
public record MembershipChangeResult(boolean aborted, String node, MembershipChange change) {
  static MembershipChangeResult of(Map<String, Object> json) {
    return new MembershipChangeResult(
        "aborted".equals(Json.string(json, "status")),
        Json.string(json, "node"),
        MembershipChange.of(Json.member(json, "change")));
  }
}
