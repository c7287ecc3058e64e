package io.kvorum.api;

/** Percent-encoding of raw bytes for query parameters. */
final class Urls {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private Urls() {}

  /** Encodes every byte except the unreserved characters of RFC 3986. */
  static String encode(byte[] bytes) {
    StringBuilder out = new StringBuilder(bytes.length * 3);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '.'
          || c == '_'
          || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
  }
}
