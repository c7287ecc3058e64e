package io.kvorum.bench.load;

import java.time.Duration;

/**
 * Sends the requests of a load phase to the nodes and measures them: the runner's own open-loop
 * generator ({@link OpenLoopGenerator}) or wrk2. Both spread the load evenly over the targets and
 * measure each latency from the time its request was due. Called from one thread at a time.
 */
public interface LoadGenerator extends AutoCloseable {
  /**
   * Sends the requests of {@code phase} (one of {@link Workload#PHASES}) at {@code rate} a second
   * for {@code duration}, and waits for their answers.
   */
  PhaseResult atRate(String name, String phase, double rate, Duration duration);

  /**
   * Sends the requests of {@code phase} as fast as the server answers them (closed loop over {@code
   * connections} connections) for {@code duration}: the server's throughput at saturation.
   * Latencies of such a run say little.
   */
  PhaseResult flatOut(String name, String phase, int connections, Duration duration);

  @Override
  void close();
}
