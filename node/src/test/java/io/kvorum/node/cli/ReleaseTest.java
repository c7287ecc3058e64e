package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.Release;
import io.kvorum.node.testing.RawHttpConnection;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.testing.TestNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The release a node runs is the build's, and every place an operator looks shows the same one. */
class ReleaseTest {
  private static final Path REPOSITORY =
      Path.of(System.getProperty("kvorum.repository", "..")).toAbsolutePath().normalize();

  @TempDir Path dataDir;

  @Test
  void theReleaseIsTheBuildsWithItsEntryInTheChangelogAndTheLicenceBeside() throws Exception {
    assertThat(Release.version()).matches("\\d+\\.\\d+\\.\\d+(-[A-Za-z0-9.]+)?");
    String changelog = Files.readString(REPOSITORY.resolve("CHANGELOG.md"));
    assertThat(changelog).contains("## [" + Release.version().replace("-SNAPSHOT", "") + "]");
    assertThat(Files.readString(REPOSITORY.resolve("LICENSE")))
        .contains("Apache License")
        .contains("Version 2.0, January 2004");
  }

  @Test
  void theVersionFlagPrintsTheRelease() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new KvorumNode());
    cli.setOut(new PrintWriter(out));
    assertThat(cli.execute("--version")).isZero();
    assertThat(out.toString().strip()).isEqualTo("kvorum-node " + Release.version());
  }

  @Test
  void theClusterViewAndAMetricShowTheRelease() throws Exception {
    try (TestNode node = TestNode.start(TestConfig.in(dataDir).build())) {
      node.awaitReady();
      try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
        JsonNode cluster =
            new ObjectMapper().readTree(raw.request("GET", KvorumApi.PATH_CLUSTER).bodyText());
        assertThat(cluster.path("version").asText()).isEqualTo(Release.version());
      }
      try (RawHttpConnection raw = new RawHttpConnection(node.address())) {
        assertThat(raw.request("GET", KvorumApi.PATH_METRICS).bodyText())
            .containsPattern(
                "kvorum_build_info\\{[^}]*version=\""
                    + Release.version().replace(".", "\\.")
                    + "\"[^}]*\\} 1");
      }
    }
  }
}
