package io.kvorum.node.gateway;

import io.kvorum.node.core.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The parameters of a request's query string, percent-decoded to raw bytes ('+' is a space, as in
 * HTML forms and {@code java.net.URLEncoder}), so keys may be any bytes, not only valid UTF-8. When
 * a name repeats, its first value counts.
 */
final class QueryParameters {
  private final Map<String, byte[]> values;

  private QueryParameters(Map<String, byte[]> values) {
    this.values = values;
  }

  /**
   * Parses the part of a request target after '?'. Netty hands over each byte of the request line
   * as one char (ISO-8859-1), so raw non-ASCII bytes survive too.
   *
   * @throws InvalidRequestException for malformed percent-encoding
   */
  static QueryParameters parse(String query) {
    Map<String, byte[]> values = new HashMap<>();
    int start = 0;
    while (start <= query.length()) {
      int end = query.indexOf('&', start);
      if (end < 0) {
        end = query.length();
      }
      if (end > start) {
        int eq = query.indexOf('=', start);
        String rawName =
            eq < 0 || eq > end ? query.substring(start, end) : query.substring(start, eq);
        String name = new String(decode(rawName, rawName), StandardCharsets.UTF_8);
        byte[] value =
            eq < 0 || eq > end ? new byte[0] : decode(query.substring(eq + 1, end), name);
        values.putIfAbsent(name, value);
      }
      start = end + 1;
    }
    return new QueryParameters(values);
  }

  Optional<byte[]> bytes(String name) {
    return Optional.ofNullable(values.get(name));
  }

  /** The value as UTF-8 text. */
  Optional<String> text(String name) {
    return bytes(name).map(b -> new String(b, StandardCharsets.UTF_8));
  }

  boolean has(String name) {
    return values.containsKey(name);
  }

  private static byte[] decode(String raw, String parameter) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
        if (lo < 0) {
          throw new InvalidRequestException(
              parameter, "parameter '" + parameter + "' has malformed percent-encoding");
        }
        out.write(hi << 4 | lo);
        i += 2;
      } else if (c == '+') {
        out.write(' ');
      } else {
        out.write(c & 0xFF);
      }
    }
    return out.toByteArray();
  }
}
