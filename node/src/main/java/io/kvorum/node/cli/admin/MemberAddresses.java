package io.kvorum.node.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.node.cli.client.NodeAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Where an operator's command reaches the other members of a cluster ({@code snapshot}, and {@code
 * decommission}/{@code remove --wait} when the node asked stops answering): a member is reached at
 * {@code --node ID=HOST:PORT} if given, else at the HTTP address it advertises ({@code httpAddress}
 * in {@code /v0/cluster}), else (a node of a release before it advertised one) at the host of its
 * inter-node address and the same HTTP port as {@code --port}.
 */
public final class MemberAddresses {
  @Option(
      names = "--node",
      paramLabel = "ID=HOST:PORT",
      description =
          "The HTTP address of member ID, when it is not the one the member advertises"
              + " (--advertise-http-address), as from outside its network. May be repeated.")
  Map<String, String> given = new LinkedHashMap<>();

  /** Each member of a {@code GET /v0/cluster} answer as {@code {id, base URL}}, in its order. */
  public List<String[]> of(JsonNode cluster, NodeAddress node) {
    List<String[]> members = new ArrayList<>();
    for (JsonNode member : cluster.path("nodes")) {
      members.add(new String[] {member.path("id").asText(), baseUrl(member, node)});
    }
    return members;
  }

  /** The HTTP base URL of {@code member}, an entry of {@code /v0/cluster}'s {@code nodes}. */
  String baseUrl(JsonNode member, NodeAddress node) {
    String address = given.get(member.path("id").asText());
    if (address != null) {
      return node.scheme() + "://" + address;
    }
    if (member.path("self").asBoolean()) {
      return node.baseUrl();
    }
    if (member.hasNonNull("httpAddress")) {
      return node.scheme() + "://" + member.path("httpAddress").asText();
    }
    String inter = member.path("address").asText();
    int colon = inter.lastIndexOf(':');
    return node.scheme()
        + "://"
        + (colon > 0 ? inter.substring(0, colon) : inter)
        + ":"
        + node.port();
  }
}
