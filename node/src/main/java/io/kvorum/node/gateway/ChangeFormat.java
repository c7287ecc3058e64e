package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.changes.Cursors;
import io.kvorum.node.changes.FeedEvent;
import io.kvorum.node.core.Record;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;

/**
 * How a change feed frames its events (SPEC §12): NDJSON, one JSON object a line, by default; or
 * Server-Sent Events with {@code Accept: text/event-stream}, each event an {@code id:} line (its
 * cursor, which a reconnecting client sends back as {@code Last-Event-ID}) and one {@code data:}
 * line (the same JSON object: it holds no line break), then a blank line. The SSE framing is
 * written here: Netty 4.1 has no SSE encoder, and the format is these three lines
 * (docs/decisions/change-feeds-frame-sse-by-hand.md).
 */
enum ChangeFormat {
  NDJSON(KvorumApi.NDJSON) {
    @Override
    String frame(String json, String id) {
      return json + "\n";
    }
  },

  SSE(KvorumApi.EVENT_STREAM) {
    @Override
    String frame(String json, String id) {
      return (id == null ? "" : "id: " + id + "\n") + "data: " + json + "\n\n";
    }
  };

  private final String contentType;

  ChangeFormat(String contentType) {
    this.contentType = contentType;
  }

  String contentType() {
    return contentType;
  }

  /** One event's JSON in this framing; {@code id} null for an event without a cursor. */
  abstract String frame(String json, String id);

  /** The bytes of {@code event}. */
  ByteBuf event(FeedEvent event) {
    String cursor = Cursors.format(event.cursor());
    String json =
        switch (event) {
          case FeedEvent.Changed changed -> change(changed, cursor);
          case FeedEvent.Progress progress -> "{\"progress\":true,\"cursor\":\"" + cursor + "\"}";
        };
    return utf8(frame(json, cursor));
  }

  /** The last event before the feed is cut off by {@code error}: its problem, as {@code error}. */
  ByteBuf failure(Throwable error) {
    FullHttpResponse problem = HttpErrorMapper.toResponse(error);
    try {
      String json = problem.content().toString(StandardCharsets.UTF_8).strip();
      return utf8(frame("{\"error\":" + json + "}", null));
    } finally {
      problem.release();
    }
  }

  private static String change(FeedEvent.Changed changed, String cursor) {
    Base64.Encoder base64 = Base64.getEncoder();
    Record record = changed.record();
    StringBuilder json =
        new StringBuilder("{\"key\":\"").append(base64.encodeToString(changed.key().bytes()));
    if (record.tombstone()) {
      json.append("\",\"deleted\":true");
    } else {
      json.append("\",\"value\":\"").append(base64.encodeToString(record.value())).append('"');
      if (record.hasExpiry()) {
        json.append(",\"expiresAt\":\"")
            .append(Instant.ofEpochMilli(record.expiresAtMillis()))
            .append('"');
      }
    }
    return json.append(",\"etag\":\"")
        .append(EntityTags.format(record.version()).replace("\"", "\\\""))
        .append("\",\"cursor\":\"")
        .append(cursor)
        .append("\"}")
        .toString();
  }

  private static ByteBuf utf8(String text) {
    return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8));
  }

  /** SSE when the request's {@code Accept} names {@code text/event-stream}, else NDJSON. */
  static ChangeFormat of(HttpRequest request) {
    String accept = request.headers().get(HttpHeaderNames.ACCEPT);
    if (accept != null) {
      for (String range : accept.split(",")) {
        String type = range.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
        if (type.equals(KvorumApi.EVENT_STREAM)) {
          return SSE;
        }
      }
    }
    return NDJSON;
  }
}
