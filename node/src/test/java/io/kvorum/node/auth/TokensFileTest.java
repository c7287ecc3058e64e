package io.kvorum.node.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokensFileTest {
  @TempDir Path dir;

  @Test
  void aChangedFileReplacesTheTokens() throws Exception {
    Path path = Files.writeString(dir.resolve("tokens"), "old-token write\n");
    TokensFile file = TokensFile.load(path);
    assertThat(file.reloadIfChanged()).as("unchanged").isFalse();

    Files.writeString(path, "new-token read\n");

    assertThat(file.reloadIfChanged()).isTrue();
    assertThat(file.tokens().roleOf("new-token")).isEqualTo(Role.READ);
    assertThat(file.tokens().roleOf("old-token")).isNull();
  }

  @Test
  void aMalformedChangeKeepsTheTokensInForceUntilTheFileIsFixed() throws Exception {
    Path path = Files.writeString(dir.resolve("tokens"), "old-token write\n");
    TokensFile file = TokensFile.load(path);

    Files.writeString(path, "new-token reed\n");
    assertThat(file.reloadIfChanged()).isFalse();
    assertThat(file.tokens().roleOf("old-token")).isEqualTo(Role.WRITE);
    assertThat(file.tokens().roleOf("new-token")).isNull();

    Files.writeString(path, "new-token read\n");
    assertThat(file.reloadIfChanged()).isTrue();
    assertThat(file.tokens().roleOf("new-token")).isEqualTo(Role.READ);
  }

  @Test
  void aVanishedFileKeepsTheTokensInForce() throws Exception {
    Path path = Files.writeString(dir.resolve("tokens"), "old-token write\n");
    TokensFile file = TokensFile.load(path);

    Files.delete(path);
    assertThat(file.reloadIfChanged()).isFalse();
    assertThat(file.tokens().roleOf("old-token")).isEqualTo(Role.WRITE);

    Files.writeString(path, "old-token admin\n");
    assertThat(file.reloadIfChanged()).isTrue();
    assertThat(file.tokens().roleOf("old-token")).isEqualTo(Role.ADMIN);
  }

  /** How Kubernetes updates a mounted Secret: a symbolic link swapped to a new directory. */
  @Test
  void aSecretVolumeUpdateIsSeenThroughItsSymbolicLinks() throws Exception {
    Path first = Files.createDirectory(dir.resolve("..2026_11_26_first"));
    Files.writeString(first.resolve("tokens"), "old-token write\n");
    Path data = Files.createSymbolicLink(dir.resolve("..data"), first.getFileName());
    Path path = Files.createSymbolicLink(dir.resolve("tokens"), Path.of("..data/tokens"));
    TokensFile file = TokensFile.load(path);

    Path second = Files.createDirectory(dir.resolve("..2026_11_26_second"));
    Files.writeString(second.resolve("tokens"), "new-token write\n");
    Path swap = Files.createSymbolicLink(dir.resolve("..data_tmp"), second.getFileName());
    Files.move(swap, data, java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    assertThat(file.reloadIfChanged()).isTrue();
    assertThat(file.tokens().roleOf("new-token")).isEqualTo(Role.WRITE);
  }

  @Test
  void aMissingFileCannotBeLoaded() {
    Path path = dir.resolve("absent");

    assertThatThrownBy(() -> TokensFile.load(path))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessage("cannot be read (NoSuchFileException)");
  }
}
