package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.api.placement.RendezvousRanking;
import io.kvorum.node.coordinator.ClusterAdmin;
import io.kvorum.node.coordinator.NodeView;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Release;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.StreamFigures;
import io.kvorum.node.topology.Zone;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The endpoints of operators and orchestrators: readiness and liveness, metrics, {@code
 * /v0/cluster}, repair, decommission and removal, served by {@link ClusterAdmin}. Each answers at
 * once on the event loop.
 */
final class AdminEndpoints {
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final ClusterAdmin admin;
  private final NodeStatus status;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier draining;
  private final IntSupplier defaultFrom;

  /**
   * @param defaultFrom the {@code from} of a request that does not say, as this node has it now
   */
  AdminEndpoints(
      ClusterAdmin admin,
      NodeStatus status,
      PrometheusMeterRegistry registry,
      BooleanSupplier draining,
      IntSupplier defaultFrom) {
    this.admin = admin;
    this.status = status;
    this.registry = registry;
    this.draining = draining;
    this.defaultFrom = defaultFrom;
  }

  /** The answer to an admin route. */
  FullHttpResponse handle(Route route, FullHttpRequest request) {
    return switch (route) {
      case STATUS, READY -> readiness();
      case CLUSTER -> cluster();
      case REPAIR -> repair();
      case LIVE -> json(HttpResponseStatus.OK, Map.of("status", "live"));
      case METRICS -> metrics();
      default -> throw new IllegalArgumentException("not an admin route: " + route);
    };
  }

  private FullHttpResponse cluster() {
    List<Map<String, Object>> nodes = new ArrayList<>();
    ClusterState state = admin.clusterState();
    Map<NodeId, StreamFigures> streaming = admin.streaming();
    for (NodeView node : admin.clusterView()) {
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("id", node.id());
      view.put("address", node.address());
      state.httpAddress(NodeId.of(node.id())).ifPresent(http -> view.put("httpAddress", http));
      state
          .node(NodeId.of(node.id()))
          .map(n -> n.member().zone())
          .filter(Zone::named)
          .ifPresent(zone -> view.put("zone", zone.name()));
      view.put("self", node.self());
      MemberState member = state.state(NodeId.of(node.id())).orElse(MemberState.NORMAL);
      view.put("state", member != MemberState.NORMAL ? member.label() : node.up() ? "up" : "down");
      StreamFigures figures = streaming.get(NodeId.of(node.id()));
      if (figures != null) {
        view.put("streaming", streaming(figures));
      }
      view.put("detail", node.detail());
      view.put("hintsPending", node.hintsPending());
      node.clockOffsetMillis().ifPresent(offset -> view.put("clockOffsetMillis", offset));
      node.clockUncertaintyMillis().ifPresent(u -> view.put("clockUncertaintyMillis", u));
      if (node.repair() != null) {
        view.put("repair", repair(node.repair()));
      }
      if (node.storage() != null) {
        view.put("records", node.storage().records());
        view.put("diskUsedBytes", node.storage().diskBytes());
      }
      nodes.add(view);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("node", status.nodeId());
    body.put("version", Release.version());
    body.put("epoch", state.epoch());
    state.change().ifPresent(change -> body.put("change", change.describe()));
    Optional<String> writesRefused = admin.writeRefusal();
    body.put("ready", status.ready().getAsBoolean() && writesRefused.isEmpty());
    writesRefused.ifPresent(reason -> body.put("writesRefused", reason));
    // What a placement-aware client needs to compute a key's replicas as the nodes do.
    Map<String, Object> placement = new LinkedHashMap<>();
    placement.put("algorithm", RendezvousRanking.ALGORITHM);
    placement.put("defaultFrom", defaultFrom.getAsInt());
    body.put("placement", placement);
    body.put("nodes", nodes);
    return json(HttpResponseStatus.OK, body);
  }

  private static Map<String, Object> repair(NodeView.Repair repair) {
    Map<String, Object> view = new LinkedHashMap<>();
    if (repair.lastRoundFinishedMillis() > 0) {
      view.put(
          "lastRoundFinished", Instant.ofEpochMilli(repair.lastRoundFinishedMillis()).toString());
    }
    view.put("recordsRepaired", repair.recordsRepaired());
    view.put("recordsRepairedTotal", repair.recordsRepairedTotal());
    if (repair.lastError() != null) {
      view.put("lastError", repair.lastError());
    }
    return view;
  }

  private static Map<String, Object> streaming(StreamFigures figures) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("recordsSent", figures.recordsSent());
    view.put("bytesSent", figures.bytesSent());
    view.put("recordsReceived", figures.recordsReceived());
    view.put("bytesReceived", figures.bytesReceived());
    view.put("done", figures.done());
    return view;
  }

