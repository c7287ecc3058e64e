package io.kvorum.node.config;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.topology.Member;
import java.util.ArrayList;
import java.util.List;

/** The {@code --peers} syntax: {@code id=host:grpcPort,…}; IPv6 hosts go in brackets. */
final class PeersFormat {
  private static final String FLAG = "--peers";
  private static final String EXAMPLE = " (expected id=host:port, e.g. n1=10.0.0.1:9090)";

  private PeersFormat() {}

  static List<Member> parse(String text) {
    List<Member> members = new ArrayList<>();
    for (String raw : text.split(",", -1)) {
      String entry = raw.trim();
      int eq = entry.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException(FLAG, entry, "no node id" + EXAMPLE);
      }
      NodeId id;
      try {
        id = NodeId.of(entry.substring(0, eq).trim());
      } catch (IllegalArgumentException e) {
        throw new ConfigException(FLAG, entry, e.getMessage());
      }
      String address = entry.substring(eq + 1).trim();
      int colon = address.lastIndexOf(':');
      if (colon <= 0 || colon == address.length() - 1) {
        throw new ConfigException(FLAG, entry, "no host:port" + EXAMPLE);
      }
      String host = address.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      } else if (host.contains(":")) {
        throw new ConfigException(FLAG, entry, "put IPv6 addresses in brackets, e.g. [::1]:9090");
      }
      int port;
      try {
        port = Integer.parseInt(address.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new ConfigException(FLAG, entry, "the port is not a number" + EXAMPLE);
      }
      if (host.isBlank() || port < 1 || port > 65535) {
        throw new ConfigException(FLAG, entry, "the host is empty or the port out of range");
      }
      members.add(new Member(id, host, port));
    }
    return members;
  }
}
