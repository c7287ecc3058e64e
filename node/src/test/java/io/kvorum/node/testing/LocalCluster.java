package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.StorageFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A cluster of real nodes in one JVM: each with its own RocksDB and HTTP port, talking over an
 * {@link InMemoryNetwork} that can partition, slow and lose them. Nodes are {@code n1}…{@code nN}
 * and can be stopped and started again on their data.
 */
public final class LocalCluster implements AutoCloseable {
  private final Path root;
  private final InMemoryNetwork network = new InMemoryNetwork();
  private final List<TestNode> nodes = new ArrayList<>();
  private final List<NodeId> ids;
  private final UnaryOperator<TestConfig> tweak;

  private LocalCluster(
      Path root, int size, UnaryOperator<TestConfig> tweak, Function<NodeId, LongSupplier> walls) {
    this.root = root;
    this.tweak = tweak;
    this.ids =
        new ArrayList<>(IntStream.rangeClosed(1, size).mapToObj(i -> NodeId.of("n" + i)).toList());
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      members.add(new Member(ids.get(i), "n" + (i + 1) + ".test", 9090));
    }
    for (NodeId id : ids) {
      TestConfig config =
          tweak.apply(TestConfig.in(root.resolve(id.value())).topology(new Topology(id, members)));
      nodes.add(TestNode.start(config.build(), StorageFactory.ROCKSDB, network, walls.apply(id)));
    }
  }

  /** Starts {@code size} nodes with the test defaults. */
  public static LocalCluster start(int size) {
    return start(size, UnaryOperator.identity());
  }

  /** Starts {@code size} nodes, each configured through {@code tweak}. */
  public static LocalCluster start(int size, UnaryOperator<TestConfig> tweak) {
    return start(size, tweak, id -> System::currentTimeMillis);
  }

  /**
   * Starts {@code size} nodes, each configured through {@code tweak}, each with the wall clock
   * (Unix milliseconds) {@code walls} gives it: a {@link TestWallClock} to set it wrong.
   */
  public static LocalCluster start(
      int size, UnaryOperator<TestConfig> tweak, Function<NodeId, LongSupplier> walls) {
    try {
      return new LocalCluster(Files.createTempDirectory("kvorum-cluster"), size, tweak, walls);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int size() {
    return nodes.size();
  }

  /** Node {@code i}, counted from 1. */
  public TestNode node(int i) {
    return nodes.get(i - 1);
  }

  public NodeId id(int i) {
    return ids.get(i - 1);
  }

  public List<NodeId> ids() {
    return List.copyOf(ids);
  }

  /** A client of node {@code i}, counted from 1. */
  public KvorumClient client(int i) {
    return node(i).client();
  }

  /** Stops node {@code i} gracefully; its data stays. */
  public void stop(int i) {
    node(i).stop();
  }

  /** Starts node {@code i} again on its data; returns once it is ready. */
  public void startNode(int i) {
    node(i).startAgain();
  }

  /**
   * Starts node {@code i} again on its data without waiting for it; the future completes once it is
   * ready.
   */
  public CompletableFuture<Void> startNodeInBackground(int i) {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("start-" + id(i))
        .start(
            () -> {
              try {
                node(i).startAgain();
                ready.complete(null);
              } catch (Throwable e) {
                ready.completeExceptionally(e);
              }
            });
    return ready;
  }

  /**
   * Starts a new node, {@code n<size + 1>}, on an empty data directory, joining the cluster through
   * node {@code via}; returns once it serves HTTP. It is ready ({@link TestNode#ready()}) once it
   * has streamed its records and become a normal member.
   *
   * @return the new node's number
   */
  public int join(int via) {
    int i = nodes.size() + 1;
    NodeId id = NodeId.of("n" + i);
    Member self = new Member(id, "n" + i + ".test", 9090);
    TestConfig config =
        tweak
            .apply(
                TestConfig.in(root.resolve(id.value())).topology(new Topology(id, List.of(self))))
            .join("n" + via + ".test", 9090);
    ids.add(id);
    nodes.add(
        TestNode.launch(
            config.build(), StorageFactory.ROCKSDB, network, System::currentTimeMillis));
    return i;
  }

  /** Whether node {@code i} serves its peers (it may still be catching up). */
  public boolean serving(int i) {
    return network.endpoint(id(i)).isPresent();
  }

  /** Cuts node {@code a} and node {@code b} off from each other. */
  public void partition(int a, int b) {
    network.partition(id(a), id(b));
  }

  /** Cuts node {@code i} off from every other node. */
  public void isolate(int i) {
    network.isolate(id(i), ids);
  }

  public void heal() {
    network.heal();
  }

  public InMemoryNetwork network() {
    return network;
  }

  @Override
  public void close() {
    nodes.stream().filter(TestNode::running).forEach(TestNode::close);
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory; nothing more to do
    }
  }
}
