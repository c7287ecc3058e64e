package io.kvorum.node.cli.load;

import io.kvorum.node.cli.admin.ProgressLine;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What a load has done so far, for the operator: records and bytes the cluster took, the rate, and
 * the time left against the snapshot's estimated record count, printed by a {@link ProgressLine}.
 * Thread-safe: senders count, the reading thread prints.
 */
final class LoadProgress {
  private final ProgressLine printer;
  private final long estimated;
  private final LongSupplier nanos;
  private final long started;
  private final AtomicLong records = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  /**
   * @param terminal whether {@code out} is a terminal, where a line may be redrawn
   * @param estimated about how many records the load will send (0 if unknown)
   */
  LoadProgress(PrintWriter out, boolean terminal, long estimated, LongSupplier nanos) {
    this.printer = new ProgressLine(out, terminal, nanos);
    this.estimated = estimated;
    this.nanos = nanos;
    this.started = nanos.getAsLong();
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
    printer.maybePrint(this::line);
  }

  /** Ends a redrawn line, so that what follows starts on its own. */
  void finish() {
    printer.finish();
  }

  /** e.g. {@code 120,000 of ~1,000,000 records, 14.2 MB/s, 35,000 records/s, 0:25 left}. */
  String line() {
    return ProgressLine.figures(records.get(), estimated, bytes.get(), seconds());
  }
}
