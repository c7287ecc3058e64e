package io.kvorum.node.membership;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.TestCluster;
import io.kvorum.node.topology.RendezvousPlacement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A quorum write load on a test cluster and its history: every key has one writer, which writes
 * increasing values one at a time, so after the load a quorum read of a key must return its last
 * acknowledged value or a later one whose write failed (a failed write may still have been
 * applied). Nothing acknowledged may be lost.
 */
final class MembershipLoad implements AutoCloseable {
  private final TestCluster cluster;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> writers = new ArrayList<>();
  private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
  private final Map<String, Set<Long>> unsure = new ConcurrentHashMap<>();
  private final AtomicLong writes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  /**
   * @param coordinators which node each write goes to (a live one)
   */
  MembershipLoad(TestCluster cluster, int threads, int keysPerThread, IntSupplier coordinators) {
    this.cluster = cluster;
    for (int t = 0; t < threads; t++) {
      int thread = t;
      writers.add(
          Thread.ofPlatform()
              .daemon()
              .name("load-" + t)
              .start(() -> write(thread, keysPerThread, coordinators)));
    }
  }

  private void write(int thread, int keys, IntSupplier coordinators) {
    long value = 0;
    while (running.get()) {
      for (int k = 0; k < keys && running.get(); k++) {
        String key = "load-" + thread + "-" + k;
        value++;
        KvorumClient client = cluster.client(coordinators.getAsInt());
        try {
          client.put(key, Long.toString(value));
          acknowledged.put(key, value);
          unsure.remove(key);
          writes.incrementAndGet();
        } catch (RuntimeException e) {
          // A client error, a lost connection, or a node stopped under the writer: unknown outcome.
          unsure.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet()).add(value);
          failures.incrementAndGet();
        }
      }
    }
  }

  long writes() {
    return writes.get();
  }

  long failures() {
    return failures.get();
  }

  Set<String> keys() {
    return acknowledged.keySet();
  }

  /** Stops the writers and waits for them. */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread writer : writers) {
      writer.join();
    }
  }

  /** Every acknowledged write is read back at quorum through {@code node}. */
  void assertNothingLost(int node) {
    List<String> lost = new ArrayList<>();
    for (Map.Entry<String, Long> expected : acknowledged.entrySet()) {
      Optional<String> read = cluster.client(node).getUtf8(expected.getKey());
      Set<Long> allowed = new HashSet<>(unsure.getOrDefault(expected.getKey(), Set.of()));
      allowed.add(expected.getValue());
      if (read.isEmpty() || !allowed.contains(Long.parseLong(read.get()))) {
        lost.add(expected.getKey() + " read " + read + ", acknowledged " + expected.getValue());
      }
    }
    assertThat(lost).as("acknowledged writes lost").isEmpty();
  }

  /** The keys not stored on exactly their replicas among {@code members} (others are gone). */
  static List<String> misplaced(TestCluster cluster, Set<String> keys, List<NodeId> members) {
    return misplaced(cluster, keys, new RendezvousPlacement(members), 3);
  }

  /**
   * The keys of {@code from} copies not stored on exactly their replicas under {@code placement}
   * (nodes it does not rank are gone).
   */
  static List<String> misplaced(
      TestCluster cluster, Set<String> keys, RendezvousPlacement placement, int from) {
    List<NodeId> members = new ArrayList<>();
    for (int i = 1; i <= cluster.size(); i++) {
      members.add(cluster.id(i));
    }
    members.retainAll(placement.replicas(Key.utf8("any"), placement.clusterSize()));
    List<String> wrong = new ArrayList<>();
    for (String key : keys) {
      List<NodeId> owners = placement.replicas(Key.of(key.getBytes(UTF_8)), from);
      for (int i = 1; i <= cluster.size(); i++) {
        NodeId id = cluster.id(i);
        if (!members.contains(id)) {
          continue;
        }
        boolean stored = cluster.node(i).stored(key).isPresent();
        if (stored != owners.contains(id)) {
          wrong.add(key + (stored ? " on " : " missing on ") + id);
        }
      }
    }
    return wrong;
  }
}
