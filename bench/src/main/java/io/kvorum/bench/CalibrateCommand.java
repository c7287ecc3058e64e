package io.kvorum.bench;

import io.kvorum.bench.load.OpenLoopClient;
import io.kvorum.bench.load.Request;
import io.kvorum.bench.measure.ProcFs;
import io.kvorum.bench.measure.UsageMeter;
import io.kvorum.bench.report.Run;
import io.kvorum.bench.report.Table;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bench/run.sh calibrate}: the generator against a server that does nothing (nginx answering
 * 204), to show what rate and latency the generator itself can deliver on this machine. ({@code
 * bench/run.sh --calibrate} does the same within a benchmark run.)
 */
@Command(
    name = "calibrate",
    mixinStandardHelpOptions = true,
    description =
        "Runs the open-loop generator against a trivial server (see bench/tools/calibrate.sh).")
final class CalibrateCommand implements Callable<Integer> {
  @Option(names = "--url", required = true, description = "e.g. http://127.0.0.1:18999/")
  URI url;

  @Option(names = "--expect", description = "Status of a success (default: ${DEFAULT-VALUE}).")
  int expect = 204;

  @Option(names = "--rates", split = ",", description = "Rates to run (default: ${DEFAULT-VALUE}).")
  List<Integer> rates = List.of(10000, 20000, 40000, 60000, 80000);

  @Option(names = "--duration", description = "Length of each rate (default: 30s).")
  Duration duration = Duration.ofSeconds(30);

  @Option(names = "--connections", description = "Connections (default: ${DEFAULT-VALUE}).")
  int connections = 128;

  @Override
  public Integer call() {
    String path =
        (url.getRawPath().isEmpty() ? "/" : url.getRawPath())
            + (url.getRawQuery() != null ? "?" + url.getRawQuery() : "");
    byte[] bytes =
        ("GET " + path + " HTTP/1.1\r\nHost: " + url.getHost() + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    Request request = new Request("get", bytes, expect);
    // Only the generator's own CPU: the server is not the runner's to watch here.
    Measurer measurer =
        new Measurer(
            new UsageMeter(ProcFs.system(), List.of(), ProcessHandle.current().pid()), List.of());
    System.out.print(Table.header());
    try (OpenLoopClient client =
        new OpenLoopClient(List.of(new InetSocketAddress(url.getHost(), url.getPort())))) {
      client.runAtRate(
          "warm-up", seq -> request, rates.get(0), duration, connections, Duration.ofSeconds(3));
      for (int rate : rates) {
        Run run =
            measurer.measure(
                () ->
                    client.runAtRate(
                        "calibrate@" + rate,
                        seq -> request,
                        rate,
                        duration,
                        connections,
                        Duration.ofSeconds(3)));
        System.out.print(Table.row(run, String.valueOf(rate), 10));
        System.out.printf("   (generator late by at most %d us)%n", run.load().maxSendLagMicros());
      }
    }
    return 0;
  }
}
