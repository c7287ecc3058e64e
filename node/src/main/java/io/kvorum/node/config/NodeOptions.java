package io.kvorum.node.config;

import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.DurationFormat;
import io.kvorum.node.core.NodeId;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * The node's flags. Each has an environment twin ({@code --http-port} ⇔ {@code KVORUM_HTTP_PORT});
 * a flag given on the command line wins over its variable. Values stay text here so that {@link
 * #toConfig()} can say exactly which flag is wrong and why.
 */
public final class NodeOptions {
  @Option(
      names = "--node-id",
      defaultValue = "${env:KVORUM_NODE_ID}",
      paramLabel = "ID",
      description = "Unique id of this node in the cluster. Default: the host name.")
  String nodeId;

  @Option(
      names = "--http-host",
      defaultValue = "${env:KVORUM_HTTP_HOST:-0.0.0.0}",
      paramLabel = "ADDRESS",
      description = "Address the client API binds. Default: ${DEFAULT-VALUE}.")
  String httpHost;

  @Option(
      names = "--http-port",
      defaultValue = "${env:KVORUM_HTTP_PORT:-8080}",
      paramLabel = "PORT",
      description = "Port of the client API (HTTP), health and metrics. Default: ${DEFAULT-VALUE}.")
  String httpPort;

  @Option(
      names = "--grpc-port",
      defaultValue = "${env:KVORUM_GRPC_PORT:-9090}",
      paramLabel = "PORT",
      description = "Port of the inter-node service (gRPC). Default: ${DEFAULT-VALUE}.")
  String grpcPort;

  @Option(
      names = "--data-dir",
      defaultValue = "${env:KVORUM_DATA_DIR}",
      paramLabel = "DIR",
      description = "Where RocksDB and hints live. Default: ./data/<node-id>.")
  String dataDir;

  @Option(
      names = "--peers",
      defaultValue = "${env:KVORUM_PEERS}",
      paramLabel = "ID=HOST:PORT,...",
      description =
          "The whole static cluster, this node included, as id=host:grpcPort pairs."
              + " Default: none, a single-node cluster.")
  String peers;

  @Option(
      names = "--request-timeout",
      defaultValue = "${env:KVORUM_REQUEST_TIMEOUT:-1s}",
      paramLabel = "DURATION",
      description =
          "How long a request waits for its ack replicas before answering 504."
              + " Default: ${DEFAULT-VALUE}.")
  String requestTimeout;

  @Option(
      names = "--sync-writes",
      defaultValue = "${env:KVORUM_SYNC_WRITES:-false}",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description =
          "fsync the write-ahead log before acknowledging a write (survives power loss, slower)."
              + " Default: ${DEFAULT-VALUE}.")
  String syncWrites;

  @Option(
      names = "--max-value-size",
      defaultValue = "${env:KVORUM_MAX_VALUE_SIZE:-16MiB}",
      paramLabel = "SIZE",
      description = "Largest value (request body); larger get 413. Default: ${DEFAULT-VALUE}.")
  String maxValueSize;

  @Option(
      names = "--max-key-size",
      defaultValue = "${env:KVORUM_MAX_KEY_SIZE:-1KiB}",
      paramLabel = "SIZE",
      description = "Longest key in bytes; longer get 400. Default: ${DEFAULT-VALUE}.")
  String maxKeySize;

  @Option(
      names = "--storage-threads",
      defaultValue = "${env:KVORUM_STORAGE_THREADS:-0}",
      paramLabel = "N",
      description =
          "Threads running storage calls that may touch the disk (writes, reads not answered"
              + " from memory, scans, maintenance). Default: one per core, at least 2.")
  String storageThreads;

  @Option(
      names = "--storage-queue",
      defaultValue = "${env:KVORUM_STORAGE_QUEUE:-4096}",
      paramLabel = "N",
      description =
          "Storage calls that may wait for a thread, and writes that may wait for the next"
              + " group commit; beyond that requests get 503 with Retry-After."
              + " Default: ${DEFAULT-VALUE}.")
  String storageQueue;

  @Option(
      names = "--block-cache-size",
      defaultValue = "${env:KVORUM_BLOCK_CACHE_SIZE:-128MiB}",
      paramLabel = "SIZE",
      description = "RocksDB block cache for reads. Default: ${DEFAULT-VALUE}.")
  String blockCacheSize;

  @Option(
      names = "--write-buffer-size",
      defaultValue = "${env:KVORUM_WRITE_BUFFER_SIZE:-64MiB}",
      paramLabel = "SIZE",
      description =
          "RocksDB memtable size: writes collect in memory up to this before a flush to disk."
              + " Default: ${DEFAULT-VALUE}.")
  String writeBufferSize;

  @Option(
      names = "--max-disk-usage",
      defaultValue = "${env:KVORUM_MAX_DISK_USAGE:-0}",
      paramLabel = "SIZE",
      description =
          "Refuse writes (507) once data files reach this size; 0 for no limit but the disk."
              + " Default: ${DEFAULT-VALUE}.")
  String maxDiskUsage;

  @Option(
      names = "--tombstone-grace",
      defaultValue = "${env:KVORUM_TOMBSTONE_GRACE:-10d}",
      paramLabel = "DURATION",
      description =
          "How long deletes and expired values are remembered before they are purged."
              + " Default: ${DEFAULT-VALUE}.")
  String tombstoneGrace;

  @Option(
      names = "--sweep-interval",
      defaultValue = "${env:KVORUM_SWEEP_INTERVAL:-10m}",
      paramLabel = "DURATION",
      description = "How often the purge sweeper runs. Default: ${DEFAULT-VALUE}.")
  String sweepInterval;

  @Option(
      names = "--hint-window",
      defaultValue = "${env:KVORUM_HINT_WINDOW:-3h}",
      paramLabel = "DURATION",
      description =
          "How long a write a replica missed is kept for it (hinted handoff). Default:"
              + " ${DEFAULT-VALUE}.")
  String hintWindow;

  @Option(
      names = "--repair-rate",
      defaultValue = "${env:KVORUM_REPAIR_RATE:-8MiB}",
      paramLabel = "SIZE",
      description =
          "Bytes per second this node sends at most for anti-entropy (records it pushes to peers"
              + " and records peers pull from it). Default: ${DEFAULT-VALUE}.")
  String repairRate;

  @Option(
      names = "--repair-interval",
      defaultValue = "${env:KVORUM_REPAIR_INTERVAL:-1m}",
      paramLabel = "DURATION",
      description =
          "How long after an anti-entropy round over every peer started the next one starts (at"
              + " once if the round took longer). Default: ${DEFAULT-VALUE}.")
  String repairInterval;

  @Option(
      names = "--max-hints-per-peer",
      defaultValue = "${env:KVORUM_MAX_HINTS_PER_PEER:-1000000}",
      paramLabel = "N",
      description = "Hints kept for one peer at most; more are dropped. Default: ${DEFAULT-VALUE}.")
  String maxHintsPerPeer;

  @Option(
      names = "--catch-up-timeout",
      defaultValue = "${env:KVORUM_CATCH_UP_TIMEOUT:-10s}",
      paramLabel = "DURATION",
      description =
          "At start, the longest wait for peers to deliver their hints before the node reports"
              + " ready. Default: ${DEFAULT-VALUE}.")
  String catchUpTimeout;

  @Option(
      names = "--max-clock-offset",
      defaultValue = "${env:KVORUM_MAX_CLOCK_OFFSET:-500ms}",
      paramLabel = "DURATION",
      description =
          "A node whose wall clock is further than this from a majority of its peers refuses to"
              + " coordinate writes (503) and reports not ready; a replica refuses a write whose"
              + " version is further than this ahead of its wall clock. Default: ${DEFAULT-VALUE}.")
  String maxClockOffset;

  @Option(
      names = "--io-threads",
      defaultValue = "${env:KVORUM_IO_THREADS:-0}",
      paramLabel = "N",
      description =
          "Event-loop threads, shared by the HTTP API and inter-node gRPC. Default: one per"
              + " core.")
  String ioThreads;

  @Option(
      names = "--idle-timeout",
      defaultValue = "${env:KVORUM_IDLE_TIMEOUT:-5m}",
      paramLabel = "DURATION",
      description = "Client connections idle this long are closed. Default: ${DEFAULT-VALUE}.")
  String idleTimeout;

  @Option(
      names = "--shutdown-grace",
      defaultValue = "${env:KVORUM_SHUTDOWN_GRACE:-10s}",
      paramLabel = "DURATION",
      description =
          "On SIGTERM, how long to wait for requests in flight before closing."
              + " Default: ${DEFAULT-VALUE}.")
  String shutdownGrace;

  @Option(
      names = "--log-format",
      defaultValue = "${env:KVORUM_LOG_FORMAT:-text}",
      paramLabel = "FORMAT",
      description =
          "text, or json: one JSON object per line for log collectors. Default: ${DEFAULT-VALUE}.")
  String logFormat;

  @Option(
      names = "--replication-factor",
      defaultValue = "${env:KVORUM_REPLICATION_FACTOR:-3}",
      paramLabel = "N",
      description =
          "Copies of a key when a request does not say: the default from is min(N, the number of"
              + " members). A request may still ask for up to every member. Default:"
              + " ${DEFAULT-VALUE}.")
  String replicationFactor;

  @Option(
      names = "--join",
      defaultValue = "${env:KVORUM_JOIN}",
      paramLabel = "HOST:PORT",
      description =
          "The inter-node address of any member of a running cluster: a node with an empty data"
              + " directory asks it to be admitted, streams the records it will own, then serves."
              + " Ignored once the node has stored a membership.")
  String join;

  @Option(
      names = "--advertise-host",
      defaultValue = "${env:KVORUM_ADVERTISE_HOST}",
      paramLabel = "HOST",
      description =
          "The host other members dial to reach this node's inter-node port when it joins."
              + " Default: its host in --peers, else the host name.")
  String advertiseHost;

  /**
   * The format of the node's log lines.
   *
   * @throws ConfigException if {@code --log-format} is neither text nor json
   */
  public LogFormat logFormat() {
    String value = logFormat == null ? "" : logFormat.trim().toLowerCase(java.util.Locale.ROOT);
    return switch (value) {
      case "text" -> LogFormat.TEXT;
      case "json" -> LogFormat.JSON;
      default -> throw new ConfigException("--log-format", logFormat, "must be text or json");
    };
  }

  /**
   * Validates every flag and builds the configuration.
   *
   * @throws ConfigException naming the first invalid flag and value
   */
  public NodeConfig toConfig() {
    NodeId id = nodeId();
    int cores = Runtime.getRuntime().availableProcessors();
    int grpc = port("--grpc-port", grpcPort, false);
    Topology topology = topology(id, grpc);
    int threads = count("--storage-threads", storageThreads, true);
    int io = count("--io-threads", ioThreads, true);
    return new NodeConfig(
        id,
        topology,
        new NodeConfig.Http(
            text("--http-host", httpHost),
            port("--http-port", httpPort, true),
            io == 0 ? cores : io,
            duration("--idle-timeout", idleTimeout)),
        grpc,
        dataDir == null || dataDir.isBlank() ? Path.of("data", id.value()) : Path.of(dataDir),
        duration("--request-timeout", requestTimeout),
        new NodeConfig.Limits(
            intSize("--max-value-size", maxValueSize), intSize("--max-key-size", maxKeySize)),
        new NodeConfig.Storage(
            bool("--sync-writes", syncWrites),
            threads == 0 ? Math.max(2, cores) : threads,
            count("--storage-queue", storageQueue, false),
            positiveSize("--block-cache-size", blockCacheSize),
            positiveSize("--write-buffer-size", writeBufferSize),
            size("--max-disk-usage", maxDiskUsage),
            duration("--tombstone-grace", tombstoneGrace),
            duration("--sweep-interval", sweepInterval)),
        new NodeConfig.Replication(
            duration("--hint-window", hintWindow),
            count("--max-hints-per-peer", maxHintsPerPeer, true),
            duration("--catch-up-timeout", catchUpTimeout)),
        duration("--shutdown-grace", shutdownGrace),
        duration("--max-clock-offset", maxClockOffset),
        new NodeConfig.Repair(
            positiveSize("--repair-rate", repairRate),
            duration("--repair-interval", repairInterval)),
        new NodeConfig.Membership(
            count("--replication-factor", replicationFactor, false), joinAddress()));
  }

  private NodeId nodeId() {
    String value = nodeId;
    if (value == null || value.isBlank()) {
      try {
        value = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        throw new ConfigException("--node-id is not set and the host name is unknown; set it");
      }
    }
    return parse("--node-id", value, NodeId::of);
  }

  private Optional<NodeConfig.Address> joinAddress() {
    if (join == null || join.isBlank()) {
      return Optional.empty();
    }
    String value = join.trim();
    int colon = value.lastIndexOf(':');
    if (colon < 1) {
      throw new ConfigException("--join", join, "no host:port (e.g. 10.0.0.1:9090)");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = port("--join", value.substring(colon + 1), false);
    return Optional.of(new NodeConfig.Address(host, port));
  }

  private Topology topology(NodeId self, int grpc) {
    if (peers == null || peers.isBlank()) {
      return Topology.single(self, advertised(), grpc);
    }
    List<Member> members = PeersFormat.parse(peers);
    try {
      return new Topology(self, members);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--peers", peers, e.getMessage());
    }
  }

  /** The host other members dial when this node joins without --peers. */
  private String advertised() {
    if (advertiseHost != null && !advertiseHost.isBlank()) {
      return advertiseHost.trim();
    }
    if (join == null || join.isBlank()) {
      return "localhost";
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      throw new ConfigException("--advertise-host is not set and the host name is unknown; set it");
    }
  }

  private static String text(String flag, String value) {
    if (value == null || value.isBlank()) {
      throw new ConfigException(flag, String.valueOf(value), "must not be empty");
    }
    return value.trim();
  }

  private static int port(String flag, String value, boolean zeroAllowed) {
    int port = parse(flag, value, Integer::parseInt);
    if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
      throw new ConfigException(flag, value, "a port is 1-65535");
    }
    return port;
  }

  private static int count(String flag, String value, boolean zeroAllowed) {
    int n = parse(flag, value, Integer::parseInt);
    if (n < (zeroAllowed ? 0 : 1)) {
      throw new ConfigException(flag, value, "must be " + (zeroAllowed ? "0 or more" : "positive"));
    }
    return n;
  }

  private static boolean bool(String flag, String value) {
    return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw new ConfigException(flag, value, "must be true or false");
    };
  }

  private static Duration duration(String flag, String value) {
    Duration d = parse(flag, value, DurationFormat::parse);
    if (d.isZero()) {
      throw new ConfigException(flag, value, "must be positive");
    }
    return d;
  }

  private static long size(String flag, String value) {
    return parse(flag, value, SizeFormat::parse);
  }

  private static long positiveSize(String flag, String value) {
    long size = size(flag, value);
    if (size < 1) {
      throw new ConfigException(flag, value, "must be positive");
    }
    return size;
  }

  private static int intSize(String flag, String value) {
    long size = positiveSize(flag, value);
    if (size > Integer.MAX_VALUE - 1024) {
      throw new ConfigException(flag, value, "must be under 2GiB");
    }
    return (int) size;
  }

  private static <T> T parse(String flag, String value, Function<String, T> parser) {
    if (value == null) {
      throw new ConfigException(flag, "", "a value is required");
    }
    try {
      return parser.apply(value.trim());
    } catch (ArithmeticException e) {
      throw new ConfigException(flag, value, "too large");
    } catch (NumberFormatException e) {
      throw new ConfigException(flag, value, "not a number");
    } catch (IllegalArgumentException e) {
      throw new ConfigException(flag, value, e.getMessage());
    }
  }
}
