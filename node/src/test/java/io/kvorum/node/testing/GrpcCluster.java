package io.kvorum.node.testing;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.Interconnect;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.server.Threading;
import io.kvorum.node.topology.Member;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * The gRPC binding of {@link TestCluster}: nodes as in production but for the process, real gRPC
 * between them over 127.0.0.1 (each node on free ports, its gRPC port kept across restarts), each
 * on its own RocksDB and its own event loops. Links are cut and slowed in each node's transport
 * ({@link FaultyInterconnect}); a stopped node really closes its port.
 */
public final class GrpcCluster implements TestCluster {
  /** How long starting a node waits at most for its connections to be up. */
  private static final Duration CONNECTING = Duration.ofSeconds(5);

  private final FaultyInterconnect interconnect = new FaultyInterconnect(Interconnect.GRPC);
  private final ClusterNodes nodes;
  private final Queue<String> storageSubmitters = new ConcurrentLinkedQueue<>();

  private GrpcCluster(
      Path root, UnaryOperator<TestConfig> tweak, Threading threading, boolean noteSubmitters) {
    StorageFactory rocksDb = StorageFactory.ROCKSDB;
    StorageFactory storage =
        noteSubmitters
            ? (directory, settings, executor, choice) ->
                rocksDb.open(directory, settings, new Noting(executor, storageSubmitters), choice)
            : rocksDb;
    this.nodes = new ClusterNodes(root, tweak, interconnect, storage, threading);
  }

  /** Starts {@code size} nodes with the test defaults. */
  public static GrpcCluster start(int size) {
    return start(size, UnaryOperator.identity());
  }

  /** Starts {@code size} nodes, each configured through {@code tweak}. */
  public static GrpcCluster start(int size, UnaryOperator<TestConfig> tweak) {
    return start(size, tweak, id -> System::currentTimeMillis);
  }

  /** As {@link TestCluster.Factory#start(int, UnaryOperator, Function)}. */
  public static GrpcCluster start(
      int size, UnaryOperator<TestConfig> tweak, Function<NodeId, LongSupplier> walls) {
    GrpcCluster cluster =
        new GrpcCluster(
            ClusterNodes.temporaryRoot(), tweak, Threading.fromSystemProperties(), false);
    return cluster.started(size, walls);
  }

  /**
   * Starts {@code size} nodes with data under {@code root}, handing work between threads as {@code
   * threading} says; every node's storage executor notes which thread handed it each task ({@link
   * #storageSubmitters}), so a test can see which requests reached a storage thread and from where.
   */
  public static GrpcCluster start(int size, Path root, Threading threading) {
    return new GrpcCluster(root, UnaryOperator.identity(), threading, true)
        .started(size, id -> System::currentTimeMillis);
  }

  private GrpcCluster started(int size, Function<NodeId, LongSupplier> walls) {
    try {
      nodes.start(IntStream.rangeClosed(1, size).mapToObj(GrpcCluster::member).toList(), walls);
    } catch (RuntimeException e) {
      interconnect.close();
      throw e;
    }
    ids().forEach(id -> interconnect.awaitConnected(id, CONNECTING));
    return this;
  }

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "127.0.0.1", NodeProcess.freePort());
  }

  @Override
  public int size() {
    return nodes.size();
  }

  @Override
  public TestNode node(int i) {
    return nodes.node(i);
  }

  /** Ready, and connected to the nodes serving and they to it (within a bound). */
  @Override
  public void startNode(int i) {
    node(i).startAgain();
    interconnect.awaitConnected(id(i), CONNECTING);
  }

  @Override
  public int join(int via) {
    return nodes.join(member(nodes.size() + 1), "127.0.0.1", node(via).config().grpcPort());
  }

  @Override
  public boolean serving(int i) {
    return interconnect.serving(id(i));
  }

  /** A new stream to a closed port: gRPC's status for a refused connection. */
  @Override
  public String refusedReason() {
    return "its stream failed: UNAVAILABLE (io exception)";
  }

  @Override
  public LinkFaults links() {
    return interconnect;
  }

  /** The names of the threads that handed the nodes' storage a task, oldest first. */
  public List<String> storageSubmitters() {
    return List.copyOf(storageSubmitters);
  }

  public void clearStorageSubmitters() {
    storageSubmitters.clear();
  }

  @Override
  public void close() {
    nodes.close();
    interconnect.close();
  }

  /** An executor that notes the thread handing it each task, then runs it as its delegate does. */
  private static final class Noting extends AbstractExecutorService {
    private final ExecutorService delegate;
    private final Queue<String> submitters;

    Noting(ExecutorService delegate, Queue<String> submitters) {
      this.delegate = delegate;
      this.submitters = submitters;
    }

    @Override
    public void execute(Runnable task) {
      submitters.add(Thread.currentThread().getName());
      delegate.execute(task);
    }

    @Override
    public void shutdown() {
      delegate.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
      return delegate.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
      return delegate.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return delegate.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return delegate.awaitTermination(timeout, unit);
    }
  }
}
