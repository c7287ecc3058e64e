package io.kvorum.bench.jmh;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.RendezvousPlacement;
import io.kvorum.node.topology.Zone;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rendezvous placement: the replicas of a key for {@code from} = 3 in clusters of 3 and 12 nodes
 * (every request of the coordinator does this once), without zones and with the nodes spread round
 * three zones (SPEC §3).
 *
 * <pre>
 * java -jar bench/target/benchmarks.jar PlacementBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PlacementBenchmark {
  @Param({"3", "12"})
  int nodes;

  /** 1: no node names a zone; 3: node i in zone i mod 3. */
  @Param({"1", "3"})
  int zones;

  private RendezvousPlacement placement;
  private Key[] keys;
  private int next;

  @Setup
  public void setUp() {
    Map<NodeId, Zone> each = new LinkedHashMap<>();
    for (int i = 0; i < nodes; i++) {
      each.put(new NodeId("node-" + i), zones == 1 ? Zone.NONE : Zone.of("zone-" + i % zones));
    }
    placement = RendezvousPlacement.zoned(each);
    keys =
        IntStream.range(0, 1024)
            .mapToObj(i -> Key.utf8(String.format("k%010d", i * 7919L)))
            .toArray(Key[]::new);
  }

  @Benchmark
  public List<NodeId> replicasOfThree() {
    next = (next + 1) & 1023;
    return placement.replicas(keys[next], 3);
  }
}
