package io.kvorum.node.config;

import io.kvorum.node.auth.TokensFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The flag of "Client authentication" in docs/configuration.md: the client tokens file. */
final class AuthOptions {
  @Option(
      names = "--auth-tokens",
      defaultValue = "${env:KVORUM_AUTH_TOKENS}",
      paramLabel = "FILE",
      description =
          "Client tokens, a 'TOKEN ROLE' per line (read, write, admin): /v0/ then needs"
              + " 'Authorization: Bearer TOKEN'. Re-read on change. Default: none.")
  String authTokens;

  /**
   * The tokens file, or null for none; read and parsed here so that a bad one stops the node before
   * it starts.
   */
  Path authTokens() {
    if (authTokens == null || authTokens.isBlank()) {
      return null;
    }
    try {
      Path file = Path.of(authTokens.trim());
      TokensFile.check(file);
      return file;
    } catch (UncheckedIOException | IllegalArgumentException e) {
      throw new ConfigException("--auth-tokens", authTokens, e.getMessage());
    }
  }
}