  /**
   * A membership change asked for: this node's decommission (it streams its records away, leaves,
   * and exits), or the removal of a dead member (or the abort of a dead joiner's join). Answered
   * once the change is stored (an fsync on the membership's thread), never waited for here.
   */
  void changeMembership(Route route, FullHttpRequest request, Exchange exchange) {
    CompletableFuture<FullHttpResponse> answer;
    try {
      answer =
          route == Route.DECOMMISSION
              ? admin.decommission().thenApply(this::started)
              : admin.remove(removed(request)).thenApply(this::removal);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    exchange.respondWhenDone(answer, response -> response);
  }

  private FullHttpResponse started(ClusterState.Change change) {
    return json(HttpResponseStatus.ACCEPTED, MembershipView.started(change, status.nodeId()));
  }

  /** The node a removal names. */
  private static NodeId removed(FullHttpRequest request) {
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    String node =
        query
            .text(KvorumApi.PARAM_NODE)
            .filter(text -> !text.isBlank())
            .orElseThrow(
                () ->
                    new InvalidRequestException(
                        KvorumApi.PARAM_NODE, "parameter 'node' (the id to remove) is required"));
    try {
      return NodeId.of(node);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(KvorumApi.PARAM_NODE, e.getMessage());
    }
  }

  private FullHttpResponse removal(ClusterState.Change change) {
    if (change.kind() == ClusterState.Kind.JOIN) {
      // The node was joining: its join is aborted, done once answered.
      return json(HttpResponseStatus.OK, MembershipView.aborted(change, status.nodeId()));
    }
    return json(HttpResponseStatus.ACCEPTED, MembershipView.started(change, status.nodeId()));
  }

  /** Starts a full anti-entropy round; the answer does not wait for it. */
  private FullHttpResponse repair() {
    admin.repairNow();
    return json(HttpResponseStatus.ACCEPTED, Map.of("status", "started", "node", status.nodeId()));
  }

  /**
   * Ready: caught up, not draining, and able to coordinate writes. A node whose clock is too far
   * from its peers' reports not ready (so that a load balancer sends clients elsewhere) though it
   * still serves reads to the clients that reach it.
   */
  private FullHttpResponse readiness() {
    Optional<String> writesRefused = admin.writeRefusal();
    if (status.ready().getAsBoolean() && !draining.getAsBoolean() && writesRefused.isEmpty()) {
      return json(HttpResponseStatus.OK, Map.of("status", "ready", "node", status.nodeId()));
    }
    String detail =
        draining.getAsBoolean()
            ? "the node is shutting down"
            : status.ready().getAsBoolean() ? writesRefused.orElseThrow() : "the node is starting";
    return Problem.of(ProblemType.NOT_READY, HttpResponseStatus.SERVICE_UNAVAILABLE, detail)
        .with("node", status.nodeId())
        .toResponse();
  }

  private FullHttpResponse metrics() {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.OK,
            Unpooled.wrappedBuffer(registry.scrape().getBytes(StandardCharsets.UTF_8)));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, PROMETHEUS_TEXT);
    return response;
  }

  static FullHttpResponse json(HttpResponseStatus status, Object body) {
    byte[] bytes;
    try {
      bytes = Problem.JSON.writeValueAsBytes(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON", e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, KvorumApi.JSON);
    return response;
  }
}
