package io.kvorum.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;

/** Clients of the nodes of a cluster under test, by index: what {@link QuorumLoad} drives. */
interface ClusterClients {
  int size();

  /** A new client of node {@code i}'s HTTP API on the host; the caller closes it. */
  KvorumClient client(int i);

  /**
   * The first {@code n} nodes alone, whatever nodes are added later: what a {@link QuorumLoad}
   * drives while the cluster grows or shrinks.
   */
  default ClusterClients first(int n) {
    ClusterClients all = this;
    return new ClusterClients() {
      @Override
      public int size() {
        return n;
      }

      @Override
      public KvorumClient client(int i) {
        return all.client(i);
      }
    };
  }

  /** {@code GET /v0/cluster} of node {@code i}: every member as that node sees it. */
  default JsonNode clusterView(int i) {
    try (KvorumClient client = client(i)) {
      return new ObjectMapper()
          .readTree(
              client
                  .send(HttpRequest.newBuilder(URI.create(client.baseUri() + "/v0/cluster")).GET())
                  .body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
