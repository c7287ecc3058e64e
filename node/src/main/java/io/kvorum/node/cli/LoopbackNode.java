package io.kvorum.node.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A node of a cluster on this machine's loopback, as {@code kvorum local} and {@code kvorum-node
 * train} start them: its flags are the ones an operator gives.
 *
 * @param id its node id, also its data directory's name under the cluster's
 */
record LoopbackNode(String id, int httpPort, int grpcPort) {
  /** {@code --peers} for a cluster of {@code nodes}: each as {@code id=127.0.0.1:grpcPort}. */
  static String peers(List<LoopbackNode> nodes) {
    return nodes.stream()
        .map(node -> node.id + "=127.0.0.1:" + node.grpcPort)
        .collect(Collectors.joining(","));
  }

  /** This node's flags, its data in {@code clusterData}/{@link #id}. */
  List<String> flags(Path clusterData, String peers) {
    return List.of(
        "--node-id",
        id,
        "--http-host",
        "127.0.0.1",
        "--http-port",
        String.valueOf(httpPort),
        "--grpc-port",
        String.valueOf(grpcPort),
        "--data-dir",
        clusterData.resolve(id).toString(),
        "--peers",
        peers);
  }
}
