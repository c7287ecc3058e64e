package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.Interconnect;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.server.Threading;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The nodes of a {@link TestCluster} whatever their interconnect: each started from its {@link
 * TestConfig} in its own data directory under one root, on RocksDB unless told otherwise.
 */
final class ClusterNodes implements AutoCloseable {
  private final Path root;
  private final UnaryOperator<TestConfig> tweak;
  private final Interconnect interconnect;
  private final StorageFactory storage;
  private final Threading threading;
  private final List<TestNode> nodes = new CopyOnWriteArrayList<>();

  ClusterNodes(
      Path root,
      UnaryOperator<TestConfig> tweak,
      Interconnect interconnect,
      StorageFactory storage,
      Threading threading) {
    this.root = root;
    this.tweak = tweak;
    this.interconnect = interconnect;
    this.storage = storage;
    this.threading = threading;
  }

  /** A new temporary directory for a cluster's data. */
  static Path temporaryRoot() {
    try {
      return Files.createTempDirectory("kvorum-cluster");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts a node for each of {@code members}, all members of one cluster, the wall clock of each
   * from {@code walls}; returns once every one is ready. If one fails to start, those started are
   * stopped.
   */
  void start(List<Member> members, Function<NodeId, LongSupplier> walls) {
    try {
      for (Member member : members) {
        NodeId id = member.id();
        TestConfig config =
            tweak.apply(
                TestConfig.in(root.resolve(id.value())).topology(new Topology(id, members)));
        nodes.add(launch(config, walls.apply(id)));
      }
      nodes.forEach(TestNode::awaitReady);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Starts {@code self} on an empty data directory, joining the cluster through the member at
   * {@code host}:{@code port}; returns once it serves HTTP.
   *
   * @return its number
   */
  int join(Member self, String host, int port) {
    TestConfig config =
        tweak
            .apply(
                TestConfig.in(root.resolve(self.id().value()))
                    .topology(new Topology(self.id(), List.of(self))))
            .join(host, port);
    nodes.add(launch(config, System::currentTimeMillis));
    return nodes.size();
  }

  private TestNode launch(TestConfig config, LongSupplier wall) {
    return TestNode.launch(config.build(), storage, interconnect, threading, wall);
  }

  int size() {
    return nodes.size();
  }

  /** Node {@code i}, counted from 1. */
  TestNode node(int i) {
    return nodes.get(i - 1);
  }

  /** Stops the nodes still running and deletes their data. */
  @Override
  public void close() {
    // At once: over gRPC a stopping node waits a while for its peers' open streams to end.
    List<Thread> closing =
        nodes.stream()
            .filter(TestNode::running)
            .map(node -> Thread.ofPlatform().daemon().start(node::close))
            .toList();
    for (Thread thread : closing) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory; nothing more to do
    }
  }
}
