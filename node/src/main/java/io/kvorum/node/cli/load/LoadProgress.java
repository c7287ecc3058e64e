package io.kvorum.node.cli.load;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a load has done so far, for the operator: records and bytes the cluster took, the rate, and
 * the time left against the snapshot's estimated record count. On a terminal one line is redrawn
 * every half second; otherwise (a log, a pipe) a plain line is printed every few seconds.
 * Thread-safe: senders count, the reading thread prints.
 */
final class LoadProgress {
  private static final long TERMINAL_EVERY_NANOS = 500_000_000L;
  private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter out;
  private final boolean terminal;
  private final long estimated;
  private final LongSupplier nanos;
  private final long started;
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();
  private long lastPrinted;
  private boolean redrawn;

  /**
   * @param terminal whether {@code out} is a terminal, where a line may be redrawn
   * @param estimated about how many records the load will send (0 if unknown)
   */
  LoadProgress(PrintWriter out, boolean terminal, long estimated, LongSupplier nanos) {
    this.out = out;
    this.terminal = terminal;
    this.estimated = estimated;
    this.nanos = nanos;
    this.started = nanos.getAsLong();
    this.lastPrinted = started;
  }

  /** Counts a batch the cluster took. */
  void taken(int batchRecords, int batchBytes) {
    records.addAndGet(batchRecords);
    bytes.addAndGet(batchBytes);
  }

  long records() {
    return records.get();
  }

  long bytes() {
    return bytes.get();
  }

  double seconds() {
    return Math.max(1e-3, (nanos.getAsLong() - started) / 1e9);
  }

  /** Prints the progress line if it is time to. */
  void maybePrint() {
    long now = nanos.getAsLong();
    if (now - lastPrinted < (terminal ? TERMINAL_EVERY_NANOS : PLAIN_EVERY_NANOS)) {
      return;
    }
    lastPrinted = now;
    if (terminal) {
      out.print("\r" + line() + "  ");
      redrawn = true;
    } else {
      out.println(line());
    }
    out.flush();
  }

  /** Ends a redrawn line, so that what follows starts on its own. */
  void finish() {
    if (redrawn) {
      out.println();
      out.flush();
    }
  }

  /** e.g. {@code 120,000 of ~1,000,000 records, 14.2 MB/s, 35,000 records/s, 0:25 left}. */
  String line() {
    long done = records.get();
    double seconds = seconds();
    double rate = done / seconds;
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%,d", done));
    if (estimated > 0) {
      line.append(String.format(Locale.ROOT, " of ~%,d", Math.max(estimated, done)));
    }
    line.append(
        String.format(
            Locale.ROOT,
            " records, %.1f MB/s, %,.0f records/s",
            bytes.get() / 1e6 / seconds,
            rate));
    if (estimated > done && rate > 0) {
      line.append(", ").append(clock((long) ((estimated - done) / rate))).append(" left");
    }
    return line.toString();
  }

  static String clock(long seconds) {
    return seconds >= 3600
        ? String.format(
            Locale.ROOT, "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        : String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
  }
}
