package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/** Writes {@code report.md} and its plots into a run's results directory. */
public final class Report {
  private final Path dir;
  private final StringBuilder md = new StringBuilder();
  private final List<Sweep> sweeps = new ArrayList<>();

  public Report(Path dir, String title) {
    this.dir = dir;
    md.append("# ").append(title).append("\n\n");
  }

  public Report text(String markdown) {
    md.append(markdown).append("\n\n");
    return this;
  }

  /** A table of the sweep's steps and its sustained run, with the latency-over-time plot. */
  public Report sweep(Sweep sweep, double p99LimitMillis) throws IOException {
    sweeps.add(sweep);
    md.append("## ").append(sweep.phase()).append("\n\n");
    md.append(header());
    for (PhaseResult step : sweep.steps()) {
      md.append(row(step, step.name().contains(" for ") ? "sustained" : "step", p99LimitMillis));
    }
    if (sweep.sustained() != null) {
      md.append(row(sweep.sustained(), "**sustained**", p99LimitMillis));
      String png = "latency-over-time-" + sweep.phase() + ".png";
      Plots.latencyOverTime(sweep.sustained(), dir.resolve(png));
      md.append("\n![latency over time, ")
          .append(sweep.phase())
          .append("](")
          .append(png)
          .append(")\n");
      if (sweep.sustained().latencyByOp().size() > 1) {
        md.append("\nBy operation in the sustained run: ");
        md.append(
            sweep.sustained().latencyByOp().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + " " + describe(e.getValue()))
                .collect(Collectors.joining("; ")));
        md.append(".\n");
      }
    } else {
      md.append("\nNo rate met p99 < ").append(p99LimitMillis).append(" ms without errors.\n");
    }
    md.append('\n');
    return this;
  }

  /** The headline: the highest rate of each phase that held for the whole run. */
  public Report headline(double p99LimitMillis) {
    md.append("## Headline\n\nHighest rate held for the whole sustained run with p99 < ")
        .append(fmt(p99LimitMillis))
        .append(" ms and no errors:\n\n");
    md.append(header());
    for (Sweep sweep : sweeps) {
      if (sweep.sustained() != null) {
        md.append(row(sweep.sustained(), sweep.phase(), p99LimitMillis));
      } else {
        md.append("| ").append(sweep.phase()).append(" | none |||||||||\n");
      }
    }
    md.append('\n');
    return this;
  }

  /** The percentile plot of every sustained run. */
  public Report percentilePlot() throws IOException {
    List<PhaseResult> sustained =
        sweeps.stream().map(Sweep::sustained).filter(s -> s != null).toList();
    if (!sustained.isEmpty()) {
      Plots.percentiles(
          sustained, dir.resolve("latency-percentiles.png"), "Latency by percentile, sustained");
      md.append("![latency by percentile](latency-percentiles.png)\n\n");
    }
    return this;
  }

  public void write() throws IOException {
    Files.writeString(dir.resolve("report.md"), md.toString(), StandardCharsets.UTF_8);
  }

  public static String header() {
    return "| run | rate | achieved | p50 | p90 | p99 | p99.9 | max | errors | verdict |\n"
        + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
  }

  /** One table row; latencies in milliseconds. */
  public static String row(PhaseResult r, String label, double p99LimitMillis) {
    Histogram h = r.latency();
    String errors =
        r.errors().isEmpty()
            ? "0"
            : r.errors().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining(", "));
    return String.format(
        Locale.ROOT,
        "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |%n",
        label,
        r.requestedRate() > 0 ? String.format(Locale.ROOT, "%.0f", r.requestedRate()) : "max",
        r.achievedRate(),
        ms(h.getValueAtPercentile(50)),
        ms(h.getValueAtPercentile(90)),
        ms(h.getValueAtPercentile(99)),
        ms(h.getValueAtPercentile(99.9)),
        ms(h.getMaxValue()),
        errors,
        passes(r, p99LimitMillis) ? "pass" : "fail");
  }

  /** No errors, p99 under the limit, and the generator kept the rate. */
  public static boolean passes(PhaseResult r, double p99LimitMillis) {
    return r.errorCount() == 0
        && r.latency().getTotalCount() > 0
        && r.p99Micros() < p99LimitMillis * 1000
        && r.achievedRate() >= 0.98 * r.requestedRate();
  }

  private static String describe(Histogram h) {
    return String.format(
        Locale.ROOT,
        "p50 %s, p99 %s, p99.9 %s ms",
        ms(h.getValueAtPercentile(50)),
        ms(h.getValueAtPercentile(99)),
        ms(h.getValueAtPercentile(99.9)));
  }

  public static String ms(long micros) {
    return fmt(micros / 1000.0);
  }

  private static String fmt(double millis) {
    return millis >= 100
        ? String.format(Locale.ROOT, "%.0f", millis)
        : String.format(Locale.ROOT, "%.2f", millis);
  }
}
