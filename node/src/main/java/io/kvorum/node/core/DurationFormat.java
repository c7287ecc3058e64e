package io.kvorum.node.core;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The duration syntax of kvorum's flags and of the {@code ttl} parameter: a whole number followed
 * by {@code ms}, {@code s}, {@code m}, {@code h} or {@code d}; a bare number means seconds.
 */
public final class DurationFormat {
  private static final Pattern SYNTAX = Pattern.compile("(\\d{1,18})(ms|s|m|h|d)?");

  private DurationFormat() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException with a message saying what is accepted
   */
  public static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text == null ? "" : text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a duration like 500ms, 30s, 5m, 2h, 7d (a bare number is seconds)");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    try {
      return switch (unit) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        case "d" -> Duration.ofDays(amount);
        default -> throw new IllegalStateException(unit);
      };
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is too long a duration", e);
    }
  }

  /** The shortest exact form of {@code duration} in this syntax. */
  public static String format(Duration duration) {
    long ms = duration.toMillis();
    if (ms % 86_400_000 == 0 && ms != 0) {
      return ms / 86_400_000 + "d";
    }
    if (ms % 3_600_000 == 0 && ms != 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms != 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
