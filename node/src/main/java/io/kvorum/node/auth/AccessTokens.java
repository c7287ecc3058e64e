package io.kvorum.node.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The tokens of an {@code --auth-tokens} file and their roles; immutable and thread-safe.
 *
 * <p>The file's format: one {@code TOKEN ROLE} per line, separated by spaces or tabs, ROLE {@code
 * read}, {@code write} or {@code admin} (in any case). A token is the {@code b64token} of RFC 6750
 * (letters, digits, {@code - . _ ~ + /}, then optional {@code =} padding), as it must be to travel
 * in an {@code Authorization: Bearer} header. Blank lines and lines whose first non-blank character
 * is {@code #} are ignored, as is a {@code #} comment after the role. A token may appear once; a
 * file must hold at least one. Lines may end in CRLF; a UTF-8 byte order mark is skipped. Messages
 * about a bad file name the line, never a token.
 *
 * <p>Only SHA-256 digests of the tokens are kept. {@link #roleOf} compares a presented token's
 * digest with every digest, in time that does not depend on which one matches nor on how much of a
 * token is right, so that answer times tell nothing about the tokens.
 */
public final class AccessTokens {
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(AccessTokens::sha256);

  /** Below this many characters a token is guessable; allowed, but the node warns. */
  public static final int SHORT_TOKEN = 16;

  private final byte[][] digests;
  private final Role[] roles;
  private final int shortTokens;

  private AccessTokens(byte[][] digests, Role[] roles, int shortTokens) {
    this.digests = digests;
    this.roles = roles;
    this.shortTokens = shortTokens;
  }

  /**
   * Parses the text of a tokens file.
   *
   * @throws IllegalArgumentException naming the first bad line and what is wrong with it
   */
  public static AccessTokens parse(String text) {
    String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
    Map<String, Integer> seen = new HashMap<>();
    byte[][] digests = new byte[8][];
    Role[] roles = new Role[8];
    int count = 0;
    int shortTokens = 0;
    String[] lines = body.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int lineNumber = i + 1;
      String line = stripComment(lines[i]).strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] fields = line.split("[ \t]+");
      if (fields.length != 2) {
        throw new IllegalArgumentException(
            "line " + lineNumber + ": expected TOKEN ROLE, found " + fields.length + " fields");
      }
      String token = fields[0];
      if (!isBearerToken(token)) {
        throw new IllegalArgumentException(
            "line "
                + lineNumber
                + ": a token is letters, digits and - . _ ~ + / (then optional = padding)");
      }
      Role role;
      try {
        role = Role.of(fields[1]);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + lineNumber + ": " + e.getMessage(), e);
      }
      Integer earlier = seen.putIfAbsent(token, lineNumber);
      if (earlier != null) {
        throw new IllegalArgumentException(
            "line " + lineNumber + ": the same token as line " + earlier);
      }
      if (count == digests.length) {
        digests = Arrays.copyOf(digests, count * 2);
        roles = Arrays.copyOf(roles, count * 2);
      }
      digests[count] = SHA_256.get().digest(token.getBytes(StandardCharsets.US_ASCII));
      roles[count] = role;
      count++;
      if (token.length() < SHORT_TOKEN) {
        shortTokens++;
      }
    }
    if (count == 0) {
      throw new IllegalArgumentException("no tokens: expected lines of TOKEN ROLE");
    }
    return new AccessTokens(
        Arrays.copyOf(digests, count), Arrays.copyOf(roles, count), shortTokens);
  }

  private static String stripComment(String line) {
    int hash = line.indexOf('#');
    return hash < 0 ? line : line.substring(0, hash);
  }

  /** Whether {@code token} is an RFC 6750 {@code b64token}. */
  static boolean isBearerToken(CharSequence token) {
    int n = token.length();
    int end = n;
    while (end > 0 && token.charAt(end - 1) == '=') {
      end--;
    }
    if (end == 0) {
      return false;
    }
    for (int i = 0; i < end; i++) {
      char c = token.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '.'
              || c == '_'
              || c == '~'
              || c == '+'
              || c == '/';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * The role of {@code token}, or null if it is not one of these tokens. Allocates only the digest
   * of the token (32 bytes).
   */
  public Role roleOf(CharSequence token) {
    return roleOf(token, 0, token.length());
  }

  /** The role of the token at {@code [start, end)} of {@code text}, or null; as above. */
  public Role roleOf(CharSequence text, int start, int end) {
    MessageDigest sha = SHA_256.get();
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      // Tokens are ASCII; any other character makes a digest no token has.
      sha.update(c < 0x80 ? (byte) c : (byte) 0xff);
    }
    byte[] digest = sha.digest();
    int match = -1;
    for (int i = 0; i < digests.length; i++) {
      // Every digest is compared (no early exit), each in constant time.
      boolean equal = MessageDigest.isEqual(digest, digests[i]);
      match = equal ? i : match;
    }
    return match < 0 ? null : roles[match];
  }

  /** How many tokens there are. */
  public int size() {
    return digests.length;
  }

  /** How many tokens have {@code role}. */
  public int count(Role role) {
    int n = 0;
    for (Role r : roles) {
      n += r == role ? 1 : 0;
    }
    return n;
  }

  /** How many tokens are shorter than {@value #SHORT_TOKEN} characters. */
  public int shortTokens() {
    return shortTokens;
  }

  /** A summary for the log, without any token: {@code 3 tokens (1 read, 1 write, 1 admin)}. */
  @Override
  public String toString() {
    return size()
        + " tokens ("
        + count(Role.READ)
        + " read, "
        + count(Role.WRITE)
        + " write, "
        + count(Role.ADMIN)
        + " admin)";
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
