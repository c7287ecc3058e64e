package io.kvorum.node.cli.admin;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The progress line of long operator work ({@code load}, {@code decommission --wait}, {@code remove
 * --wait}, {@code repair --wait}): on a terminal one line redrawn every half second; otherwise (a
 * log, a pipe) a plain line every few seconds. Also the wording the commands share: {@link
 * #figures} (records, MB/s, records/s, time left) and {@link #clock}. Not thread-safe: one thread
 * prints.
 */
public final class ProgressLine {
  private static final long TERMINAL_EVERY_NANOS = 500_000_000L;
  private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter out;
  private final boolean terminal;
  private final LongSupplier nanos;
  private long lastPrinted;
  private boolean redrawn;

  /**
   * @param terminal whether {@code out} is a terminal, where a line may be redrawn
   * @param nanos the clock ({@code System::nanoTime})
   */
  public ProgressLine(PrintWriter out, boolean terminal, LongSupplier nanos) {
    this.out = out;
    this.terminal = terminal;
    this.nanos = nanos;
    this.lastPrinted = nanos.getAsLong();
  }

  /** Prints {@code line} if it is time to: half a second after the last on a terminal, else 5 s. */
  public void maybePrint(Supplier<String> line) {
    long now = nanos.getAsLong();
    if (now - lastPrinted < (terminal ? TERMINAL_EVERY_NANOS : PLAIN_EVERY_NANOS)) {
      return;
    }
    lastPrinted = now;
    if (terminal) {
      out.print("\r" + line.get() + "  ");
      redrawn = true;
    } else {
      out.println(line.get());
    }
    out.flush();
  }

  /** Ends a redrawn line, so that what follows starts on its own. */
  public void finish() {
    if (redrawn) {
      out.println();
      out.flush();
      redrawn = false;
    }
  }

  /**
   * e.g. {@code 120,000 of ~1,000,000 records, 14.2 MB/s, 35,000 records/s, 0:25 left}.
   *
   * @param estimated about how many records there will be in all; 0 if unknown (no time left then)
   */
  public static String figures(long records, long estimated, long bytes, double seconds) {
    double rate = records / seconds;
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%,d", records));
    if (estimated > 0) {
      line.append(String.format(Locale.ROOT, " of ~%,d", Math.max(estimated, records)));
    }
    line.append(
        String.format(
            Locale.ROOT, " records, %.1f MB/s, %,.0f records/s", bytes / 1e6 / seconds, rate));
    if (estimated > records && rate > 0) {
      line.append(", ").append(clock((long) ((estimated - records) / rate))).append(" left");
    }
    return line.toString();
  }

  /** {@code m:ss}, or {@code h:mm:ss} from an hour. */
  public static String clock(long seconds) {
    return seconds >= 3600
        ? String.format(
            Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        : String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
  }

  /** Whether the operator watches a terminal (JDK 22 and later tell; earlier, any console). */
  public static boolean terminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }
}
