package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39: a snapshot whose manifest came back empty (what a power cut did to releases that did
 * not sync it) does not fail the listing, is named there as damaged, can be deleted, and does not
 * keep the node from starting.
 */
class DamagedSnapshotTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dataDir;

  @Test
  void aListingWithAnEmptyManifestAnswers200NamingItAndTheNodeStartsWithIt() throws Exception {
    Path nodeDir = dataDir.resolve("n1");
    try (TestNode node = TestNode.start(TestConfig.in(nodeDir).build())) {
      node.client().put("k", "v");
      assertThat(request(node, "POST", "?name=good").status()).isEqualTo(201);
      assertThat(request(node, "POST", "?name=cut").status()).isEqualTo(201);
    }
    Files.write(nodeDir.resolve("snapshots").resolve("cut").resolve("manifest.json"), new byte[0]);

    try (TestNode node = TestNode.start(TestConfig.in(nodeDir).build())) {
      assertThat(node.client().getUtf8("k")).contains("v");
      RawHttpConnection.Response listed = request(node, "GET", "");
      assertThat(listed.status()).isEqualTo(200);
      JsonNode body = JSON.readTree(listed.bodyText());
      assertThat(names(body.path("snapshots"))).containsExactly("good");
      assertThat(names(body.path("damaged"))).containsExactly("cut");
      assertThat(body.path("damaged").get(0).path("problem").asText())
          .contains("manifest.json is empty");

      assertThat(request(node, "POST", "?name=cut").status()).as("name taken").isEqualTo(409);
      assertThat(request(node, "DELETE", "/cut").status()).isEqualTo(204);
      assertThat(JSON.readTree(request(node, "GET", "").bodyText()).path("damaged")).isEmpty();
      assertThat(request(node, "POST", "?name=cut").status()).isEqualTo(201);
    }
  }

  private static RawHttpConnection.Response request(TestNode node, String method, String rest)
      throws Exception {
    try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
      return raw.request(method, KvorumApi.PATH_SNAPSHOTS + rest);
    }
  }

  private static List<String> names(JsonNode snapshots) {
    List<String> names = new ArrayList<>();
    snapshots.forEach(s -> names.add(s.path("name").asText()));
    return names;
  }
}
