package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.MemberState;
import io.kvorum.node.cluster.StreamFigures;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.coordinator.NodeView;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.UnavailableException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * What each route does. Runs on the event loop; anything that may wait goes through futures, whose
 * results are answered on the connection's loop: at once when they complete on it, else as a task
 * queued to it (or always as a task, without inline replies).
 */
final class Endpoints {
  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final Coordinator coordinator;
  private final RequestParameters parameters;
  private final NodeStatus status;
  private final PrometheusMeterRegistry registry;
  private final BooleanSupplier draining;
  private final HttpMetrics metrics;
  private final boolean inlineReplies;
  private final AccessControl access;

  Endpoints(
      Coordinator coordinator,
      RequestParameters parameters,
      NodeStatus status,
      PrometheusMeterRegistry registry,
      BooleanSupplier draining,
      HttpMetrics metrics,
      boolean inlineReplies,
      AccessControl access) {
    this.coordinator = coordinator;
    this.parameters = parameters;
    this.status = status;
    this.registry = registry;
    this.draining = draining;
    this.metrics = metrics;
    this.inlineReplies = inlineReplies;
    this.access = access;
  }

  /** Serves {@code request}; must copy what it needs, the caller releases the request after. */
  void handle(Route route, FullHttpRequest request, Exchange exchange) {
    if (access != null) {
      FullHttpResponse refused = access.refusal(request, Route.path(request.uri()));
      if (refused != null) {
        exchange.respond(refused);
        return;
      }
    }
    if (route == Route.UNKNOWN) {
      exchange.respond(HttpErrorMapper.unknownEndpoint(Route.path(request.uri())));
      return;
    }
    if (!route.allows(request.method())) {
      exchange.respond(HttpErrorMapper.methodNotAllowed(request.method(), route.allowHeader()));
      return;
    }
    switch (route) {
      case ENTITY -> entity(request, exchange);
      case ENTITIES -> range(request, exchange);
      case STATUS, READY -> exchange.respond(readiness());
      case CLUSTER -> exchange.respond(cluster());
      case REPAIR -> exchange.respond(repair());
      case LIVE -> exchange.respond(json(HttpResponseStatus.OK, Map.of("status", "live")));
      case METRICS -> exchange.respond(metrics());
      case DECOMMISSION -> exchange.respond(decommission());
      case REMOVE -> exchange.respond(remove(request));
      case UNKNOWN -> throw new IllegalStateException("handled above");
    }
  }

  private void entity(FullHttpRequest request, Exchange exchange) {
    refuseUnlessServing();
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    Key key = parameters.key(query, KvorumApi.PARAM_ID);
    Quorum quorum = parameters.quorum(query, coordinator.defaultFrom(), coordinator.clusterSize());
    HttpMethod method = request.method();
    if (method.equals(HttpMethod.GET)) {
      reply(
          exchange,
          coordinator.get(key, quorum),
          value ->
              value.map(Endpoints::octets).orElseGet(() -> empty(HttpResponseStatus.NOT_FOUND)));
    } else if (method.equals(HttpMethod.PUT)) {
      Duration ttl = parameters.ttl(query);
      byte[] value = ByteBufUtil.getBytes(request.content());
      reply(
          exchange,
          coordinator.put(key, value, ttl, quorum),
          done -> empty(HttpResponseStatus.CREATED));
    } else {
      reply(exchange, coordinator.delete(key, quorum), done -> empty(HttpResponseStatus.ACCEPTED));
    }
  }

  private void range(FullHttpRequest request, Exchange exchange) {
    refuseUnlessServing();
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    Key start = parameters.key(query, KvorumApi.PARAM_START);
    KeyRange range = new KeyRange(start, parameters.optionalKey(query, KvorumApi.PARAM_END));
    new RangeStreamer(exchange, coordinator.range(range)).start();
  }

