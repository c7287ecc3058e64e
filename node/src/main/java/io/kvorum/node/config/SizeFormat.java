package io.kvorum.node.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes in flags: a whole number with an optional unit, {@code B}, {@code KiB}, {@code MiB},
 * {@code GiB} (powers of 1024, also written {@code K}, {@code M}, {@code G}) or {@code KB}, {@code
 * MB}, {@code GB} (powers of 1000).
 */
public final class SizeFormat {
  private static final Pattern SYNTAX =
      Pattern.compile("(\\d{1,15})\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

  private SizeFormat() {}

  public static long parse(String text) {
    Matcher m = SYNTAX.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size like 512KiB, 16MiB or 1GiB");
    }
    long amount = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    long multiplier =
        switch (unit) {
          case "b" -> 1;
          case "k", "kib" -> 1L << 10;
          case "kb" -> 1000;
          case "m", "mib" -> 1L << 20;
          case "mb" -> 1000_000;
          case "g", "gib" -> 1L << 30;
          case "gb" -> 1000_000_000;
          default -> throw new IllegalStateException(unit);
        };
    return Math.multiplyExact(amount, multiplier);
  }
}
