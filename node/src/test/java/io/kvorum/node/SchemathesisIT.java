package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.RepositoryScripts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenAPI document is exact enough for a tool to trust: schemathesis generates requests from it
 * (valid ones, which the node must accept, and invalid ones, which it must refuse), sends them to a
 * node run from the fat jar, and runs all its checks on the answers: no 5xx, every status, header
 * and body as documented, other methods 405 with {@code Allow}. A bounded number of cases per
 * operation and a fixed seed keep it a few seconds and repeatable; {@code
 * -Dkvorum.schemathesis.examples=500 -Dkvorum.schemathesis.seed=7} explores further.
 *
 * <p>The hooks ({@code api/src/test/schemathesis/kvorum_hooks.py}) leave out of the valid cases
 * only those that break a rule the document states in words (ack at most from, from at most the
 * cluster size, key and ttl limits). Schemathesis comes from {@code
 * api/src/test/schemathesis/install.sh} ({@code KVORUM_SCHEMATHESIS}, else its install location,
 * else the {@code PATH}); without it the test is skipped on a developer machine and fails in CI
 * ({@code CI=true}).
 */
class SchemathesisIT {
  @TempDir Path work;

  @Test
  void theDocumentHoldsForEveryRequestSchemathesisMakesOfIt() throws Exception {
    Path schemathesis = schemathesis();
    Path repository = RepositoryScripts.repository();
    Path settings = repository.resolve("api/src/test/schemathesis");
    Path document = repository.resolve("api/src/main/resources/io/kvorum/api/openapi.yaml");
    Path report = work.resolve("schemathesis.log");
    try (NodeProcess node = NodeProcess.startSingle(work.resolve("data"), "n1")) {
      ProcessBuilder run =
          new ProcessBuilder(
                  schemathesis.toString(),
                  "--no-color",
                  "--config-file",
                  settings.resolve("schemathesis.toml").toString(),
                  "run",
                  document.toString(),
                  "--url",
                  "http://127.0.0.1:" + node.httpPort(),
                  "--checks",
                  "all",
                  "--max-examples",
                  System.getProperty("kvorum.schemathesis.examples", "50"),
                  "--seed",
                  System.getProperty("kvorum.schemathesis.seed", "1"),
                  // Its body is kvorum's own binary batch of records, which schemathesis cannot
                  // make; OpenApiConformanceTest provokes each of its documented answers.
                  "--exclude-path",
                  "/v0/load",
                  // A change feed's answer never ends (it streams until the client goes away):
                  // ChangeFeedScenarios and OpenApiConformanceTest check its lines and answers.
                  "--exclude-path",
                  "/v0/changes")
              // Hypothesis keeps its example database in the working directory: not the repository.
              .directory(work.toFile())
              .redirectErrorStream(true)
              .redirectOutput(report.toFile());
      run.environment().put("SCHEMATHESIS_HOOKS", "kvorum_hooks");
      run.environment().put("PYTHONPATH", settings.toString());
      run.environment().put("PYTHONDONTWRITEBYTECODE", "1");
      run.environment().put("KVORUM_CLUSTER_SIZE", "1");
      run.environment().put("KVORUM_NODE_ID", "n1");
      Process process = run.start();
      if (!process.waitFor(5, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        Assertions.fail("schemathesis did not finish within 5 minutes:\n" + tail(report));
      }
      String output = Files.readString(report);
      System.out.println(output);
      assertThat(process.exitValue()).as("schemathesis found problems:\n%s", output).isZero();
      // Every test case passed. Its one warning, when it gives one: it cannot validate the NDJSON
      // range's lines (a schema per line; RangeNdjsonTest reads them), so it prints no "No issues
      // found" then.
      assertThat(output).containsPattern("\\b(\\d+) generated, \\1 passed\\b");
      if (!output.contains("No issues found")) {
        assertThat(output)
            .contains("1 warning in")
            .contains("cannot validate application/x-ndjson responses");
      }
      assertThat(node.terminate()).isZero();
      assertThat(node.stdout()).doesNotContain("unexpected failure serving a request");
    }
  }

  private static Path schemathesis() {
    Optional<Path> found =
        Stream.of(
                Optional.ofNullable(System.getenv("KVORUM_SCHEMATHESIS")).map(Path::of),
                Optional.of(
                    Path.of(
                        Optional.ofNullable(System.getenv("KVORUM_TOOLS"))
                            .orElse(System.getProperty("user.home") + "/.cache/kvorum-tools"),
                        "schemathesis/bin/schemathesis")),
                onPath("schemathesis"))
            .flatMap(Optional::stream)
            .filter(Files::isExecutable)
            .findFirst();
    if (found.isEmpty()) {
      String reason =
          "no schemathesis: run api/src/test/schemathesis/install.sh, or set KVORUM_SCHEMATHESIS";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail("CI=true but " + reason + ": the API document must be checked in CI");
      }
      Assumptions.abort(reason);
    }
    return found.get();
  }

  private static Optional<Path> onPath(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    return Stream.of(path.split(":"))
        .filter(dir -> !dir.isEmpty())
        .map(dir -> Path.of(dir, name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private static String tail(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
