package io.kvorum.node.config;

import io.kvorum.node.core.DurationFormat;
import io.kvorum.node.storage.WalSync;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

/**
 * Parsers of a flag's text value: each returns the value or throws a {@link ConfigException} that
 * names the flag, the value as given and what is wrong with it.
 */
final class FlagValues {
  private FlagValues() {}

  static String text(String flag, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigException(flag, String.valueOf(value), "must not be empty");
    }
    return value.trim();
  }

  static int port(String flag, String value, boolean zeroAllowed) {
    int port = parse(flag, value, Integer::parseInt);
    if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
      throw new ConfigException(flag, value, "a port is 1-65535");
    }
    return port;
  }

  static int count(String flag, String value, boolean zeroAllowed) {
    int n = parse(flag, value, Integer::parseInt);
    if (n < (zeroAllowed ? 0 : 1)) {
      throw new ConfigException(flag, value, "must be " + (zeroAllowed ? "0 or more" : "positive"));
    }
    return n;
  }

  static boolean bool(String flag, String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new ConfigException(flag, value, "must be true or false");
    };
  }

  /**
   * {@code true}, {@code false} (as {@link #bool}) or a positive interval such as {@code 100ms}.
   */
  static WalSync walSync(String flag, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true", "yes", "1" -> WalSync.EVERY_WRITE;
      case "false", "no", "0" -> WalSync.OS;
      default -> {
        try {
          Duration interval = DurationFormat.parse(v);
          if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException();
          }
          yield WalSync.every(interval);
        } catch (RuntimeException e) {
          throw new ConfigException(
              flag, value, "must be true, false or a positive interval such as 100ms");
        }
      }
    };
  }

  /** A duration of zero or more: zero turns off what the flag keeps. */
  static Duration durationOrZero(String flag, String value) {
    return parse(flag, value, DurationFormat::parse);
  }

  static Duration duration(String flag, String value) {
    Duration d = durationOrZero(flag, value);
    if (d.isZero()) {
      throw new ConfigException(flag, value, "must be positive");
    }
    return d;
  }

  static long size(String flag, String value) {
    return parse(flag, value, SizeFormat::parse);
  }

  static long positiveSize(String flag, String value) {
    long size = size(flag, value);
    if (size < 1) {
      throw new ConfigException(flag, value, "must be positive");
    }
    return size;
  }

  static int intSize(String flag, String value) {
    long size = positiveSize(flag, value);
    if (size > Integer.MAX_VALUE - 1024) {
      throw new ConfigException(flag, value, "must be under 2GiB");
    }
    return (int) size;
  }

  static <T> T parse(String flag, String value, Function<String, T> parser) {
    if (value == null) {
      throw new ConfigException(flag, "", "a value is required");
    }
    try {
      return parser.apply(value.trim());
    } catch (ArithmeticException e) {
      throw new ConfigException(flag, value, "too large");
    } catch (NumberFormatException e) {
      throw new ConfigException(flag, value, "not a number");
    } catch (IllegalArgumentException e) {
      throw new ConfigException(flag, value, e.getMessage());
    }
  }
}
