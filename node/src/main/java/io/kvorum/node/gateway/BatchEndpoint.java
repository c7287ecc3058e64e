package io.kvorum.node.gateway;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.coordinator.BatchItem;
import io.kvorum.node.coordinator.BatchResult;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code POST /v0/batch} (SPEC §2): up to {@value KvorumApi#BATCH_MAX_ITEMS} gets, puts and deletes
 * in one JSON body, run at the request's {@code ack}/{@code from} by {@link Coordinator#batch},
 * each answered with the status, ETag and value it alone would have had, in the items' order. The
 * body is checked whole before any item runs: a malformed item, a conditional one or a key given
 * twice is a {@code 400} naming the item, and nothing runs.
 */
final class BatchEndpoint {
  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final Set<String> MEMBERS = Set.of("op", "id", "value", "ttl");

  private final Coordinator coordinator;
  private final RequestParameters parameters;

  BatchEndpoint(Coordinator coordinator, RequestParameters parameters) {
    this.coordinator = coordinator;
    this.parameters = parameters;
  }

  /** A parsed batch: its items and the ids as the client gave them. */
  private record Parsed(List<BatchItem> items, List<String> ids) {
    boolean writes() {
      return items.stream().anyMatch(item -> !(item instanceof BatchItem.Get));
    }
  }

  /**
   * Answers the batch {@code request} carries, run at {@code quorum}: the 200 that lists every
   * item's result; 413 over the limits, or {@code writeRefusal}'s answer when the batch writes and
   * the request's token may not (null when it may). Throws {@link InvalidRequestException} for a
   * malformed batch, before any item runs.
   */
  CompletableFuture<FullHttpResponse> handle(
      FullHttpRequest request, Quorum quorum, Supplier<FullHttpResponse> writeRefusal) {
    for (String header : List.of(KvorumApi.IF_MATCH, KvorumApi.IF_NONE_MATCH)) {
      if (request.headers().contains(header)) {
        throw new InvalidRequestException(
            header, "a batch takes no " + header + ": its items are unconditional");
      }
    }
    int bytes = request.content().readableBytes();
    if (bytes > KvorumApi.BATCH_MAX_BYTES) {
      return tooLarge("the batch is " + bytes + " bytes; at most " + KvorumApi.BATCH_MAX_BYTES);
    }
    JsonNode items = body(request).get("items");
    if (items == null || !items.isArray()) {
      throw new InvalidRequestException("items", "the body must be {\"items\": [ … ]}");
    }
    if (items.size() > KvorumApi.BATCH_MAX_ITEMS) {
      return tooLarge(
          "the batch has "
              + items.size()
              + " items; at most "
              + KvorumApi.BATCH_MAX_ITEMS
              + ": split it");
    }
    Parsed batch = parse(items);
    FullHttpResponse refused = batch.writes() ? writeRefusal.get() : null;
    if (refused != null) {
      return CompletableFuture.completedFuture(refused);
    }
    return coordinator.batch(batch.items(), quorum).thenApply(results -> answer(batch, results));
  }

  private Parsed parse(JsonNode items) {
    List<BatchItem> parsed = new ArrayList<>(items.size());
    List<String> ids = new ArrayList<>(items.size());
    Map<Key, Integer> seen = new HashMap<>();
    for (int i = 0; i < items.size(); i++) {
      String where = "items[" + i + "]";
      BatchItem item = item(items.get(i), where);
      String id = items.get(i).get("id").asText();
      Integer first = seen.putIfAbsent(item.key(), i);
      if (first != null) {
        throw new InvalidRequestException(
            where + ".id",
            where
                + " has the key '"
                + id
                + "' of items["
                + first
                + "]: a key at most once a batch");
      }
      parsed.add(item);
      ids.add(id);
    }
    return new Parsed(parsed, ids);
  }

  private static JsonNode body(FullHttpRequest request) {
    try (JsonParser parser =
        JSON.createParser((InputStream) new ByteBufInputStream(request.content()))) {
      JsonNode body = JSON.readTree(parser);
      if (body == null || !body.isObject()) {
        throw new InvalidRequestException("items", "the body must be a JSON object");
      }
      if (parser.nextToken() != null) {
        throw new InvalidRequestException("items", "text after the JSON object");
      }
      return body;
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException(
          "items", "the body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // read from memory
    }
  }

  private BatchItem item(JsonNode item, String where) {
    if (!item.isObject()) {
      throw new InvalidRequestException(where, where + " must be a JSON object");
    }
    for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.startsWith("if") || lower.equals("etag") || lower.equals("condition")) {
        throw new InvalidRequestException(
            where + "." + name,
            where
                + " is conditional ("
                + name
                + "): a batch takes unconditional items only; send a conditional write alone to "
                + KvorumApi.PATH_ENTITY
                + " with If-Match or If-None-Match");
      }
      if (!MEMBERS.contains(name)) {
        throw new InvalidRequestException(
            where + "." + name, where + " has an unknown member '" + name + "'");
      }
    }
    String op = text(item, "op", where);
    Key key =
        parameters.checkedKey(
            text(item, "id", where).getBytes(StandardCharsets.UTF_8), where + ".id");
    return switch (op) {
      case "get" -> {
        refuse(item, where, op, "value", "ttl");
        yield new BatchItem.Get(key);
      }
      case "delete" -> {
        refuse(item, where, op, "value", "ttl");
        yield new BatchItem.Delete(key);
      }
      case "put" -> new BatchItem.Put(key, value(item, where), ttl(item, where));
      default ->
          throw new InvalidRequestException(
              where + ".op", where + ".op must be get, put or delete, got '" + op + "'");
    };
  }

  private static String text(JsonNode item, String member, String where) {
    JsonNode value = item.get(member);
    if (value == null || !value.isTextual()) {
      throw new InvalidRequestException(
          where + "." + member, where + "." + member + " is required, a string");
    }
    return value.asText();
  }

  private static void refuse(JsonNode item, String where, String op, String... members) {
    for (String member : members) {
      if (item.has(member)) {
        throw new InvalidRequestException(
            where + "." + member, where + " is a " + op + ": it takes no " + member);
      }
    }
  }

  private static byte[] value(JsonNode item, String where) {
    String text = text(item, "value", where);
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          where + ".value", where + ".value is not base64: " + e.getMessage());
    }
  }

  private static Duration ttl(JsonNode item, String where) {
    JsonNode ttl = item.get("ttl");
    if (ttl == null) {
      return Duration.ZERO;
    }
    // A number is whole seconds: 60 and 60.0 are the same JSON Schema integer.
    boolean whole = ttl.isNumber() && ttl.decimalValue().stripTrailingZeros().scale() <= 0;
    if (!ttl.isTextual() && !whole) {
      throw new InvalidRequestException(
          where + ".ttl", where + ".ttl must be a duration like \"30s\" or a number of seconds");
    }
    String text = whole ? ttl.decimalValue().toBigInteger().toString() : ttl.asText();
    return RequestParameters.ttl(text, where + ".ttl");
  }

  private static FullHttpResponse answer(Parsed batch, List<BatchResult> results) {
    List<Map<String, Object>> lines = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      BatchItem item = batch.items().get(i);
      BatchResult result = results.get(i);
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("id", batch.ids().get(i));
      if (result.failed()) {
        Problem problem = HttpErrorMapper.problem(result.failure());
        line.put("status", problem.status().code());
        line.put("problem", problem.body());
      } else if (result.record().isEmpty()) {
        line.put("status", HttpResponseStatus.NOT_FOUND.code());
      } else {
        Record record = result.record().get();
        line.put("status", status(item));
        line.put("etag", EntityTags.format(record.version()));
        if (item instanceof BatchItem.Get) {
          line.put("value", Base64.getEncoder().encodeToString(record.value()));
        }
      }
      lines.add(line);
    }
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(Map.of("results", lines));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render a batch's results", e);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(json));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, KvorumApi.JSON);
    return response;
  }

  private static int status(BatchItem item) {
    return switch (item) {
      case BatchItem.Get get -> HttpResponseStatus.OK.code();
      case BatchItem.Put put -> HttpResponseStatus.CREATED.code();
      case BatchItem.Delete delete -> HttpResponseStatus.ACCEPTED.code();
    };
  }

  private static CompletableFuture<FullHttpResponse> tooLarge(String detail) {
    return CompletableFuture.completedFuture(
        Problem.of(
                ProblemType.REQUEST_TOO_LARGE, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, detail)
            .toResponse());
  }
}
