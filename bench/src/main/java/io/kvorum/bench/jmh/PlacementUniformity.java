package io.kvorum.bench.jmh;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.RendezvousPlacement;
import io.kvorum.node.topology.Zone;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How evenly zone-aware placement spreads records (SPEC §3): the records each node holds for keys
 * {@code "0"}… with {@code from} = 3, for clusters of 6 and 9 nodes in even and uneven zones. Not a
 * JMH benchmark, a count; its table goes in docs/performance.md.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.kvorum.bench.jmh.PlacementUniformity [keys]
 * </pre>
 */
public final class PlacementUniformity {
  private PlacementUniformity() {}

  public static void main(String[] args) {
    int keys = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    System.out.printf(Locale.ROOT, "%,d keys, from = 3%n%n", keys);
    layout(keys, "6 nodes, no zones", "", "", "", "", "", "");
    layout(keys, "6 nodes, 3 even zones", "a", "a", "b", "b", "c", "c");
    layout(keys, "6 nodes, uneven zones 3+2+1", "a", "a", "a", "b", "b", "c");
    layout(keys, "6 nodes, 2 even zones", "a", "a", "a", "b", "b", "b");
    layout(keys, "9 nodes, no zones", "", "", "", "", "", "", "", "", "");
    layout(keys, "9 nodes, 3 even zones", "a", "a", "a", "b", "b", "b", "c", "c", "c");
    layout(keys, "9 nodes, uneven zones 4+3+2", "a", "a", "a", "a", "b", "b", "b", "c", "c");
    layout(keys, "9 nodes, uneven zones 5+2+2", "a", "a", "a", "a", "a", "b", "b", "c", "c");
  }

  private static void layout(int keys, String name, String... zones) {
    Map<NodeId, Zone> each = new LinkedHashMap<>();
    for (int i = 0; i < zones.length; i++) {
      each.put(NodeId.of("node-" + i), Zone.of(zones[i]));
    }
    RendezvousPlacement placement = RendezvousPlacement.zoned(each);
    Map<NodeId, Integer> held = new LinkedHashMap<>();
    each.keySet().forEach(node -> held.put(node, 0));
    for (int k = 0; k < keys; k++) {
      for (NodeId node : placement.replicas(Key.utf8(Integer.toString(k)), 3)) {
        held.merge(node, 1, Integer::sum);
      }
    }
    StringBuilder line = new StringBuilder(name).append(":");
    each.forEach(
        (node, zone) ->
            line.append(
                String.format(
                    Locale.ROOT,
                    " %s%s=%,d",
                    node.value(),
                    zone.named() ? "/" + zone : "",
                    held.get(node))));
    System.out.println(line);
    Map<Zone, int[]> perZone = new LinkedHashMap<>();
    each.forEach(
        (node, zone) -> {
          int[] range = perZone.computeIfAbsent(zone, z -> new int[] {Integer.MAX_VALUE, 0});
          range[0] = Math.min(range[0], held.get(node));
          range[1] = Math.max(range[1], held.get(node));
        });
    perZone.forEach(
        (zone, range) ->
            System.out.printf(
                Locale.ROOT,
                "  zone %s: %,d to %,d per node (spread %.2f%% of the mean)%n",
                zone,
                range[0],
                range[1],
                200.0 * (range[1] - range[0]) / (range[0] + range[1])));
  }
}
