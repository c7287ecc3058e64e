package io.kvorum.node.testing;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.NodeBootstrap;
import io.kvorum.node.config.NodeConfig;
import java.net.InetSocketAddress;
import java.time.Duration;

/** A real node in this JVM, listening on a free port of 127.0.0.1, with a client for it. */
public final class TestNode implements AutoCloseable {
  private final NodeConfig config;
  private final NodeBootstrap.StorageFactory storage;
  private NodeBootstrap node;
  private KvorumClient client;

  private TestNode(NodeConfig config, NodeBootstrap.StorageFactory storage) {
    this.config = config;
    this.storage = storage;
  }

  /** Starts a node on RocksDB. */
  public static TestNode start(NodeConfig config) {
    return start(config, NodeBootstrap.StorageFactory.ROCKSDB);
  }

  public static TestNode start(NodeConfig config, NodeBootstrap.StorageFactory storage) {
    TestNode node = new TestNode(config, storage);
    node.boot();
    return node;
  }

  private void boot() {
    node = NodeBootstrap.start(config, storage);
    client = KvorumClient.connect("127.0.0.1", port(), Duration.ofSeconds(30));
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

  public NodeBootstrap bootstrap() {
    return node;
  }

  /** A graceful stop and a start on the same data directory (a new port). */
  public void restart() {
    stop();
    boot();
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
