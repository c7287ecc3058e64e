package io.kvorum.node.config;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.topology.Zone;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything a node is configured with, validated. Built from flags by {@link NodeOptions}; tests
 * build it directly.
 *
 * @param nodeId this node's unique id
 * @param topology the members this node was started with ({@code --peers}), this node included
 * @param http where the client API listens
 * @param grpcPort where the inter-node service listens
 * @param grpcHost the address the inter-node service binds and outgoing inter-node connections
 *     leave from ({@code --grpc-host}); empty for every interface, and for whatever address the
 *     system picks
 * @param dataDir where RocksDB and the clock's state live
 * @param requestTimeout how long a coordinator waits for {@code ack} replicas
 * @param limits request size limits
 * @param storage storage tuning and maintenance
 * @param replication hinted handoff and catch-up
 * @param shutdownGrace how long a SIGTERM waits for requests in flight
 * @param maxClockOffset the largest wall-clock offset to its peers at which a node versions writes,
 *     and how far ahead of a replica's wall clock a version may be
 * @param repair anti-entropy
 * @param tls mutual TLS between nodes (and TLS on the client port), if configured
 * @param authTokens the {@code --auth-tokens} file of client bearer tokens (SPEC §9), or null when
 *     clients need none
 * @param membership how many copies a key gets by default
 */