  /**
   * Client requests are served once the node is ready: after a start it first takes the hints its
   * peers held for it, so that it does not answer from replicas that miss recent writes.
   */
  private void refuseUnlessServing() {
    if (draining.getAsBoolean()) {
      throw new UnavailableException("the node is shutting down");
    }
    if (!status.ready().getAsBoolean()) {
      throw new UnavailableException("the node is starting: catching up with its peers");
    }
  }

  private FullHttpResponse cluster() {
    List<Map<String, Object>> nodes = new ArrayList<>();
    ClusterState state = coordinator.clusterState();
    Map<NodeId, StreamFigures> streaming = coordinator.streaming();
    for (NodeView node : coordinator.clusterView()) {
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("id", node.id());
      view.put("address", node.address());
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
    body.put("epoch", state.epoch());
    state.change().ifPresent(change -> body.put("change", MembershipView.change(change)));
    Optional<String> writesRefused = coordinator.writeRefusal();
    body.put("ready", status.ready().getAsBoolean() && writesRefused.isEmpty());
    writesRefused.ifPresent(reason -> body.put("writesRefused", reason));
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

  /** Starts this node's decommission; it streams its records away, leaves, and exits. */
  private FullHttpResponse decommission() {
    ClusterState.Change change = coordinator.decommission();
    return json(HttpResponseStatus.ACCEPTED, MembershipView.started(change, status.nodeId()));
  }

  /** Starts the removal of a dead member, or aborts the join of a dead joining node. */
  private FullHttpResponse remove(FullHttpRequest request) {
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    String node =
        query
            .text(KvorumApi.PARAM_NODE)
            .filter(text -> !text.isBlank())
            .orElseThrow(
                () ->
                    new InvalidRequestException(
                        KvorumApi.PARAM_NODE, "parameter 'node' (the id to remove) is required"));
    NodeId id;
    try {
      id = NodeId.of(node);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(KvorumApi.PARAM_NODE, e.getMessage());
    }
    ClusterState.Change change = coordinator.remove(id);
    if (change.kind() == ClusterState.Kind.JOIN) {
      // The node was joining: its join is aborted, done once answered.
      return json(HttpResponseStatus.OK, MembershipView.aborted(change, status.nodeId()));
    }
    return json(HttpResponseStatus.ACCEPTED, MembershipView.started(change, status.nodeId()));
  }

  /** Starts a full anti-entropy round; the answer does not wait for it. */
  private FullHttpResponse repair() {
    coordinator.repairNow();
    return json(HttpResponseStatus.ACCEPTED, Map.of("status", "started", "node", status.nodeId()));
  }

  /**
   * Ready: caught up, not draining, and able to coordinate writes. A node whose clock is too far
   * from its peers' reports not ready (so that a load balancer sends clients elsewhere) though it
   * still serves reads to the clients that reach it.
   */
  private FullHttpResponse readiness() {
    Optional<String> writesRefused = coordinator.writeRefusal();
    if (status.ready().getAsBoolean() && !draining.getAsBoolean() && writesRefused.isEmpty()) {
      return json(HttpResponseStatus.OK, Map.of("status", "ready", "node", status.nodeId()));
    }
    String detail =
        draining.getAsBoolean()
            ? "the node is shutting down"
            : status.ready().getAsBoolean() ? writesRefused.orElseThrow() : "the node is starting";
    return Problem.of(HttpResponseStatus.SERVICE_UNAVAILABLE, detail)
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

  private <T> void reply(
      Exchange exchange, CompletableFuture<T> result, Function<T, FullHttpResponse> success) {
    EventExecutor loop = exchange.context().executor();
    result.whenComplete(
        (value, error) -> {
          Runnable respond =
              () ->
                  exchange.respond(
                      error == null ? success.apply(value) : HttpErrorMapper.toResponse(error));
          if (inlineReplies && loop.inEventLoop()) {
            respond.run();
          } else {
            metrics.handedOff();
            loop.execute(respond);
          }
        });
  }

  private static FullHttpResponse octets(byte[] value) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(value));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, KvorumApi.OCTET_STREAM);
    return response;
  }

  private static FullHttpResponse empty(HttpResponseStatus status) {
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
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
