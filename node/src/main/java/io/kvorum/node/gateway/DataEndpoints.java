package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.RecordBatch;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The data endpoints: {@code /v0/entity}, {@code /v0/entities}, {@code /v0/batch} and {@code
 * /v0/changes}, served by the {@link Coordinator} once the node is ready. Runs on the event loop;
 * the coordinator's futures are answered on the connection's loop: at once when they complete on
 * it, else as a task queued to it (or always as a task, without inline replies).
 */
final class DataEndpoints {
  private final Coordinator coordinator;
  private final ChangeFeeds feeds;
  private final ChangeEndpoints changes;
  private final RequestParameters parameters;
  private final NodeStatus status;
  private final BooleanSupplier draining;
  private final HttpMetrics metrics;
  private final boolean inlineReplies;
  private final BatchEndpoint batches;

  DataEndpoints(
      Coordinator coordinator,
      ChangeFeeds feeds,
      RequestParameters parameters,
      NodeStatus status,
      BooleanSupplier draining,
      HttpMetrics metrics,
      boolean inlineReplies) {
    this.coordinator = coordinator;
    this.feeds = feeds;
    this.changes = new ChangeEndpoints(feeds, parameters);
    this.parameters = parameters;
    this.status = status;
    this.draining = draining;
    this.metrics = metrics;
    this.inlineReplies = inlineReplies;
    this.batches = new BatchEndpoint(coordinator, parameters);
  }

  /**
   * Serves a data route; must copy what it needs, the caller releases the request after.
   *
   * @param writeRefusal the answer to a request that writes when its token may not (a batch asks
   *     once it knows whether it writes), or null when it may
   */
  void handle(
      Route route,
      FullHttpRequest request,
      Exchange exchange,
      Supplier<FullHttpResponse> writeRefusal) {
    switch (route) {
      case ENTITY -> entity(request, exchange);
      case ENTITIES -> range(request, exchange);
      case BATCH -> batch(request, exchange, writeRefusal);
      case LOAD -> load(request, exchange);
      case CHANGES -> {
        refuseUnlessServing();
        changes.handle(request, exchange);
      }
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
          parameters.linearizable(query)
              ? coordinator.getLinearizable(key, quorum)
              : coordinator.get(key, quorum),
          record ->
              record
                  .map(r -> EntityTags.tagged(octets(r.value()), r.version()))
                  .orElseGet(() -> empty(HttpResponseStatus.NOT_FOUND)));
    } else if (method.equals(HttpMethod.PUT)) {
      Optional<Condition> condition = condition(request, true);
      Duration ttl = parameters.ttl(query);
      byte[] value = ByteBufUtil.getBytes(request.content());
      reply(
          exchange,
          condition.isPresent()
              ? coordinator.putIf(key, condition.get(), value, ttl, quorum)
              : coordinator.put(key, value, ttl, quorum),
          version -> EntityTags.tagged(empty(HttpResponseStatus.CREATED), version));
    } else {
      Optional<Condition> condition = condition(request, false);
      reply(
          exchange,
          condition.isPresent()
              ? coordinator.deleteIf(key, condition.get(), quorum)
              : coordinator.delete(key, quorum),
          version -> EntityTags.tagged(empty(HttpResponseStatus.ACCEPTED), version));
    }
  }

  private void range(FullHttpRequest request, Exchange exchange) {
    refuseUnlessServing();
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    Key start = parameters.key(query, KvorumApi.PARAM_START);
    KeyRange range = new KeyRange(start, parameters.optionalKey(query, KvorumApi.PARAM_END));
    OptionalInt limit = parameters.limit(query);
    // Taken before the scan opens: a feed from it misses nothing written after the read began.
    Optional<String> cursor = feeds.now();
    new RangeStreamer(exchange, coordinator.range(range, limit), RangeFormat.of(request), cursor)
        .start();
  }

  /** A client's batch of gets, puts and deletes ({@link BatchEndpoint}). */
  private void batch(
      FullHttpRequest request, Exchange exchange, Supplier<FullHttpResponse> writeRefusal) {
    refuseUnlessServing();
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    Quorum quorum = parameters.quorum(query, coordinator.defaultFrom(), coordinator.clusterSize());
    reply(exchange, batches.handle(request, quorum, writeRefusal), response -> response);
  }

  /**
   * A batch of records from {@code kvorum-node load}, each written with its own version to a quorum
   * of its replicas ({@link Coordinator#load}), all at once. {@code 200} once every one is; else
   * the first failure's answer, and the loader sends the whole batch again (idempotent).
   */
  private void load(FullHttpRequest request, Exchange exchange) {
    refuseUnlessServing();
    List<Entry> entries =
        RecordBatch.decode(ByteBufUtil.getBytes(request.content()), parameters.maxKeyBytes());
    CompletableFuture<?>[] writes = new CompletableFuture<?>[entries.size()];
    for (int i = 0; i < writes.length; i++) {
      writes[i] = coordinator.load(entries.get(i).key(), entries.get(i).record());
    }
    reply(
        exchange,
        CompletableFuture.allOf(writes),
        done -> AdminEndpoints.json(HttpResponseStatus.OK, Map.of("records", entries.size())));
  }

  /**
   * The precondition of a PUT or DELETE (SPEC §10): {@code If-Match: "<etag>"} (one strong tag) on
   * either, {@code If-None-Match: *} on a PUT; empty without one. Anything else that names a
   * condition is refused (400) rather than ignored: a write that ignored a condition would
   * overwrite what its client meant to protect.
   */
  private static Optional<Condition> condition(FullHttpRequest request, boolean put) {
    String match = request.headers().get(KvorumApi.IF_MATCH);
    String noneMatch = request.headers().get(KvorumApi.IF_NONE_MATCH);
    if (match != null && noneMatch != null) {
      throw new InvalidRequestException(
          KvorumApi.IF_NONE_MATCH, "If-Match and If-None-Match cannot be combined");
    }
    if (match != null) {
      if (match.strip().equals("*") || match.contains(",")) {
        throw new InvalidRequestException(
            KvorumApi.IF_MATCH, "If-Match takes exactly one entity tag: " + match);
      }
      return Optional.of(new Condition.IfMatch(EntityTags.parse(match)));
    }
    if (noneMatch != null) {
      if (!put || !noneMatch.strip().equals("*")) {
        throw new InvalidRequestException(
            KvorumApi.IF_NONE_MATCH,
            "only If-None-Match: * on a PUT is supported (create if absent): " + noneMatch);
      }
      return Optional.of(new Condition.IfAbsent());
    }
    return Optional.empty();
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