public record NodeConfig(
    NodeId nodeId,
    Topology topology,
    Http http,
    int grpcPort,
    Optional<String> grpcHost,
    Path dataDir,
    Duration requestTimeout,
    Limits limits,
    Storage storage,
    Replication replication,
    Duration shutdownGrace,
    Duration maxClockOffset,
    Repair repair,
    Optional<Tls> tls,
    Path authTokens,
    Membership membership) {

  public NodeConfig {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(replication, "replication");
    Objects.requireNonNull(repair, "repair");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(membership, "membership");
    Objects.requireNonNull(grpcHost, "grpcHost");
    if (!topology.self().equals(nodeId)) {
      throw new IllegalArgumentException("topology is for " + topology.self() + ", not " + nodeId);
    }
    requirePositive(requestTimeout, "request timeout");
    requirePositive(shutdownGrace, "shutdown grace");
    requirePositive(maxClockOffset, "max clock offset");
  }

  /**
   * The client API listener.
   *
   * @param host address to bind
   * @param port port to bind, 0 for any free port
   * @param ioThreads event-loop threads
   * @param idleTimeout idle connections are closed after this
   * @param advertise where clients and operator tools reach this node's HTTP API ({@code
   *     --advertise-http-address}); empty: {@link #advertised}
   */
  public record Http(
      String host, int port, int ioThreads, Duration idleTimeout, Optional<Address> advertise) {
    public Http {
      if (port < 0 || port > 65535 || ioThreads < 1) {
        throw new IllegalArgumentException("bad HTTP listener settings");
      }
      requirePositive(idleTimeout, "idle timeout");
      Objects.requireNonNull(advertise, "advertise");
    }

    /** A listener that advertises the default address. */
    public Http(String host, int port, int ioThreads, Duration idleTimeout) {
      this(host, port, ioThreads, idleTimeout, Optional.empty());
    }

    /**
     * The address this node advertises: {@code --advertise-http-address} if given, else the host it
     * binds and the port it got; a node that binds every interface ({@code 0.0.0.0}, {@code ::})
     * names the host its peers dial it at, {@code interNodeHost}.
     */
    public String advertised(int boundPort, String interNodeHost) {
      return advertise
          .orElseGet(() -> new Address(wildcard(host) ? interNodeHost : host, boundPort))
          .toString();
    }

    private static boolean wildcard(String host) {
      String h = host.trim();
      return h.isEmpty() || h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]");
    }
  }

  /**
   * @param maxValueBytes largest request body; larger ones get 413
   * @param maxKeyBytes longest key; longer ones get 400
   */
  public record Limits(int maxValueBytes, int maxKeyBytes) {
    public Limits {
      if (maxValueBytes < 0 || maxKeyBytes < 1) {
        throw new IllegalArgumentException("limits must be positive");
      }
    }
  }

  /**
   * @param syncWrites when the write-ahead log is fsynced: before each write is acknowledged, at
   *     least every interval, or when the OS chooses
   * @param threads threads running storage calls
   * @param queueSize storage calls that may wait for a thread, and writes that may wait for a group
   *     commit, before requests get 503
   * @param blockCacheBytes RocksDB block cache size
   * @param writeBufferBytes RocksDB memtable size; a full memtable is flushed to disk
   * @param maxDiskBytes refuse writes once data files reach this size; 0 for no limit
   * @param tombstoneGrace how long tombstones and expired values are kept before purging
   * @param sweepInterval how often the purge sweeper runs
   * @param paxosPurgeGrace how old a Paxos ballot is at least before acceptor states at or below it
   *     may be purged, and ballots that old refused
   * @param changeRetention how long the node keeps the changes it applied for change feeds; zero
   *     captures none
   * @param feedStall how long a change feed's consumer may read nothing while events wait before it
   *     is cut off; empty: the node's own (30 s). No flag sets it: tests that watch a consumer cut
   *     off give a shorter one ({@link TestIntervals})
   */
  public record Storage(
      WalSync syncWrites,
      int threads,
      int queueSize,
      long blockCacheBytes,
      long writeBufferBytes,
      long maxDiskBytes,
      Duration tombstoneGrace,
      Duration sweepInterval,
      Duration paxosPurgeGrace,
      Duration changeRetention,
      Optional<Duration> feedStall) {
    public Storage {
      if (threads < 1
          || queueSize < 1
          || blockCacheBytes < 1
          || writeBufferBytes < 1
          || maxDiskBytes < 0) {
        throw new IllegalArgumentException("bad storage settings");
      }
      Objects.requireNonNull(syncWrites, "syncWrites");
      requirePositive(sweepInterval, "sweep interval");
      requirePositive(paxosPurgeGrace, "paxos purge grace");
      Objects.requireNonNull(tombstoneGrace, "tombstoneGrace");
      Objects.requireNonNull(feedStall, "feedStall");
      if (changeRetention.isNegative()) {
        throw new IllegalArgumentException("negative change retention");
      }
    }

    /** Whether the node logs the changes it applies and serves change feeds. */
    public boolean capturesChanges() {
      return !changeRetention.isZero();
    }
  }

  /**
   * @param hintWindow hints older than this are dropped undelivered
   * @param maxHintsPerPeer hints beyond this many pending for one peer are dropped
   * @param catchUpTimeout the longest a starting node waits for its peers' hints before it is ready
   * @param replayInterval how often the node delivers its hints to every peer it can reach; empty,
   *     as every node built from the command line has it: the node's own interval. No flag sets it:
   *     tests waiting for a replay give a shorter one ({@link TestIntervals})
   * @param breakerOpenFor how long a peer's open circuit breaker answers "not available" before it
   *     lets a call try again; empty: the node's own. No flag sets it either ({@link
   *     TestIntervals})
   */
  public record Replication(
      Duration hintWindow,
      long maxHintsPerPeer,
      Duration catchUpTimeout,
      Optional<Duration> replayInterval,
      Optional<Duration> breakerOpenFor) {
    public Replication {
      requirePositive(hintWindow, "hint window");
      requirePositive(catchUpTimeout, "catch-up timeout");
      if (maxHintsPerPeer < 0) {
        throw new IllegalArgumentException("max hints per peer must not be negative");
      }
      Objects.requireNonNull(replayInterval, "replayInterval")
          .ifPresent(t -> requirePositive(t, "hint replay interval"));
      Objects.requireNonNull(breakerOpenFor, "breakerOpenFor")
          .ifPresent(t -> requirePositive(t, "breaker open time"));
    }

    /** A hint window, a cap and a catch-up timeout; the node's own replay and breaker intervals. */
    public Replication(Duration hintWindow, long maxHintsPerPeer, Duration catchUpTimeout) {
      this(hintWindow, maxHintsPerPeer, catchUpTimeout, Optional.empty(), Optional.empty());
    }
  }

  /**
   * Anti-entropy (SPEC §7).
   *
   * @param bytesPerSecond the most this node sends per second for repair (pushed and pulled
   *     records)
   * @param interval how long after a round over every peer started the next one starts (at once if
   *     the round took longer)
   */
  public record Repair(long bytesPerSecond, Duration interval) {
    public Repair {
      if (bytesPerSecond < 1) {
        throw new IllegalArgumentException("repair rate must be positive");
      }
      requirePositive(interval, "repair interval");
    }
  }

  /**
   * TLS (SPEC §9): inter-node gRPC becomes mutual TLS, and the client port serves TLS if {@code
   * http}.
   *
   * @param certificate PEM certificate chain this node presents, to peers and to HTTP clients
   * @param privateKey PEM (PKCS#8) private key of that certificate
   * @param trustedCa PEM certificates of the CA that signs every node's certificate
   * @param http serve the client API over TLS with the same certificate
   * @param reloadInterval how often the files are checked for changes
   */
  public record Tls(
      Path certificate, Path privateKey, Path trustedCa, boolean http, Duration reloadInterval) {
    public Tls {
      Objects.requireNonNull(certificate, "certificate");
      Objects.requireNonNull(privateKey, "privateKey");
      Objects.requireNonNull(trustedCa, "trustedCa");
      requirePositive(reloadInterval, "TLS reload interval");
    }
  }

  /**
   * The cluster's membership as this node is configured for it (SPEC §8).
   *
   * @param replicationFactor copies of a key when a request does not say: the default {@code from}
   *     is min(replication factor, the number of members that own data)
   * @param join the member a node with an empty data directory asks to admit it, if any
   * @param zone the failure domain this node is in (SPEC §3); {@link Zone#NONE} when unnamed
   * @param settleTime how long the driver of a membership change waits, once every member has
   *     acknowledged it, before it streams (requests begun under the older state have ended by
   *     then); empty, as every node built from the command line has it: twice the request timeout.
   *     No flag sets it: test clusters whose scenario has no request in flight during a change give
   *     a shorter one ({@link TestIntervals})
   * @param gossipInterval how often the node exchanges its cluster state with every member, and so
   *     how often a membership change moves on; empty, as every node built from the command line
   *     has it: the node's own interval. No flag sets it: tests waiting for changes give a shorter
   *     one ({@link TestIntervals})
   */
  public record Membership(
      int replicationFactor,
      Optional<Address> join,
      Zone zone,
      Optional<Duration> settleTime,
      Optional<Duration> gossipInterval) {
    /** The default: three copies. */
    public static final int DEFAULT_REPLICATION_FACTOR = 3;

    public Membership {
      if (replicationFactor < 1) {
        throw new IllegalArgumentException("replication factor must be positive");
      }
      Objects.requireNonNull(join, "join");
      Objects.requireNonNull(zone, "zone");
      Objects.requireNonNull(settleTime, "settleTime");
      settleTime.ifPresent(
          t -> {
            if (t.isNegative()) {
              throw new IllegalArgumentException("settle time must not be negative");
            }
          });
      Objects.requireNonNull(gossipInterval, "gossipInterval")
          .ifPresent(t -> requirePositive(t, "gossip interval"));
    }

    /** Copies of a key, a join, a zone and a settle time; the node's own gossip interval. */
    public Membership(
        int replicationFactor, Optional<Address> join, Zone zone, Optional<Duration> settleTime) {
      this(replicationFactor, join, zone, settleTime, Optional.empty());
    }

    /** Copies of a key, a join and a zone; the settle time derived from the request timeout. */
    public Membership(int replicationFactor, Optional<Address> join, Zone zone) {
      this(replicationFactor, join, zone, Optional.empty());
    }

    /** The settle time given {@code requestTimeout}: the one set, else twice the timeout. */
    public Duration settleTime(Duration requestTimeout) {
      return settleTime.orElse(requestTimeout.multipliedBy(2));
    }

    /** Copies of a key, no join, no zone: a member of a seeded cluster. */
    public Membership(int replicationFactor) {
      this(replicationFactor, Optional.empty());
    }

    /** Copies of a key and a join, no zone. */
    public Membership(int replicationFactor, Optional<Address> join) {
      this(replicationFactor, join, Zone.NONE);
    }
  }

  /** A host and port to dial. */
  public record Address(String host, int port) {
    public Address {
      if (host == null || host.isBlank() || port < 1 || port > 65535) {
        throw new IllegalArgumentException("not a host:port");
      }
    }

    @Override
    public String toString() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  private static void requirePositive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive");
    }
  }
}
