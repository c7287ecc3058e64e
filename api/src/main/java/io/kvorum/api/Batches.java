package io.kvorum.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A batch on the wire ({@code POST /v0/batch}): the items split into requests within the server's
 * limits, each request's JSON body, and the results read back.
 */
final class Batches {
  /** Well under {@link KvorumApi#BATCH_MAX_BYTES}: room for the JSON around the values. */
  static final long REQUEST_BYTES = KvorumApi.BATCH_MAX_BYTES * 3L / 4;

  private Batches() {}

  /**
   * {@code items} in requests of at most {@link KvorumApi#BATCH_MAX_ITEMS} items and about {@link
   * #REQUEST_BYTES} of body, in order.
   */
  static List<List<BatchItem>> split(List<BatchItem> items) {
    List<List<BatchItem>> requests = new ArrayList<>();
    List<BatchItem> current = new ArrayList<>();
    long bytes = 0;
    for (BatchItem item : items) {
      long size =
          64 + item.key().length() * 6L + (item.value() == null ? 0 : item.value().length * 4L / 3);
      if (!current.isEmpty()
          && (current.size() == KvorumApi.BATCH_MAX_ITEMS || bytes + size > REQUEST_BYTES)) {
        requests.add(current);
        current = new ArrayList<>();
        bytes = 0;
      }
      current.add(item);
      bytes += size;
    }
    if (!current.isEmpty()) {
      requests.add(current);
    }
    return requests;
  }

  /** The JSON body of a request of {@code items}. */
  static byte[] body(List<BatchItem> items) {
    List<Object> list = new ArrayList<>(items.size());
    for (BatchItem item : items) {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("op", item.op().name().toLowerCase(Locale.ROOT));
      json.put("id", item.key());
      if (item.value() != null) {
        json.put("value", Base64.getEncoder().encodeToString(item.value()));
      }
      if (item.ttl() != null) {
        json.put("ttl", item.ttl().toMillis() + "ms");
      }
      list.add(json);
    }
    return Json.text(Map.of("items", list)).getBytes(StandardCharsets.UTF_8);
  }

  /** The results of a request of {@code items}, from its 200's body. */
  static List<BatchItemResult> results(List<BatchItem> items, byte[] body) {
    List<Map<String, Object>> results;
    try {
      results = Json.objects(Json.object(body), "results");
    } catch (IOException e) {
      throw new UncheckedIOException("a batch answered with something else than JSON", e);
    }
    if (results == null || results.size() != items.size()) {
      throw new KvorumClientException(
          200, "a batch of " + items.size() + " items answered another number of results");
    }
    List<BatchItemResult> read = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      Map<String, Object> result = results.get(i);
      int status = (int) Json.number(result, "status");
      String value = Json.string(result, "value");
      Map<String, Object> problem = Json.member(result, "problem");
      read.add(
          new BatchItemResult(
              items.get(i).key(),
              status,
              Json.string(result, "etag"),
              value == null ? null : Base64.getDecoder().decode(value),
              problem == null
                  ? null
                  : KvorumClientException.of(
                      status, Json.text(problem).getBytes(StandardCharsets.UTF_8))));
    }
    return read;
  }
}
