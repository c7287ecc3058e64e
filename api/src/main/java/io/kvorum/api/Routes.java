package io.kvorum.api;

import io.kvorum.api.placement.RendezvousRanking;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where a placement-aware client sends a key's request: the members that own data, as one node's
 * {@code /v0/cluster} lists them, ranked for each key by the nodes' own placement code ({@link
 * RendezvousRanking}), each with the URI of its HTTP API. A request goes to the first of its key's
 * replicas that is up and in the client's zone, else to the first that is up in any zone; with
 * none, nowhere in particular ({@code null}). Immutable.
 *
 * <p>Owners are the members not joining (a joining node holds nothing until the change completes);
 * during a change the routes stay those before it: only a hint, as any node coordinates any key.
 */
final class Routes {
  private final RendezvousRanking ranking;
  // Indexed as the ranking numbers the nodes: the URI (null: unknown), up, in the client's zone.
  private final URI[] uris;
  private final boolean[] up;
  private final boolean[] local;
  private final int defaultFrom;

  private Routes(
      RendezvousRanking ranking, URI[] uris, boolean[] up, boolean[] local, int defaultFrom) {
    this.ranking = ranking;
    this.uris = uris;
    this.up = up;
    this.local = local;
    this.defaultFrom = defaultFrom;
  }

  /**
   * The routes of a cluster view, or null when the node does not state a placement this client
   * computes ({@code placement.algorithm}: an older node, or another algorithm) or lists no owner.
   *
   * @param answeredBy the node that answered, whose scheme every member is reached by
   * @param known the URI of each node id that answered this client, for members that do not
   *     advertise their HTTP address
   * @param zone the client's zone, or null to prefer none
   */
  static Routes of(
      Map<String, Object> cluster, URI answeredBy, Map<String, URI> known, String zone) {
    Map<String, Object> placement = Json.member(cluster, "placement");
    List<Map<String, Object>> nodes = Json.objects(cluster, "nodes");
    if (placement == null
        || !RendezvousRanking.ALGORITHM.equals(Json.string(placement, "algorithm"))
        || nodes == null) {
      return null;
    }
    Map<String, Map<String, Object>> owners = new LinkedHashMap<>();
    Map<String, String> zones = new LinkedHashMap<>();
    for (Map<String, Object> node : nodes) {
      String id = Json.string(node, "id");
      if (id != null && !id.isEmpty() && !"joining".equals(Json.string(node, "state"))) {
        owners.put(id, node);
        String named = Json.string(node, "zone");
        zones.put(id, named == null ? "" : named);
      }
    }
    if (owners.isEmpty()) {
      return null;
    }
    RendezvousRanking ranking = new RendezvousRanking(zones);
    int size = ranking.size();
    URI[] uris = new URI[size];
    boolean[] up = new boolean[size];
    boolean[] local = new boolean[size];
    for (int i = 0; i < size; i++) {
      String id = ranking.node(i);
      Map<String, Object> node = owners.get(id);
      uris[i] = uri(answeredBy, id, node, known);
      up[i] = !"down".equals(Json.string(node, "state"));
      local[i] = zone != null && zone.equals(zones.get(id));
    }
    long from = Json.number(placement, "defaultFrom");
    return new Routes(ranking, uris, up, local, (int) Math.clamp(from, 1, size));
  }

  /**
   * Where {@code member} answers HTTP: the address it advertises ({@code httpAddress}), else the
   * URI that answered this client as that id, else its inter-node host at the port of the node that
   * listed it (as the Helm chart runs them) unless another id answered there; null when none fits.
   */
  private static URI uri(
      URI answeredBy, String id, Map<String, Object> member, Map<String, URI> known) {
    URI advertised = Endpoints.advertised(answeredBy, member);
    if (advertised != null) {
      return advertised;
    }
    URI answered = known.get(id);
    if (answered != null) {
      return answered;
    }
    URI derived = Endpoints.derived(answeredBy, member);
    if (derived == null) {
      return null;
    }
    return known.containsValue(derived) ? null : derived;
  }

  /**
   * The node to send a request for {@code key} to, or null for any.
   *
   * @param from the request's {@code from}, or null for the cluster's default
   * @param reachable whether this client may send to a node now (not marked down)
   */
  URI route(byte[] key, Integer from, Predicate<URI> reachable) {
    URI anyZone = null;
    for (int node : ranking.replicas(key, replicas(from))) {
      URI uri = uris[node];
      if (uri != null && up[node] && reachable.test(uri)) {
        if (local[node]) {
          return uri;
        }
        if (anyZone == null) {
          anyZone = uri;
        }
      }
    }
    return anyZone;
  }

  /** The ids of {@code key}'s replicas for {@code from} (null: the default), best first. */
  List<String> replicas(byte[] key, Integer from) {
    return ranking.replicaIds(key, replicas(from));
  }

  /** How many replicas a request of {@code from} goes to: as the nodes clamp it. */
  private int replicas(Integer from) {
    return from == null ? defaultFrom : Math.clamp(from, 1, ranking.size());
  }
}
