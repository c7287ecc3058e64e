package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * Writes {@code report.md} into a run's results directory. The plots of a jar's runs go into that
 * jar's directory ({@link #files}), which is the results directory itself unless several jars are
 * compared.
 */
public final class Report {
  private final Path dir;
  private final StringBuilder md = new StringBuilder();
  private Path files;
  private int headlineAt = -1;

  public Report(Path dir, String title) {
    this.dir = dir;
    this.files = dir;
    md.append("# ").append(title).append("\n\n");
  }

  public Report text(String markdown) {
    md.append(markdown).append("\n\n");
    return this;
  }

  /** Marks where {@link #headline} will go: after what has been written so far. */
  public Report markHeadline() {
    headlineAt = md.length();
    return this;
  }

  /** Inserts the headline at the mark (or appends it without one). */
  public Report headline(String markdown) {
    String text = markdown + "\n\n";
    if (headlineAt < 0) {
      md.append(text);
    } else {
      md.insert(headlineAt, text);
    }
    return this;
  }

  /** Plots from now on go into {@code filesDir} (inside the results directory). */
  public Report files(Path filesDir) {
    this.files = Objects.requireNonNull(filesDir);
    return this;
  }

  /** A Markdown link target for {@code file}, relative to {@code report.md}. */
  public String link(Path file) {
    return dir.toAbsolutePath().relativize(file.toAbsolutePath()).toString();
  }

  /** A table of runs under a heading. */
  public Report runs(String heading, List<Run> runs, List<String> labels, double p99LimitMillis) {
    md.append("## ").append(heading).append("\n\n").append(Table.header());
    for (int i = 0; i < runs.size(); i++) {
      md.append(Table.row(runs.get(i), labels.get(i), p99LimitMillis));
    }
    md.append('\n');
    return this;
  }

  /**
   * A table of the phase's steps and its long run (or of its holds), with the latency-over-time
   * plots and the CPU of the long runs by thread pool.
   */
  public Report sweep(String heading, Sweep sweep, double p99LimitMillis) throws IOException {
    md.append("## ").append(heading).append("\n\n");
    for (String note : sweep.notes()) {
      md.append("- ").append(note).append('\n');
    }
    md.append('\n').append(Table.header());
    for (Run step : sweep.steps()) {
      String name = step.load().name();
      md.append(Table.row(step, name.contains(" for ") ? "long run" : "step", p99LimitMillis));
    }
    for (Run held : sweep.holds()) {
      md.append(Table.row(held, held == sweep.sustained() ? "**held**" : "held", p99LimitMillis));
    }
    if (sweep.holds().isEmpty() && sweep.sustained() != null) {
      md.append(Table.row(sweep.sustained(), "**held**", p99LimitMillis));
    }
    if (sweep.sustained() == null) {
      md.append("\nNo rate held with p99 ≤ ")
          .append(Table.millis(p99LimitMillis))
          .append(" ms and no errors.\n");
    }
    List<Run> longRuns = sweep.longRuns();
    for (Run run : longRuns) {
      latencyOverTime(sweep.phase(), run, longRuns.size() > 1);
    }
    if (!longRuns.isEmpty()) {
      md.append("\nWhere the nodes' CPU went in ")
          .append(longRuns.size() > 1 ? "each held run" : "the held run")
          .append(", by thread pool: ")
          .append(PoolTable.PER_REQUEST)
          .append("\n\n")
          .append(PoolTable.perRequest(longRuns));
    }
    md.append('\n');
    return this;
  }

  private void latencyOverTime(String phase, Run run, boolean byRate) throws IOException {
    String rate = String.valueOf((long) run.load().requestedRate());
    if (!run.load().perSecond().isEmpty()) {
      Path png = files.resolve("latency-over-time-" + phase + (byRate ? "-" + rate : "") + ".png");
      Plots.latencyOverTime(run.load(), png);
      md.append("\n![latency over time, ")
          .append(phase)
          .append(byRate ? " at " + rate + "/s" : "")
          .append("](")
          .append(link(png))
          .append(")\n");
    }
    if (run.load().latencyByOp().size() > 1) {
      md.append("\nBy operation in the held run")
          .append(byRate ? " at " + rate + "/s" : "")
          .append(": ")
          .append(
              run.load().latencyByOp().entrySet().stream()
                  .sorted(Map.Entry.comparingByKey())
                  .map(e -> e.getKey() + " " + describe(e.getValue()))
                  .collect(Collectors.joining("; ")))
          .append(".\n");
    }
  }

  /** The idle CPU of the nodes, by node and by thread pool. */
  public Report idle(String heading, IdleCpu idle, List<String> notes) {
    md.append("## ").append(heading).append("\n\n");
    for (String note : notes) {
      md.append("- ").append(note).append('\n');
    }
    md.append(notes.isEmpty() ? "" : "\n")
        .append(
            String.format(
                Locale.ROOT,
                "No requests for %.0f s: %s.%n%n",
                idle.usage().elapsed().toMillis() / 1000.0,
                idle.describe()))
        .append("By thread pool: ")
        .append(PoolTable.CORE_SHARE)
        .append("\n\n")
        .append(
            PoolTable.table(List.of(new PoolTable.Column("idle " + idle.when(), idle.usage(), 0))))
        .append('\n');
    return this;
  }

  /** The warm-up curve as a table and a plot, its steady value and time, its steady account. */
  public Report warmUp(String heading, WarmUpCurve curve, double p99LimitMillis)
      throws IOException {
    md.append("## ").append(heading).append("\n\n").append(WarmUpSection.summary(curve));
    md.append("\n\n")
        .append(Table.header())
        .append(Table.row(curve.run(), "whole warm-up", p99LimitMillis));
    md.append('\n').append(WarmUpSection.curveTable(curve));
    Path png = files.resolve("warm-up.png");
    Plots.warmUp(curve, png);
    md.append("\n![warm-up curve](").append(link(png)).append(")\n\n");
    md.append("Where the nodes' CPU went in the steady part (the last third), by thread pool: ")
        .append(PoolTable.PER_REQUEST)
        .append("\n\n")
        .append(
            PoolTable.table(
                List.of(
                    new PoolTable.Column(
                        "steady, " + (long) curve.rate() + "/s",
                        curve.steady(),
                        curve.steadyRequests()))))
        .append('\n');
    return this;
  }

  /** The percentile plot of every held run of these sweeps. */
  public Report percentilePlot(List<Sweep> sweeps) throws IOException {
    List<PhaseResult> held =
        sweeps.stream().flatMap(s -> s.longRuns().stream()).map(Run::load).toList();
    if (!held.isEmpty()) {
      Path png = files.resolve("latency-percentiles.png");
      Plots.percentiles(held, png, "Latency by percentile, held runs");
      md.append("![latency by percentile](").append(link(png)).append(")\n\n");
    }
    return this;
  }

  public void write() throws IOException {
    Files.writeString(dir.resolve("report.md"), md.toString(), StandardCharsets.UTF_8);
  }

  private static String describe(Histogram h) {
    return String.format(
        Locale.ROOT,
        "p50 %s, p99 %s, p99.9 %s ms",
        Table.ms(h.getValueAtPercentile(50)),
        Table.ms(h.getValueAtPercentile(99)),
        Table.ms(h.getValueAtPercentile(99.9)));
  }
}
