package io.kvorum.bench.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses in a JVM's unified GC log, as the runner makes every node write it:
 * {@code -Xlog:gc*:file=gc-node-<i>.log:time,uptime,tags}. A pause is a line such as {@code
 * [2026-11-23T10:57:34.890+0000][0.780s][gc ] GC(0) Pause Young (Normal) (G1 Evacuation Pause)
 * 15M->4M(64M) 169.370ms}, logged when the pause ends; the {@code gc,start} line of the same pause
 * carries no duration and is skipped.
 */
public final class GcLog {
  /** The option that makes a JVM write the log this class reads. */
  public static String jvmOption(Path file) {
    return "-Xlog:gc*:file=" + file + ":time,uptime,tags:filecount=0";
  }

  private static final Pattern PAUSE =
      Pattern.compile("^\\[([^]]+)].*\\bGC\\(\\d+\\) (Pause .*?) (\\d+(?:\\.\\d+)?)ms\\s*$");
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

  private GcLog() {}

  /** One pause: when it ended, what it was ({@code Pause Young (Normal) …}), how long. */
  public record Pause(Instant end, String kind, double millis) {}

  /** The pauses in {@code file}; none when it does not exist (yet). */
  public static List<Pause> read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return List.of();
    }
    return parse(Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  /** The pauses in these log lines; lines of any other kind are skipped. */
  public static List<Pause> parse(List<String> lines) {
    List<Pause> pauses = new ArrayList<>();
    for (String line : lines) {
      Matcher m = PAUSE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      try {
        Instant end = OffsetDateTime.parse(m.group(1), TIME).toInstant();
        // The kind without the heap sizes that G1 appends ("15M->4M(64M)").
        String kind = m.group(2).replaceFirst("\\s+\\d+[KMG]->\\d+[KMG]\\(\\d+[KMG]\\)$", "");
        pauses.add(new Pause(end, kind, Double.parseDouble(m.group(3))));
      } catch (DateTimeParseException e) {
        // Not the time decorator the runner asks for (e.g. a hand-made log): not a pause we can
        // place in time.
      }
    }
    return pauses;
  }

  /** The pauses that ended within {@code [from, to]}. */
  public static GcPauses between(List<Pause> pauses, Instant from, Instant to) {
    int count = 0;
    double max = 0;
    double total = 0;
    for (Pause pause : pauses) {
      if (!pause.end().isBefore(from) && !pause.end().isAfter(to)) {
        count++;
        max = Math.max(max, pause.millis());
        total += pause.millis();
      }
    }
    return new GcPauses(count, max, total);
  }
}
