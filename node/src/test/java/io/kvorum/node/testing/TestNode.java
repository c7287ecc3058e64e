package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.server.Interconnect;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.server.StorageFactory;
import io.kvorum.node.server.Threading;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.topology.Zone;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/** A real node in this JVM, listening on a free port of 127.0.0.1, with a client for it. */
public final class TestNode implements AutoCloseable {
  private NodeConfig config;
  private final StorageFactory storage;
  private LocalStorage opened;
  private final Interconnect network;
  private final Threading threading;
  private final LongSupplier wall;
  private KvorumServer node;
  private KvorumClient client;

  private TestNode(
      NodeConfig config,
      StorageFactory storage,
      Interconnect network,
      Threading threading,
      LongSupplier wall) {
    this.config = config;
    this.storage = storage;
    this.network = network;
    this.threading = threading;
    this.wall = wall;
  }

  /** Starts a one-node cluster on RocksDB. */
  public static TestNode start(NodeConfig config) {
    return start(config, StorageFactory.ROCKSDB);
  }

  /** Starts a one-node cluster on the storage given. */
  public static TestNode start(NodeConfig config, StorageFactory storage) {
    return start(config, storage, new InMemoryNetwork());
  }

  /** Starts a node of a cluster whose nodes talk over {@code network}; waits until it is ready. */
  public static TestNode start(NodeConfig config, StorageFactory storage, Interconnect network) {
    return start(config, storage, network, System::currentTimeMillis);
  }

  /** Starts a node as above whose wall clock (Unix milliseconds) is {@code wall}. */
  public static TestNode start(
      NodeConfig config, StorageFactory storage, Interconnect network, LongSupplier wall) {
    TestNode node = new TestNode(config, storage, network, Threading.fromSystemProperties(), wall);
    node.boot();
    return node;
  }

  /**
   * Starts a node as above and returns once it serves HTTP, not waiting until it is ready (a
   * joining node is ready once its records are streamed): see {@link #ready()}.
   */
  public static TestNode launch(
      NodeConfig config, StorageFactory storage, Interconnect network, LongSupplier wall) {
    return launch(config, storage, network, Threading.fromSystemProperties(), wall);
  }

  /** Launches a node as above whose threads hand work on as {@code threading} says. */
  public static TestNode launch(
      NodeConfig config,
      StorageFactory storage,
      Interconnect network,
      Threading threading,
      LongSupplier wall) {
    TestNode node = new TestNode(config, storage, network, threading, wall);
    node.launch();
    return node;
  }

  private void boot() {
    launch();
    node.awaitReady();
  }

  private void launch() {
    node =
        KvorumServer.builder(config)
            .storage(
                (dir, settings, executor, threading) ->
                    opened = storage.open(dir, settings, executor, threading))
            .interconnect(network)
            .threading(threading)
            .wallClock(wall)
            .start();
    client = KvorumClient.connect("127.0.0.1", port(), Duration.ofSeconds(30));
    // A decommissioned node stops once it has left, as the process does.
    KvorumServer started = node;
    started.left().thenRunAsync(started::shutdown);
  }

  /** Waits until the node reports ready (bounded by its catch-up timeout). */
  public void awaitReady() {
    node.awaitReady();
  }

  /** Completes once the node reports ready. */
  public CompletableFuture<Void> ready() {
    KvorumServer started = node;
    return CompletableFuture.runAsync(started::awaitReady);
  }

  /** Whether the node has stopped by itself, e.g. after its decommission. */
  public boolean left() {
    return node.left().isDone();
  }

  public int port() {
    return node.httpAddress().getPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port());
  }

  public String url(String pathAndQuery) {
    return "http://127.0.0.1:" + port() + pathAndQuery;
  }

  public KvorumClient client() {
    return client;
  }

  public KvorumServer bootstrap() {
    return node;
  }

  /** This node's own records, read directly (not through any coordinator). */
  public Optional<Record> stored(String key) {
    return opened.records().get(Key.utf8(key)).join();
  }

  /** The Paxos acceptor states this node keeps. */
  public AcceptorStore acceptors() {
    return opened.acceptors();
  }

  /** The hints this node holds. */
  public HintStore hints() {
    return opened.hints();
  }

  /** A graceful stop and a start on the same data directory (a new port). */
  public void restart() {
    stop();
    boot();
  }

  /** Starts again after {@link #stop()}, on the same data directory. */
  public void startAgain() {
    boot();
  }

  /**
   * Starts again after {@link #stop()}, on the same data directory, with {@code --zone} set to
   * {@code zone} (empty for none); returns once it serves HTTP, not waiting until it is ready (it
   * is once the cluster has it in that zone): see {@link #ready()}.
   */
  public void launchInZone(String zone) {
    NodeConfig.Membership m = config.membership();
    config =
        new NodeConfig(
            config.nodeId(),
            config.topology(),
            config.http(),
            config.grpcPort(),
            config.grpcHost(),
            config.dataDir(),
            config.requestTimeout(),
            config.limits(),
            config.storage(),
            config.replication(),
            config.shutdownGrace(),
            config.maxClockOffset(),
            config.repair(),
            config.tls(),
            config.authTokens(),
            new NodeConfig.Membership(
                m.replicationFactor(),
                m.join(),
                Zone.of(zone),
                m.settleTime(),
                m.gossipInterval()));
    launch();
  }

  public boolean running() {
    return client != null;
  }

  public NodeConfig config() {
    return config;
  }

  public void stop() {
    if (client != null) {
      client.close();
      client = null;
    }
    node.shutdown();
  }

  @Override
  public void close() {
    if (client != null) {
      stop();
    }
  }
}
