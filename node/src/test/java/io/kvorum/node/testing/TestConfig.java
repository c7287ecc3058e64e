package io.kvorum.node.testing;

import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.topology.Zone;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Node configurations for tests: free ports, a given data directory, small resources. */
public final class TestConfig {
  private NodeId id = NodeId.of("n1");
  private Topology topology;
  private Path dataDir;
  private Duration requestTimeout = Duration.ofSeconds(1);
  private int maxValueBytes = 16 << 20;
  private int maxKeyBytes = 1024;
  private int storageThreads = 4;
  private int storageQueue = 1024;
  private long maxDiskBytes;
  private long writeBufferBytes = 4 << 20;
  private Duration tombstoneGrace = Duration.ofDays(10);
  private Duration sweepInterval = Duration.ofMinutes(10);
  private Duration paxosPurgeGrace = Duration.ofHours(1);
  private Duration changeRetention = Duration.ofHours(24);
  private Duration feedStall;
  private Duration hintWindow = Duration.ofHours(3);
  private Duration catchUpTimeout = Duration.ofSeconds(5);
  private long maxHintsPerPeer = 100_000;
  private Duration maxClockOffset = Duration.ofMillis(500);
  // Rounds an hour apart: no test sees anti-entropy mend what it checks unless it asks for it.
  private long repairRate = 8 << 20;
  private Duration repairInterval = Duration.ofHours(1);
  private Path authTokens;
  private int replicationFactor = NodeConfig.Membership.DEFAULT_REPLICATION_FACTOR;
  private NodeConfig.Address join;
  private Zone zone = Zone.NONE;
  private Duration settleTime;
  private Duration gossipInterval;
  private Duration hintReplayInterval;
  private Duration breakerOpenFor;
  private WalSync syncWrites = WalSync.OS;

  private TestConfig(Path dataDir) {
    this.dataDir = dataDir;
  }

  public static TestConfig in(Path dataDir) {
    return new TestConfig(dataDir);
  }

  /** The id of the node this configures. */
  public NodeId nodeId() {
    return id;
  }

  public TestConfig id(String nodeId) {
    this.id = NodeId.of(nodeId);
    return this;
  }

  public TestConfig topology(Topology topology) {
    this.topology = topology;
    this.id = topology.self();
    return this;
  }

  public TestConfig requestTimeout(Duration timeout) {
    this.requestTimeout = timeout;
    return this;
  }

  public TestConfig maxValueBytes(int bytes) {
    this.maxValueBytes = bytes;
    return this;
  }

  public TestConfig maxKeyBytes(int bytes) {
    this.maxKeyBytes = bytes;
    return this;
  }

  public TestConfig storage(int threads, int queue) {
    this.storageThreads = threads;
    this.storageQueue = queue;
    return this;
  }

  /** A disk budget, and a small memtable so that writes reach the disk (and the budget) soon. */
  public TestConfig diskBudget(long maxDiskBytes, long writeBufferBytes) {
    this.maxDiskBytes = maxDiskBytes;
    this.writeBufferBytes = writeBufferBytes;
    return this;
  }

  public TestConfig purging(Duration grace, Duration interval) {
    this.tombstoneGrace = grace;
    this.sweepInterval = interval;
    return this;
  }

  /** {@code --paxos-purge-grace}. */
  /** How long changes are kept for feeds ({@code --change-retention}); zero captures none. */
  public TestConfig changeRetention(Duration retention) {
    this.changeRetention = retention;
    return this;
  }

  /** How long a feed's consumer may read nothing while events wait before it is cut off. */
  public TestConfig feedStall(Duration stall) {
    this.feedStall = stall;
    return this;
  }

  public TestConfig paxosPurgeGrace(Duration grace) {
    this.paxosPurgeGrace = grace;
    return this;
  }

  public TestConfig hintWindow(Duration window) {
    this.hintWindow = window;
    return this;
  }

  public TestConfig maxHintsPerPeer(long max) {
    this.maxHintsPerPeer = max;
    return this;
  }

