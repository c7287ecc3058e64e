package io.kvorum.bench;

import io.kvorum.bench.cluster.Nginx;
import io.kvorum.bench.load.LoadGenerator;
import io.kvorum.bench.load.Workload;
import io.kvorum.bench.measure.ProcFs;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.Report;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.Table;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * {@code --calibrate}: the run's generator against nginx answering an empty 204, before any node
 * starts, so that the headline can compare kvorum with the ceiling of any HTTP server on this
 * machine measured by the same generator in the same run. As many targets as nodes, all nginx, so
 * the generator sends as it will to the cluster (wrk2: one process per node).
 */
final class Calibration {
  private static final PrintStream OUT = System.out;

  private Calibration() {}

  static List<Run> run(BenchCommand command, Plan plan, Workload workload, Path dir, Report report)
      throws Exception {
    Path nginxDir = dir.resolve("nginx");
    List<Run> runs = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    OUT.printf("%n== nginx, the ceiling ==%n");
    try (Nginx nginx = Nginx.start(nginxDir, command.nginxPort)) {
      List<InetSocketAddress> targets =
          Collections.nCopies(
              command.nodes,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), command.nginxPort));
      Measurer measurer =
          new Measurer(
              new UsageMeter(ProcFs.system(), nginx.pids(), ProcessHandle.current().pid()),
              List.of());
      try (LoadGenerator generator = command.generator(nginxDir, workload, targets)) {
        int first = command.calibrate.get(0);
        if (!plan.warmUp().isZero()) {
          generator.atRate("nginx warm-up", "empty", first, plan.warmUp());
        }
        OUT.print(Table.header());
        for (int rate : command.calibrate) {
          Run run =
              measurer.measure(() -> generator.atRate("nginx@" + rate, "empty", rate, plan.step()));
          OUT.print(Table.row(run, String.valueOf(rate), plan.p99LimitMillis()));
          runs.add(run);
          labels.add("nginx");
        }
      }
    }
    report.runs("nginx `return 204`: the ceiling, same run", runs, labels, plan.p99LimitMillis());
    report.text(
        "nginx (all workers, keep-alive, no log) with the same generator and connections as the"
            + " nodes get, "
            + plan.step().toSeconds()
            + " s per rate, before any node started. Here \"node µs/req\" is nginx's CPU per"
            + " request (master and workers) and \"all\" adds the generator's: the least an HTTP"
            + " exchange costs on this machine.");
    return runs;
  }
}
