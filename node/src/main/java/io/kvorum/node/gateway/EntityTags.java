package io.kvorum.node.gateway;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Version;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;

/**
 * The {@code ETag} of a record: its version (the HLC timestamp that last-writer-wins orders by) as
 * a strong entity tag, {@code "<physical millis>.<logical counter>"}. Clients treat it as opaque;
 * the node reads it back from {@code If-Match}.
 */
final class EntityTags {
  private EntityTags() {}

  static String format(Version version) {
    return "\"" + version.physicalMillis() + "." + version.logical() + "\"";
  }

  static <R extends HttpResponse> R tagged(R response, Version version) {
    response.headers().set(HttpHeaderNames.ETAG, format(version));
    return response;
  }

  /**
   * The version an entity tag names; a weak tag ({@code W/"…"}) never matches a strong comparison,
   * so it is refused, as is anything this node did not issue.
   */
  static Version parse(String tag) {
    String text = tag.strip();
    if (text.length() < 2 || text.charAt(0) != '"' || text.charAt(text.length() - 1) != '"') {
      throw new InvalidRequestException("If-Match", "not a strong entity tag: " + tag);
    }
    String inner = text.substring(1, text.length() - 1);
    int dot = inner.indexOf('.');
    try {
      if (dot <= 0 || dot == inner.length() - 1) {
        throw new NumberFormatException(inner);
      }
      return Version.of(
          Long.parseLong(inner.substring(0, dot)), Integer.parseInt(inner.substring(dot + 1)));
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException("If-Match", "not an entity tag this store issued: " + tag);
    }
  }
}