  public TestConfig catchUpTimeout(Duration timeout) {
    this.catchUpTimeout = timeout;
    return this;
  }

  public TestConfig maxClockOffset(Duration offset) {
    this.maxClockOffset = offset;
    return this;
  }

  /** Anti-entropy: {@code bytesPerSecond} sent at most, a round every {@code interval}. */
  public TestConfig repair(long bytesPerSecond, Duration interval) {
    this.repairRate = bytesPerSecond;
    this.repairInterval = interval;
    return this;
  }

  /** Client bearer tokens from {@code file} (SPEC §9); none by default. */
  public TestConfig authTokens(Path file) {
    this.authTokens = file;
    return this;
  }

  /** Copies of a key when a request does not say ({@code --replication-factor}). */
  public TestConfig replicationFactor(int factor) {
    this.replicationFactor = factor;
    return this;
  }

  /** {@code --join host:port}: the node joins a running cluster through that member. */
  public TestConfig join(String host, int port) {
    this.join = new NodeConfig.Address(host, port);
    return this;
  }

  /** {@code --zone}: the node's failure domain; empty for none. */
  public TestConfig zone(String name) {
    this.zone = Zone.of(name);
    return this;
  }

  /**
   * The settle time of the membership changes this node drives (no flag sets it; nodes from the
   * command line wait twice the request timeout): only for scenarios with no request in flight
   * while a change is under way, where waiting for such requests is time spent for nothing.
   */
  public TestConfig settleTime(Duration settle) {
    this.settleTime = settle;
    return this;
  }

  /**
   * How often the node gossips its cluster state, so how often a membership change moves on (no
   * flag sets it; nodes keep their own, one second, unless a test shortens it).
   */
  public TestConfig gossipInterval(Duration interval) {
    this.gossipInterval = interval;
    return this;
  }

  /**
   * How often the node delivers its hints to the peers it reaches, besides a peer's return (no flag
   * sets it; nodes keep their own, ten seconds, unless a test shortens it).
   */
  public TestConfig hintReplayInterval(Duration interval) {
    this.hintReplayInterval = interval;
    return this;
  }

  /**
   * How long a peer's open circuit breaker answers "not available" before a call may try it again
   * (no flag sets it; nodes keep their own, two seconds, unless a test shortens it).
   */
  public TestConfig breakerOpenFor(Duration openFor) {
    this.breakerOpenFor = openFor;
    return this;
  }

  /** {@code --sync-writes}: when the write-ahead log is synced (tests: never, by default). */
  public TestConfig syncWrites(WalSync sync) {
    this.syncWrites = sync;
    return this;
  }

  public NodeConfig build() {
    Topology t = topology != null ? topology : Topology.single(id, "localhost", 9090);
    return new NodeConfig(
        id,
        t,
        new NodeConfig.Http("127.0.0.1", 0, 2, Duration.ofMinutes(5)),
        t.member(id).orElseThrow().grpcPort(),
        Optional.empty(),
        dataDir,
        requestTimeout,
        new NodeConfig.Limits(maxValueBytes, maxKeyBytes),
        new NodeConfig.Storage(
            syncWrites,
            storageThreads,
            storageQueue,
            8 << 20,
            writeBufferBytes,
            maxDiskBytes,
            tombstoneGrace,
            sweepInterval,
            paxosPurgeGrace,
            changeRetention,
            Optional.ofNullable(feedStall)),
        new NodeConfig.Replication(
            hintWindow,
            maxHintsPerPeer,
            catchUpTimeout,
            Optional.ofNullable(hintReplayInterval),
            Optional.ofNullable(breakerOpenFor)),
        Duration.ofSeconds(5),
        maxClockOffset,
        new NodeConfig.Repair(repairRate, repairInterval),
        Optional.empty(),
        authTokens,
        new NodeConfig.Membership(
            replicationFactor,
            java.util.Optional.ofNullable(join),
            zone,
            Optional.ofNullable(settleTime),
            Optional.ofNullable(gossipInterval)));
  }
}
