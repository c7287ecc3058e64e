package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * How a range response frames its entries (SPEC §2): the seed form, one HTTP chunk per entry
 * ({@code key '\n' value}), the default; or NDJSON, one JSON object a line with base64 key and
 * value and the version's entity tag, then {@code {"end": true, "cursor": C}} (the cursor a change
 * feed follows the read from, SPEC §12), asked for with {@code Accept: application/x-ndjson}.
 * NDJSON's framing is in the body, so it survives proxies that re-chunk.
 */
enum RangeFormat {
  CHUNKS(KvorumApi.OCTET_STREAM) {
    private static final byte[] SEPARATOR = {'\n'};

    @Override
    ByteBuf entry(Entry entry) {
      return Unpooled.wrappedBuffer(entry.key().bytes(), SEPARATOR, entry.record().value());
    }

    @Override
    ByteBuf end(Optional<String> cursor) {
      return null;
    }

    @Override
    ByteBuf failure(Throwable error) {
      return null;
    }
  },

  NDJSON(KvorumApi.NDJSON) {

    @Override
    ByteBuf entry(Entry entry) {
      Base64.Encoder base64 = Base64.getEncoder();
      String line =
          "{\"key\":\""
              + base64.encodeToString(entry.key().bytes())
              + "\",\"value\":\""
              + base64.encodeToString(entry.record().value())
              + "\",\"etag\":\""
              + EntityTags.format(entry.record().version()).replace("\"", "\\\"")
              + "\"}\n";
      return Unpooled.wrappedBuffer(line.getBytes(StandardCharsets.US_ASCII));
    }

    @Override
    ByteBuf end(Optional<String> cursor) {
      String line =
          cursor.map(c -> "{\"end\":true,\"cursor\":\"" + c + "\"}\n").orElse("{\"end\":true}\n");
      return Unpooled.wrappedBuffer(line.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * The problem the failure would have answered before the first entry, as a last line {@code
     * {"error": {...}}}; the response is then still cut off, so a reader that ignores the line sees
     * no end line and a truncated body.
     */
    @Override
    ByteBuf failure(Throwable error) {
      FullHttpResponse problem = HttpErrorMapper.toResponse(error);
      try {
        String json = problem.content().toString(StandardCharsets.UTF_8).strip();
        return Unpooled.wrappedBuffer(
            ("{\"error\":" + json + "}\n").getBytes(StandardCharsets.UTF_8));
      } finally {
        problem.release();
      }
    }
  };

  private final String contentType;

  RangeFormat(String contentType) {
    this.contentType = contentType;
  }

  String contentType() {
    return contentType;
  }

  /** The bytes of one entry. */
  abstract ByteBuf entry(Entry entry);

  /**
   * What the body ends with when the range is complete (null: the chunked coding's own end), with
   * the cursor a change feed follows the read from when there is one.
   */
  abstract ByteBuf end(Optional<String> cursor);

  /** What the body says before it is cut off by {@code error} (null: nothing). */
  abstract ByteBuf failure(Throwable error);

  /**
   * The format a request asks for: NDJSON when its {@code Accept} names {@code
   * application/x-ndjson}, else the chunk form (also for {@code *}{@code /*} or no header).
   */
  static RangeFormat of(HttpRequest request) {
    String accept = request.headers().get(HttpHeaderNames.ACCEPT);
    if (accept != null) {
      for (String range : accept.split(",")) {
        String type = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (type.equals(KvorumApi.NDJSON) && !refused(range)) {
          return NDJSON;
        }
      }
    }
    return CHUNKS;
  }

  private static boolean refused(String mediaRange) {
    String compact = mediaRange.replace(" ", "").toLowerCase(Locale.ROOT);
    return compact.contains(";q=0") && !compact.matches(".*;q=0\\.0*[1-9].*");
  }
}
