package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.server.Threading;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Nodes {@code n1}…{@code nN} of a cluster in this JVM, as in production but for the process: real
 * gRPC between them over 127.0.0.1, each on its own RocksDB and its own event loops, handing work
 * between threads as {@link Threading} says. Every node's storage executor notes which thread
 * handed it each task, so a test can see which requests reached a storage thread and from where.
 */
public final class GrpcCluster implements AutoCloseable {
  private final List<KvorumServer> nodes = new ArrayList<>();
  private final List<KvorumClient> clients = new ArrayList<>();
  private final Queue<String> storageSubmitters = new ConcurrentLinkedQueue<>();

  private GrpcCluster(int size, Path root, Threading threading) {
    List<Member> members = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      members.add(new Member(NodeId.of("n" + i), "127.0.0.1", NodeProcess.freePort()));
    }
    StorageFactory storage =
        (directory, settings, executor) ->
            StorageFactory.ROCKSDB.open(
                directory, settings, new Noting(executor, storageSubmitters));
    try {
      for (Member member : members) {
        NodeId id = member.id();
        nodes.add(
            KvorumServer.builder(
                    TestConfig.in(root.resolve(id.value()))
                        .topology(new Topology(id, members))
                        .build())
                .storage(storage)
                .threading(threading)
                .start());
      }
      for (KvorumServer node : nodes) {
        node.awaitReady();
        clients.add(
            KvorumClient.connect(
                "127.0.0.1", node.httpAddress().getPort(), Duration.ofSeconds(10)));
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts {@code size} nodes with data under {@code root}; returns once all are ready. */
  public static GrpcCluster start(int size, Path root, Threading threading) {
    return new GrpcCluster(size, root, threading);
  }

  /** Node {@code i}, counted from 1. */
  public KvorumServer node(int i) {
    return nodes.get(i - 1);
  }

  /** A client of node {@code i}, counted from 1; it keeps its connection open between requests. */
  public KvorumClient client(int i) {
    return clients.get(i - 1);
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
    clients.forEach(KvorumClient::close);
    nodes.forEach(KvorumServer::shutdown);
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
