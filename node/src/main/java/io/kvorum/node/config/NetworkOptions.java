package io.kvorum.node.config;

import static io.kvorum.node.config.FlagValues.count;
import static io.kvorum.node.config.FlagValues.duration;
import static io.kvorum.node.config.FlagValues.parse;
import static io.kvorum.node.config.FlagValues.port;
import static io.kvorum.node.config.FlagValues.text;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.topology.Zone;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The flags of "Identity and network" in docs/configuration.md: who the node is, where it listens.
 */
final class NetworkOptions {
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
      names = "--grpc-host",
      defaultValue = "${env:KVORUM_GRPC_HOST}",
      paramLabel = "ADDRESS",
      description =
          "Address the inter-node service binds; outgoing inter-node connections leave from it"
              + " too. Default: every interface, and the address the system picks.")
  String grpcHost;

  @Option(
      names = "--advertise-http-address",
      defaultValue = "${env:KVORUM_ADVERTISE_HTTP_ADDRESS}",
      paramLabel = "HOST:PORT",
      description =
          "Where clients and operator tools reach this node's HTTP API; members tell each other"
              + " and /v0/cluster lists it. Default: --http-host and the HTTP port, the host"
              + " other members dial this node at when --http-host is every interface.")
  String advertiseHttpAddress;

  @Option(
      names = "--peers",
      defaultValue = "${env:KVORUM_PEERS}",
      paramLabel = "ID=HOST:PORT,...",
      description =
          "The members a new cluster starts with, this node included, as id=host:grpcPort pairs;"
              + " read on a node's first start only (later ones use the membership it stores)."
              + " Default: none, a single-node cluster.")
  String peers;

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
      names = "--zone",
      defaultValue = "${env:KVORUM_ZONE}",
      paramLabel = "ZONE",
      description =
          "The failure domain this node is in (a rack, an availability zone): the replicas of a key"
              + " go to distinct zones. Changing it moves records, as a join does. Default: none,"
              + " one unnamed zone.")
  String zone;

  @Option(
      names = "--advertise-host",
      defaultValue = "${env:KVORUM_ADVERTISE_HOST}",
      paramLabel = "HOST",
      description =
          "The host other members dial to reach this node's inter-node port when it joins."
              + " Default: its host in --peers, else the host name.")
  String advertiseHost;

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

  NodeId nodeId() {
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

  int grpcPort() {
    return port("--grpc-port", grpcPort, false);
  }

  /** The client port; {@code --io-threads} is checked first, then the address, port and timeout. */
  NodeConfig.Http http(int cores) {
    int io = count("--io-threads", ioThreads, true);
    return new NodeConfig.Http(
        text("--http-host", httpHost),
        port("--http-port", httpPort, true),
        io == 0 ? cores : io,
        duration("--idle-timeout", idleTimeout),
        hostPort("--advertise-http-address", advertiseHttpAddress, "10.0.0.1:8080"));
  }

  Optional<String> grpcHost() {
    return grpcHost == null || grpcHost.isBlank() ? Optional.empty() : Optional.of(grpcHost.trim());
  }

  NodeConfig.Membership membership() {
    return new NodeConfig.Membership(
        count("--replication-factor", replicationFactor, false),
        joinAddress(),
        parse("--zone", zone == null ? "" : zone.trim(), Zone::of),
        TestIntervals.fromSystemProperty(TestIntervals.SETTLE_TIME),
        TestIntervals.fromSystemProperty(TestIntervals.GOSSIP));
  }

  Topology topology(NodeId self, int grpc) {
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

  private Optional<NodeConfig.Address> joinAddress() {
    return hostPort("--join", join, "10.0.0.1:9090");
  }

  /** {@code text} as a host:port, IPv6 hosts in brackets; empty when not given. */
  private static Optional<NodeConfig.Address> hostPort(String flag, String text, String example) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String value = text.trim();
    int colon = value.lastIndexOf(':');
    if (colon < 1) {
      throw new ConfigException(flag, text, "no host:port (e.g. " + example + ")");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = port(flag, value.substring(colon + 1), false);
    return Optional.of(new NodeConfig.Address(host, port));
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
}
