package io.kvorum.node.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * A consumer of a change feed for tests ({@code GET /v0/changes} in NDJSON): reads every line on a
 * thread of its own and keeps the events, until the feed ends or it is closed.
 */
public final class FeedReader implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * One line of the feed.
   *
   * @param key the key, UTF-8 (null for progress and error lines)
   * @param value the value, UTF-8 (null for a delete)
   * @param etag the version's entity tag
   * @param cursor the line's cursor (null for an error line)
   * @param error the problem of an error line, else null
   */
  public record Event(String key, String value, String etag, String cursor, JsonNode error) {
    public boolean isChange() {
      return key != null;
    }
  }

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private final int status;
  private final String body;
  private volatile Stream<String> lines;
  private volatile boolean ended;

  private FeedReader(HttpResponse<Stream<String>> response) {
    this.status = response.statusCode();
    if (status != 200) {
      this.body = String.join("\n", response.body().toList());
      this.reader = null;
      this.ended = true;
      return;
    }
    this.body = null;
    this.lines = response.body();
    this.reader = Thread.ofVirtual().name("feed-reader").start(this::read);
  }

  /**
   * Opens {@code /v0/changes?QUERY} on the node at {@code base} (query without {@code ?}); with
   * {@code headers} as name, value pairs.
   */
  public static FeedReader open(URI base, String query, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve("/v0/changes?" + query)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try {
      return new FeedReader(HTTP.send(request.build(), HttpResponse.BodyHandlers.ofLines()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void read() {
    try {
      lines.forEach(line -> events.add(parse(line)));
    } catch (RuntimeException e) {
      // The connection broke or was closed: the feed ended.
    } finally {
      ended = true;
    }
  }

  private static Event parse(String line) {
    try {
      JsonNode node = JSON.readTree(line);
      if (node.has("error")) {
        return new Event(null, null, null, null, node.get("error"));
      }
      String cursor = node.get("cursor").asText();
      if (!node.has("key")) {
        return new Event(null, null, null, cursor, null);
      }
      String key = utf8(node.get("key").asText());
      String value = node.has("value") ? utf8(node.get("value").asText()) : null;
      return new Event(key, value, node.get("etag").asText(), cursor, null);
    } catch (IOException e) {
      throw new UncheckedIOException("not a feed line: " + line, e);
    }
  }

  private static String utf8(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  /** The HTTP status the feed was answered with. */
  public int status() {
    return status;
  }

  /** The body of an answer other than 200. */
  public String body() {
    return body;
  }

  public List<Event> events() {
    return new ArrayList<>(events);
  }

  /** The changes received so far, in order. */
  public List<Event> changes() {
    return events.stream().filter(Event::isChange).toList();
  }

  /** The values shown for each key, in the order shown (null for a delete). */
  public Map<String, List<String>> valuesByKey() {
    Map<String, List<String>> seen = new LinkedHashMap<>();
    for (Event change : changes()) {
      seen.computeIfAbsent(change.key(), k -> new ArrayList<>()).add(change.value());
    }
    return seen;
  }

  /**
   * The acknowledged writes (values per key, null for a delete) this feed has not shown, as {@code
   * key: value}: a value is missing if it was never shown, deletes if fewer were shown than were
   * acknowledged. Duplicates and writes never acknowledged may be shown too (SPEC §12).
   */
  public List<String> missing(Map<String, List<String>> acknowledged) {
    Map<String, List<String>> seen = valuesByKey();
    List<String> missing = new ArrayList<>();
    acknowledged.forEach(
        (key, values) -> {
          List<String> shown = seen.getOrDefault(key, List.of());
          int deletes = Collections.frequency(values, null);
          if (Collections.frequency(shown, null) < deletes) {
            missing.add(key + ": " + deletes + " deletes");
          }
          values.stream()
              .filter(Objects::nonNull)
              .filter(value -> !shown.contains(value))
              .forEach(value -> missing.add(key + ": " + value));
        });
    return missing;
  }

  /**
   * The keys whose values went backwards in this feed, by {@code order} (each value's place in its
   * writer's sequence; deletes are not placed): within a feed a key's versions never go backwards.
   */
  public List<String> outOfOrder(ToLongFunction<String> order) {
    List<String> backwards = new ArrayList<>();
    valuesByKey()
        .forEach(
            (key, values) -> {
              long last = Long.MIN_VALUE;
              for (String value : values) {
                if (value == null) {
                  continue;
                }
                long place = order.applyAsLong(value);
                if (place < last) {
                  backwards.add(key + ": " + values);
                  return;
                }
                last = place;
              }
            });
    return backwards;
  }

  /** The cursor of the last line that had one. */
  public Optional<String> lastCursor() {
    List<Event> all = events();
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).cursor() != null) {
        return Optional.of(all.get(i).cursor());
      }
    }
    return Optional.empty();
  }

  /** The error line the feed ended with, if it did. */
  public Optional<JsonNode> error() {
    return events.stream().map(Event::error).filter(e -> e != null).findFirst();
  }

  /** Whether the response ended (an error line, a cut connection, or {@link #close}). */
  public boolean ended() {
    return ended;
  }

  @Override
  public void close() {
    Stream<String> open = lines;
    if (open != null) {
      open.close();
    }
    if (reader != null) {
      reader.interrupt();
    }
  }
}
