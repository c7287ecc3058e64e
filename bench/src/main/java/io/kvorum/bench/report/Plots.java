package io.kvorum.bench.report;

import io.kvorum.bench.load.PhaseResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's PNG plots, drawn with XChart. */
final class Plots {
  private Plots() {}

  /** p50, p99 and max of every second of a phase, in milliseconds. */
  static void latencyOverTime(PhaseResult phase, Path png) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(400)
            .title("Latency over time: " + phase.name())
            .xAxisTitle("second of the phase")
            .yAxisTitle("latency (ms)")
            .build();
    chart.getStyler().setYAxisLogarithmic(true);
    List<Integer> seconds = new ArrayList<>();
    List<Double> p50 = new ArrayList<>();
    List<Double> p99 = new ArrayList<>();
    List<Double> max = new ArrayList<>();
    for (PhaseResult.Interval interval : phase.perSecond()) {
      seconds.add(interval.second());
      p50.add(interval.p50() / 1000.0);
      p99.add(interval.p99() / 1000.0);
      max.add(interval.max() / 1000.0);
    }
    if (seconds.isEmpty()) {
      return;
    }
    line(chart.addSeries("p50", seconds, p50));
    line(chart.addSeries("p99", seconds, p99));
    line(chart.addSeries("max", seconds, max));
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  /**
   * Latency by percentile of several phases, on the axis of HdrHistogram's plots: x is {@code
   * 1/(1-percentile)}, so 10 is p90, 100 p99, 1000 p99.9.
   */
  static void percentiles(List<PhaseResult> phases, Path png, String title) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(450)
            .title(title)
            .xAxisTitle("percentile (10 = p90, 100 = p99, 1000 = p99.9)")
            .yAxisTitle("latency (ms)")
            .build();
    chart.getStyler().setXAxisLogarithmic(true);
    chart.getStyler().setYAxisLogarithmic(true);
    for (PhaseResult phase : phases) {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (HistogramIterationValue value : phase.latency().percentiles(5)) {
        double percentile = value.getPercentileLevelIteratedTo();
        if (percentile >= 100.0) {
          break;
        }
        x.add(1 / (1 - percentile / 100.0));
        y.add(value.getValueIteratedTo() / 1000.0);
      }
      if (!x.isEmpty()) {
        line(chart.addSeries(phase.name(), x, y));
      }
    }
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  /** The warm-up curve: node CPU and the JIT's part of it per request, by window. */
  static void warmUp(WarmUpCurve curve, Path png) throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(900)
            .height(400)
            .title(String.format("Warm-up from a cold start: PUT at %.0f/s", curve.rate()))
            .xAxisTitle("seconds from the start of the load")
            .yAxisTitle("CPU µs per request")
            .build();
    chart.getStyler().setYAxisMin(0.0);
    List<Double> start = new ArrayList<>();
    List<Double> node = new ArrayList<>();
    List<Double> jit = new ArrayList<>();
    List<Double> steady = new ArrayList<>();
    for (WarmUpCurve.Window window : curve.windows()) {
      start.add(window.start().toMillis() / 1000.0);
      node.add(window.nodeMicros());
      jit.add(window.jitMicros());
      steady.add(curve.steadyMicros());
    }
    chart.addSeries("nodes", start, node);
    chart.addSeries("JIT compiler threads", start, jit);
    line(chart.addSeries("steady", start, steady));
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  private static void line(XYSeries series) {
    series.setMarker(SeriesMarkers.NONE);
  }
}
