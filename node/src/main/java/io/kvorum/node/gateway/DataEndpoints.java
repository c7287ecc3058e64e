package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.UnavailableException;
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
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The data endpoints: {@code /v0/entity} and {@code /v0/entities}, served by the {@link
 * Coordinator} once the node is ready. Runs on the event loop; the coordinator's futures are
 * answered on the connection's loop: at once when they complete on it, else as a task queued to it
 * (or always as a task, without inline replies).
 */
final class DataEndpoints {
  private final Coordinator coordinator;
  private final RequestParameters parameters;
  private final NodeStatus status;
  private final BooleanSupplier draining;
  private final HttpMetrics metrics;
  private final boolean inlineReplies;

  DataEndpoints(
      Coordinator coordinator,
      RequestParameters parameters,
      NodeStatus status,
      BooleanSupplier draining,
      HttpMetrics metrics,
      boolean inlineReplies) {
    this.coordinator = coordinator;
    this.parameters = parameters;
    this.status = status;
    this.draining = draining;
    this.metrics = metrics;
    this.inlineReplies = inlineReplies;
  }

  /** Serves a data route; must copy what it needs, the caller releases the request after. */
  void handle(Route route, FullHttpRequest request, Exchange exchange) {
    switch (route) {
      case ENTITY -> entity(request, exchange);
      case ENTITIES -> range(request, exchange);
      default -> throw new IllegalArgumentException("not a data route: " + route);
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
          record ->
              record
                  .map(r -> EntityTags.tagged(octets(r.value()), r.version()))
                  .orElseGet(() -> empty(HttpResponseStatus.NOT_FOUND)));
    } else if (method.equals(HttpMethod.PUT)) {
      refuseConditions(request);
      Duration ttl = parameters.ttl(query);
      byte[] value = ByteBufUtil.getBytes(request.content());
      reply(
          exchange,
          coordinator.put(key, value, ttl, quorum),
          version -> EntityTags.tagged(empty(HttpResponseStatus.CREATED), version));
    } else {
      refuseConditions(request);
      reply(
          exchange,
          coordinator.delete(key, quorum),
          version -> EntityTags.tagged(empty(HttpResponseStatus.ACCEPTED), version));
    }
  }

  private void range(FullHttpRequest request, Exchange exchange) {
    refuseUnlessServing();
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    Key start = parameters.key(query, KvorumApi.PARAM_START);
    KeyRange range = new KeyRange(start, parameters.optionalKey(query, KvorumApi.PARAM_END));
    new RangeStreamer(exchange, coordinator.range(range), RangeFormat.of(request)).start();
  }

  /**
   * A condition this node cannot decide yet is refused rather than ignored: a write that ignored
   * {@code If-Match} would overwrite what its client meant to protect. The Paxos rounds that decide
   * conditions across the key's replicas (issue 26) are not wired to the transport yet.
   */
  private static void refuseConditions(FullHttpRequest request) {
    for (String header : new String[] {KvorumApi.IF_MATCH, KvorumApi.IF_NONE_MATCH}) {
      if (request.headers().contains(header)) {
        throw new InvalidRequestException(
            header, header + " is not supported yet: conditional writes are not available");
      }
    }
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
}
