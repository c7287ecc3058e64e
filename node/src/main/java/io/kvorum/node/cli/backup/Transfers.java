package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.admin.ProgressLine;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * What a backup or a restore moved so far, printed as progress lines on stderr (redrawn on a
 * terminal, every 5 s otherwise) and as the summary's figures. One thread prints.
 */
final class Transfers {
  private final ProgressLine line;
  private final long startNanos = System.nanoTime();
  private final String verb;
  private long filesMoved;
  private long bytesMoved;
  private long filesKept;
  private long bytesKept;
  private long bytesInAll;

  /**
   * @param verb what moving a file is called: "sent", "fetched"
   */
  Transfers(PrintWriter err, String verb) {
    this.line = new ProgressLine(err, ProgressLine.terminal(), System::nanoTime);
    this.verb = verb;
  }

  /** {@code bytes} more to move or keep in all (a member's snapshot). */
  void expect(long bytes) {
    bytesInAll += bytes;
  }

  void moved(long bytes) {
    filesMoved++;
    bytesMoved += bytes;
  }

  void kept(long bytes) {
    filesKept++;
    bytesKept += bytes;
  }

  /** Prints the progress if it is time to; {@code doing} says of what (a member). */
  void maybePrint(String doing) {
    line.maybePrint(
        () ->
            String.format(
                Locale.ROOT,
                "%s: %s %s of %s, %.1f MB/s",
                doing,
                verb,
                megabytes(bytesMoved),
                megabytes(bytesInAll - bytesKept),
                bytesMoved / 1e6 / seconds()));
  }

  void finish() {
    line.finish();
  }

  /** e.g. {@code sent 12 files (340.1 MB) in 14.2 s, 24.0 MB/s; 228 files (1.1 GB) unchanged}. */
  String summary(String keptWord) {
    return String.format(
        Locale.ROOT,
        "%s %,d files (%s) in %.1f s, %.1f MB/s; %,d files (%s) %s",
        verb,
        filesMoved,
        megabytes(bytesMoved),
        seconds(),
        bytesMoved / 1e6 / seconds(),
        filesKept,
        megabytes(bytesKept),
        keptWord);
  }

  double seconds() {
    return Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
  }

  static String megabytes(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }
}
