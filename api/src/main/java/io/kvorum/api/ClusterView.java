package io.kvorum.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster as one node sees it ({@code GET /v0/cluster}, SPEC §8): the document whole, as the
 * node sent it, and typed accessors for its stable core (who answered, the membership epoch,
 * readiness, a change in progress, each member's id, address, state).
 *
 * <p>The document stays a JSON tree because its shape is open-ended: each release adds figures per
 * member (zones, streaming, anti-entropy, clock offsets, records and disk use) and a node of an
 * earlier release leaves them out. A reader takes what it knows from {@link #json()} and {@link
 * Member#json()} and shows the rest as unknown, without waiting for a release of this client.
 *
 * @param json the answer: maps, lists, strings, numbers ({@link Number}), booleans and nulls,
 *     unmodifiable; it has a {@code nodes} array
 */
public record ClusterView(Map<String, Object> json) {
  public ClusterView {
    if (Json.objects(json, "nodes") == null) {
      throw new IllegalArgumentException("a cluster view has a 'nodes' array");
    }
    json = Json.frozen(json);
  }

  /**
   * A member as the node that answered sees it.
   *
   * @param id its node id
   * @param address its inter-node {@code host:port}
   * @param state {@code up}, {@code down}, {@code joining} or {@code leaving}
   * @param self whether it is the node that answered
   * @param json its entry whole ({@code records}, {@code streaming}, {@code repair}, …)
   */
  public record Member(
      String id, String address, String state, boolean self, Map<String, Object> json) {
    /**
     * The {@code host:port} at which its HTTP API is reached, as it advertises it; null from a node
     * of a release before members advertised one.
     */
    public String httpAddress() {
      return Json.string(json, "httpAddress");
    }
  }

  /** The id of the node that answered, or null if it did not say. */
  public String node() {
    return Json.string(json, "node");
  }

  /** The membership epoch the node holds (0 from a node that does not say). */
  public long epoch() {
    return Json.number(json, "epoch");
  }

  /** Whether the node that answered is ready (as {@link KvorumAdmin#status} says). */
  public boolean ready() {
    return Json.bool(json, "ready");
  }

  /** The membership change in progress, if any. */
  public Optional<MembershipChange> change() {
    return Optional.ofNullable(MembershipChange.of(Json.member(json, "change")));
  }

  /** Every member, in the node's order. */
  public List<Member> members() {
    return Json.objects(json, "nodes").stream()
        .map(
            m ->
                new Member(
                    Json.string(m, "id"),
                    Json.string(m, "address"),
                    Json.string(m, "state"),
                    Json.bool(m, "self"),
                    m))
        .toList();
  }
}
