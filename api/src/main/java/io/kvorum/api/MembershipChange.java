package io.kvorum.api;

import java.time.Instant;
import java.util.Map;

/**
 * A membership change (SPEC §8) as a node describes it: the one its cluster view shows in progress,
 * or the one a decommission or removal just started.
 *
 * @param kind {@code join}, {@code decommission}, {@code remove} or {@code move}
 * @param node the id of the node joining, leaving, being removed or moving
 * @param zone for a move, the zone the node moves to ({@code ""}: the unnamed zone); else null
 * @param epoch the membership epoch that started it
 * @param started when it started, or null if the node did not say
 */
public record MembershipChange(String kind, String node, String zone, long epoch, Instant started) {
  /** The change {@code json} describes, or null if it is no object. */
  static MembershipChange of(Map<String, Object> json) {
    if (json == null) {
      return null;
    }
    return new MembershipChange(
        Json.string(json, "kind"),
        Json.string(json, "node"),
        Json.string(json, "zone"),
        Json.number(json, "epoch"),
        Json.instant(json, "started"));
  }
}
