package io.kvorum.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.api.KvorumApi;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.NodeProcess;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Client tokens on the node as users run it (SPEC §9). */
class AuthProcessIT {
  private static final String READER = "reader-7c1e0f4b2a9d8e63";
  private static final String WRITER = "writer-35b8d2e6f0a1c947";
  @TempDir Path work;

  private NodeProcess launch(Map<String, String> env, String... options) {
    int http = NodeProcess.freePort();
    String[] args = {
      "--node-id", "n1",
      "--http-host", "127.0.0.1",
      "--http-port", String.valueOf(http),
      "--grpc-port", String.valueOf(NodeProcess.freePort()),
      "--data-dir", work.resolve("data").toString()
    };
    String[] all = new String[args.length + options.length];
    System.arraycopy(args, 0, all, 0, args.length);
    System.arraycopy(options, 0, all, args.length, options.length);
    return NodeProcess.launch(work.resolve("logs"), http, env, all);
  }

  @Test
  void tokensFromTheEnvironmentGuardTheApiAndLeaveTheProbesOpen() throws Exception {
    Path tokens =
        Files.writeString(work.resolve("tokens"), READER + " read\n" + WRITER + " write\n");
    try (NodeProcess node = launch(Map.of("KVORUM_AUTH_TOKENS", tokens.toString()))) {
      node.awaitReady();
      try (KvorumClient anonymous = node.client();
          KvorumClient reader = anonymous.withToken(READER);
          KvorumClient writer = anonymous.withToken(WRITER)) {
        assertThatThrownBy(() -> anonymous.put("k", "v"))
            .isInstanceOfSatisfying(
                KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(401));
        assertThatThrownBy(() -> reader.put("k", "v"))
            .isInstanceOfSatisfying(
                KvorumClientException.class, e -> assertThat(e.status()).isEqualTo(403));
        writer.put("k", "v");
        assertThat(reader.getUtf8("k")).hasValue("v");
        for (String open : new String[] {KvorumApi.PATH_LIVE, KvorumApi.PATH_METRICS}) {
          assertThat(
                  anonymous
                      .send(HttpRequest.newBuilder(anonymous.baseUri().resolve(URI.create(open))))
                      .statusCode())
              .as(open)
              .isEqualTo(200);
        }
      }
      assertThat(node.stdout()).contains("client authentication on: 2 tokens");
      assertThat(node.stdout()).doesNotContain(READER).doesNotContain(WRITER);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "the-secret-token reed|line 1: unknown role",
        "the-secret-token read extra|line 1: expected TOKEN ROLE",
        "# nothing but comments|no tokens",
      })
  void aMalformedTokensFileExits2WithOneLineNamingIt(String content, String reason)
      throws Exception {
    Path tokens = Files.writeString(work.resolve("tokens"), content + "\n");
    try (NodeProcess node = launch(Map.of(), "--auth-tokens", tokens.toString())) {
      assertThat(node.awaitExit()).isEqualTo(2);
      assertThat(node.stderr().lines())
          .singleElement()
          .asString()
          .contains("--auth-tokens '" + tokens + "'")
          .contains(reason)
          .doesNotContain("the-secret-token");
    }
  }

  @Test
  void aMissingTokensFileExits2WithOneLineNamingIt() throws Exception {
    Path tokens = work.resolve("no-such-tokens");
    try (NodeProcess node = launch(Map.of(), "--auth-tokens", tokens.toString())) {
      assertThat(node.awaitExit()).isEqualTo(2);
      assertThat(node.stderr().lines())
          .singleElement()
          .asString()
          .contains("--auth-tokens '" + tokens + "': cannot be read");
    }
  }
}
