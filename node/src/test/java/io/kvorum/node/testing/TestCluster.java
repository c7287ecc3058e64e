package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Member;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * A cluster of real nodes in this JVM ({@link TestNode}: HTTP, coordinator, RocksDB), numbered from
 * 1 with ids {@code n1}…{@code nN}, whose links a test can cut and slow, and whose nodes it can
 * stop and start again on their data. Cluster scenarios are written once against this interface, as
 * Ratis writes its scenarios against {@code MiniRaftCluster}, and bound by a small subclass to
 * {@link LocalCluster} (the in-memory network) or {@link GrpcCluster} (real gRPC over 127.0.0.1):
 * each suite to the one that shows most (docs/decisions/each-cluster-scenario-suite-runs-on-one-
 * binding.md), either when chasing a bug. Every method means the same on each.
 */
public interface TestCluster extends AutoCloseable {
  /** Starts clusters of one binding; a scenario suite is given one. */
  @FunctionalInterface
  interface Factory {
    /**
     * Starts {@code size} nodes, each configured through {@code tweak}, each with the wall clock
     * (Unix milliseconds) {@code walls} gives it (a {@link TestWallClock} to set it wrong); returns
     * once every node is ready.
     */
    TestCluster start(
        int size, UnaryOperator<TestConfig> tweak, Function<NodeId, LongSupplier> walls);

    /** Starts {@code size} nodes with the test defaults. */
    default TestCluster start(int size) {
      return start(size, UnaryOperator.identity());
    }

    /** Starts {@code size} nodes, each configured through {@code tweak}. */
    default TestCluster start(int size, UnaryOperator<TestConfig> tweak) {
      return start(size, tweak, id -> System::currentTimeMillis);
    }

    /**
     * This binding with {@code also} applied to every node's configuration after the scenario's own
     * tweak (nodes that join later included), e.g. a suite's shorter gossip interval.
     */
    default Factory with(UnaryOperator<TestConfig> also) {
      Factory binding = this;
      return (size, tweak, walls) -> binding.start(size, c -> also.apply(tweak.apply(c)), walls);
    }
  }

  /** How many nodes there are, joined ones included (stopped ones too). */
  int size();

  /** Node {@code i}, counted from 1. */
  TestNode node(int i);

  default NodeId id(int i) {
    return node(i).config().nodeId();
  }

  default List<NodeId> ids() {
    return IntStream.rangeClosed(1, size()).mapToObj(this::id).toList();
  }

  /** Node {@code i}'s address as its peers know it ({@code host:port}). */
  default String peerAddress(int i) {
    Member member = node(i).config().topology().member(id(i)).orElseThrow();
    return member.host() + ":" + member.grpcPort();
  }

  /** A client of node {@code i}, counted from 1. */
  default KvorumClient client(int i) {
    return node(i).client();
  }

  /** Stops node {@code i} gracefully; its data stays. */
  default void stop(int i) {
    node(i).stop();
  }

  /** Starts node {@code i} again on its data (and at its address for peers); returns once ready. */
  default void startNode(int i) {
    node(i).startAgain();
  }

  /**
   * Starts node {@code i} again on its data without waiting for it; the future completes once it is
   * ready.
   */
  default CompletableFuture<Void> startNodeInBackground(int i) {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("start-" + id(i))
        .start(
            () -> {
              try {
                startNode(i);
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
  int join(int via);

  /** Whether node {@code i} serves its peers (it may still be catching up). */
  boolean serving(int i);

  /**
   * Why a node's transport says a call to a peer that is down failed: its connection was refused,
   * in this binding's words (as a 504 names the peer in {@code failed}).
   */
  String refusedReason();

  /** The faults on the links between the nodes. */
  LinkFaults links();

  /** Cuts node {@code a} and node {@code b} off from each other. */
  default void partition(int a, int b) {
    links().partition(id(a), id(b));
  }

  /** Cuts node {@code i} off from every other node. */
  default void isolate(int i) {
    links().isolate(id(i), ids());
  }

  /** Restores every link and removes every delay. */
  default void heal() {
    links().heal();
  }

  /** Messages from node {@code from} to node {@code to} take {@code delay} to arrive. */
  default void delay(int from, int to, Duration delay) {
    links().delay(id(from), id(to), delay);
  }

  /**
   * Slows both directions between node {@code a} and node {@code b} at random until closed; a fifth
   * of the messages take {@code spike} ({@link LinkChaos}).
   */
  default LinkChaos chaos(int a, int b, Duration spike, long seed) {
    return LinkChaos.start(links(), id(a), id(b), spike, seed);
  }

  /** Stops every node still running and deletes their data. */
  @Override
  void close();
}
