package io.kvorum.api;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Reads a range response entry by entry as it streams in, in its NDJSON form (SPEC §2: one JSON
 * object a line, base64 key and value, a last line {@code {"end": true}}), with the JDK's client:
 * the body is read as the caller iterates, so memory stays flat however large the range.
 *
 * <p>A range that stops before its end line (a node failed mid-stream; the line before the cut then
 * says why, as {@code {"error": problem}}) makes {@link #hasNext()} throw: {@link
 * KvorumClientException} with the problem when the node said why, else {@link UncheckedIOException}
 * wrapping an {@link EOFException}. The caller never mistakes a partial range for a complete one.
 */
public final class RangeReader implements Iterator<RangeEntry>, AutoCloseable {
  private final InputStream body;
  private final BufferedReader lines;
  private RangeEntry next;
  private boolean finished;

  private RangeReader(InputStream body) {
    this.body = body;
    this.lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8), 1 << 16);
  }

  /**
   * Starts the range request on the next node in turn and, if that node cannot be reached or is
   * unavailable, on the others (a range not yet started is safe to ask again).
   */
  static RangeReader open(
      HttpClient http, Endpoints endpoints, ClientSettings settings, String target) {
    UncheckedIOException unreachable = null;
    for (int attempt = 0; attempt < Math.max(1, endpoints.all().size()); attempt++) {
      URI node = endpoints.next();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(node.resolve(target))
              .header("Accept", KvorumApi.NDJSON)
              .timeout(settings.deadline())
              .GET();
      if (settings.authorization() != null) {
        request.header(KvorumApi.AUTHORIZATION, settings.authorization());
      }
      HttpResponse<InputStream> response;
      try {
        response = send(http, request.build());
      } catch (UncheckedIOException e) {
        endpoints.markDown(node, settings.downFor().toNanos());
        unreachable = e;
        continue;
      }
      if (response.statusCode() == 200) {
        return new RangeReader(response.body());
      }
      byte[] problem = readAll(response.body());
      if (response.statusCode() != 503) {
        throw KvorumClientException.of(response.statusCode(), problem);
      }
      endpoints.markDown(node, settings.downFor().toNanos());
      unreachable = new UncheckedIOException(new IOException(node + " answered 503"));
    }
    throw unreachable;
  }

  /**
   * The range's answer, its headers at least (the request's timeout), with the JDK client's
   * blocking send: its {@code sendAsync} completes on the common fork-join pool, which a busy
   * application may keep from ever running it.
   */
  private static HttpResponse<InputStream> send(HttpClient http, HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted"));
    } catch (IOException e) {
      throw new UncheckedIOException("range request to " + request.uri() + " failed: " + e, e);
    }
  }

  private static byte[] readAll(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      return new byte[0];
    }
  }

  @Override
  public boolean hasNext() {
    if (next == null && !finished) {
      try {
        next = readEntry();
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("range response incomplete", e);
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }
    return next != null;
  }

  @Override
  public RangeEntry next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    RangeEntry entry = next;
    next = null;
    return entry;
  }

  /** Whether the end line arrived: the range is complete. */
  public boolean complete() {
    return finished;
  }

  private RangeEntry readEntry() throws IOException {
    String line = lines.readLine();
    if (line == null) {
      throw new EOFException("the range ended without its end line");
    }
    Map<String, Object> object = Json.object(line.getBytes(StandardCharsets.UTF_8));
    if (Boolean.TRUE.equals(object.get("end"))) {
      finished = true;
      close();
      return null;
    }
    if (object.get("error") instanceof Map<?, ?> problem) {
      Object status = problem.get("status");
      throw KvorumClientException.of(
          status instanceof Number n ? n.intValue() : 500,
          problem.get("title") instanceof String t ? t : null,
          "range cut off: " + (problem.get("detail") instanceof String d ? d : "no detail"),
          Json.text(problem));
    }
    if (!(object.get("key") instanceof String key)
        || !(object.get("value") instanceof String value)) {
      throw new IOException("a range line without key and value: " + abbreviated(line));
    }
    Base64.Decoder base64 = Base64.getDecoder();
    return new RangeEntry(
        base64.decode(key),
        base64.decode(value),
        object.get("etag") instanceof String etag ? etag : null);
  }

  private static String abbreviated(String line) {
    return line.length() <= 80 ? line : line.substring(0, 80) + "…";
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }
}
