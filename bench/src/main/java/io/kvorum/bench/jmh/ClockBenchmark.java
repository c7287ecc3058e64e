package io.kvorum.bench.jmh;

import io.kvorum.node.clock.CeilingStore;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.core.Version;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hybrid logical clock: {@code now()} for every write, {@code observe()} for every message from
 * a peer. The ceiling store is in memory here, so this is the clock's own cost; the real store
 * writes a file about once a second. Run it with {@code -t 2} too, to see contention on the clock.
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar ClockBenchmark -t 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClockBenchmark {
  private HybridLogicalClock clock;

  @Setup
  public void setUp() {
    clock =
        HybridLogicalClock.start(
            new CeilingStore() {
              private volatile long ceiling;

              @Override
              public long load() {
                return ceiling;
              }

              @Override
              public void store(long ceilingMillis) {
                ceiling = ceilingMillis;
              }
            });
  }

  @Benchmark
  public Version now() {
    return clock.now();
  }

  @Benchmark
  public Version observeThenNow() {
    clock.observe(clock.current());
    return clock.now();
  }
}
