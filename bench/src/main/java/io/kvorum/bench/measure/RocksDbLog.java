package io.kvorum.bench.measure;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows a RocksDB info log ({@code LOG} in the database directory) for the background jobs it
 * starts and finishes: RocksDB writes {@code EVENT_LOG_v1 {"time_micros": …, "job": 7, "event":
 * "flush_started", …}} and later {@code "flush_finished"} (likewise {@code compaction_started},
 * {@code compaction_finished}). A job started and not yet finished is a flush or compaction in
 * progress. Reads only what was appended since the last call; starts over when the file was rotated
 * (a job that straddles the rotation is lost, which only shortens a settle pause).
 */
public final class RocksDbLog {
  private static final Pattern EVENT =
      Pattern.compile("\"job\": (\\d+), \"event\": \"(flush|compaction)_(started|finished)\"");
  private final Path file;
  private final Set<String> running = new HashSet<>();
  private long offset;
  private String partial = "";

  public RocksDbLog(Path file) {
    this.file = file;
  }

  /** Flushes and compactions started and not finished, as the log stands now. */
  public int runningJobs() throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    long size = Files.size(file);
    if (size < offset) {
      offset = 0;
      partial = "";
      running.clear();
    }
    if (size > offset) {
      try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
        in.seek(offset);
        byte[] bytes = new byte[(int) Math.min(size - offset, 64 << 20)];
        in.readFully(bytes);
        offset += bytes.length;
        String text = partial + new String(bytes, StandardCharsets.UTF_8);
        int lastLine = text.lastIndexOf('\n');
        partial = text.substring(lastLine + 1);
        accept(text.substring(0, lastLine + 1));
      }
    }
    return running.size();
  }

  /** Applies the job events in {@code text} (whole lines). */
  void accept(String text) {
    Matcher m = EVENT.matcher(text);
    while (m.find()) {
      String job = m.group(2) + " " + m.group(1);
      if (m.group(3).equals("started")) {
        running.add(job);
      } else {
        running.remove(job);
      }
    }
  }
}
