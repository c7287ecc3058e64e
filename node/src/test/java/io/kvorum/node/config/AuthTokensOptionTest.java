package io.kvorum.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --auth-tokens}: a bad file stops the node at start, naming the file (SPEC §9). */
class AuthTokensOptionTest {
  @TempDir Path dir;

  private static NodeConfig config(String... args) {
    NodeOptions options = new NodeOptions();
    new CommandLine(options).parseArgs(args);
    return options.toConfig();
  }

  @Test
  void offByDefault() {
    assumeThat(System.getenv("KVORUM_AUTH_TOKENS")).isNull();
    assertThat(config("--node-id", "n1").authTokens()).isNull();
  }

  @Test
  void aWellFormedFileIsTaken() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), "some-token-0123456789 admin\n");

    assertThat(config("--node-id", "n1", "--auth-tokens", tokens.toString()).authTokens())
        .isEqualTo(tokens);
  }

  @Test
  void aMalformedFileIsRefusedNamingTheFileAndTheLine() throws Exception {
    Path tokens =
        Files.writeString(dir.resolve("tokens"), "good-token read\nsecret-token superuser\n");

    assertThatThrownBy(() -> config("--node-id", "n1", "--auth-tokens", tokens.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "--auth-tokens '" + tokens + "': line 2: unknown role: use read, write or admin");
  }

  @Test
  void aMissingFileIsRefusedNamingIt() {
    Path tokens = dir.resolve("absent");

    assertThatThrownBy(() -> config("--node-id", "n1", "--auth-tokens", tokens.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--auth-tokens '" + tokens + "': cannot be read (NoSuchFileException)");
  }

  @Test
  void anUnreadableFileIsRefusedNamingIt() throws Exception {
    Path tokens = Files.writeString(dir.resolve("tokens"), "some-token admin\n");
    Files.setPosixFilePermissions(tokens, PosixFilePermissions.fromString("---------"));
    assumeThat(Files.isReadable(tokens)).as("not root, who reads anything").isFalse();

    assertThatThrownBy(() -> config("--node-id", "n1", "--auth-tokens", tokens.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("--auth-tokens '" + tokens + "': cannot be read (AccessDeniedException)");
  }

  @Test
  void aDirectoryIsRefused() {
    assertThatThrownBy(() -> config("--node-id", "n1", "--auth-tokens", dir.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("--auth-tokens '" + dir + "': cannot be read (");
  }
}
