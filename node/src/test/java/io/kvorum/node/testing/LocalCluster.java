package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.server.Threading;
import io.kvorum.node.topology.Member;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * The in-memory binding of {@link TestCluster}: real nodes, each with its own RocksDB and HTTP
 * port, talking over an {@link InMemoryNetwork} that can partition, slow and lose them. Peers know
 * node {@code i} as {@code n<i>.test:9090}, a name only this network resolves.
 */
public final class LocalCluster implements TestCluster {
  private final InMemoryNetwork network = new InMemoryNetwork();
  private final ClusterNodes nodes;

  private LocalCluster(UnaryOperator<TestConfig> tweak) {
    this.nodes =
        new ClusterNodes(
            ClusterNodes.temporaryRoot(),
            tweak,
            network,
            StorageFactory.ROCKSDB,
            Threading.fromSystemProperties());
  }

  /** Starts {@code size} nodes with the test defaults. */
  public static LocalCluster start(int size) {
    return start(size, UnaryOperator.identity());
  }

  /** Starts {@code size} nodes, each configured through {@code tweak}. */
  public static LocalCluster start(int size, UnaryOperator<TestConfig> tweak) {
    return start(size, tweak, id -> System::currentTimeMillis);
  }

  /** As {@link TestCluster.Factory#start(int, UnaryOperator, Function)}. */
  public static LocalCluster start(
      int size, UnaryOperator<TestConfig> tweak, Function<NodeId, LongSupplier> walls) {
    LocalCluster cluster = new LocalCluster(tweak);
    cluster.nodes.start(
        IntStream.rangeClosed(1, size).mapToObj(LocalCluster::member).toList(), walls);
    return cluster;
  }

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "n" + i + ".test", 9090);
  }

  @Override
  public int size() {
    return nodes.size();
  }

  @Override
  public TestNode node(int i) {
    return nodes.node(i);
  }

  @Override
  public int join(int via) {
    return nodes.join(member(nodes.size() + 1), "n" + via + ".test", 9090);
  }

  @Override
  public boolean serving(int i) {
    return network.endpoint(id(i)).isPresent();
  }

  @Override
  public String refusedReason() {
    return "connection refused";
  }

  @Override
  public LinkFaults links() {
    return network;
  }

  /** The network itself, for what only it can do (connect a transport made by hand). */
  public InMemoryNetwork network() {
    return network;
  }

  @Override
  public void close() {
    nodes.close();
  }
}
