package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.changes.ChangeFeeds;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.netty.handler.codec.http.FullHttpRequest;
import java.util.Arrays;
import java.util.Optional;

/**
 * {@code GET /v0/changes} (SPEC §12): a change feed of one key ({@code id}) or a range ({@code
 * start}, {@code end}), after the cursor {@code since} or {@code Last-Event-ID} names, else from
 * now. Runs on the event loop.
 */
final class ChangeEndpoints {
  private final ChangeFeeds feeds;
  private final RequestParameters parameters;

  ChangeEndpoints(ChangeFeeds feeds, RequestParameters parameters) {
    this.feeds = feeds;
    this.parameters = parameters;
  }

  /** Serves a feed request; the caller checked the node serves and releases the request after. */
  void handle(FullHttpRequest request, Exchange exchange) {
    QueryParameters query = QueryParameters.parse(Route.query(request.uri()));
    KeyRange range = range(query);
    Optional<String> since = query.text(KvorumApi.PARAM_SINCE);
    if (since.isEmpty()) {
      since = Optional.ofNullable(request.headers().get(KvorumApi.LAST_EVENT_ID));
    }
    new ChangeStreamer(exchange, ChangeFormat.of(request)).start(feeds, range, since);
  }

  private KeyRange range(QueryParameters query) {
    boolean one = query.has(KvorumApi.PARAM_ID);
    if (one == query.has(KvorumApi.PARAM_START)) {
      throw new InvalidRequestException(
          KvorumApi.PARAM_START, "a feed follows either one key (id) or a range (start, end)");
    }
    if (one) {
      if (query.has(KvorumApi.PARAM_END)) {
        throw new InvalidRequestException(KvorumApi.PARAM_END, "end goes with start, not id");
      }
      Key key = parameters.key(query, KvorumApi.PARAM_ID);
      // The range of one key: from it to its successor, the key followed by a zero byte.
      return KeyRange.between(key, Key.of(Arrays.copyOf(key.bytes(), key.size() + 1)));
    }
    Key start = parameters.key(query, KvorumApi.PARAM_START);
    return new KeyRange(start, parameters.optionalKey(query, KvorumApi.PARAM_END));
  }
}
