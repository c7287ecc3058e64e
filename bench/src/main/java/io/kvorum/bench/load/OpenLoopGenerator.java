package io.kvorum.bench.load;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The runner's own generator: an {@link OpenLoopClient} sending a {@link Workload}'s requests. */
public final class OpenLoopGenerator implements LoadGenerator {
  private static final Duration DRAIN = Duration.ofSeconds(3);
  private final OpenLoopClient client;
  private final Workload workload;
  private final int connections;
  private final List<String> routed;
  private final Map<String, RequestSource> sources = new HashMap<>();

  /**
   * Sends over {@code connections} connections spread over {@code targets}.
   *
   * @param routed the targets' node ids, in their order, to send each key's request to a node that
   *     holds it ({@link Workload#source(String, List)}); null to send request i to target i mod
   *     targets whatever its key
   */
  public OpenLoopGenerator(
      List<InetSocketAddress> targets, Workload workload, int connections, List<String> routed) {
    this.client = new OpenLoopClient(targets);
    this.workload = workload;
    this.connections = connections;
    this.routed = routed;
  }

  @Override
  public PhaseResult atRate(String name, String phase, double rate, Duration duration) {
    return client.runAtRate(name, source(phase), rate, duration, connections, DRAIN);
  }

  @Override
  public PhaseResult flatOut(String name, String phase, int connections, Duration duration) {
    return client.runClosedFor(name, source(phase), connections, duration, DRAIN);
  }

  /** For the report: how this generator sends the load. */
  public static String describe(int connections, int targets, boolean routed) {
    return String.format(
        Locale.ROOT,
        "the runner's open-loop generator (one Netty event loop in the runner's JVM, %d"
            + " connections over %d node(s), request i to node i mod %d%s; latency from each"
            + " request's due time)",
        connections,
        targets,
        targets,
        routed
            ? ", routed: its key drawn among those whose first replica that node is, as the"
                + " placement-aware client sends it"
            : "");
  }

  /** One source per phase for the whole run, so each step continues its random sequence. */
  private RequestSource source(String phase) {
    return sources.computeIfAbsent(phase, p -> workload.source(p, routed));
  }

  @Override
  public void close() {
    client.close();
  }
}
