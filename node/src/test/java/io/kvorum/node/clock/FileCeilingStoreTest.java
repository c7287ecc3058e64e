package io.kvorum.node.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCeilingStoreTest {
  @TempDir Path dir;

  @Test
  void loadWithoutAFileIsZero() {
    assertThat(new FileCeilingStore(dir).load()).isZero();
  }

  @Test
  void storedValueIsLoadedBackByANewInstance() {
    new FileCeilingStore(dir).store(1_700_000_000_123L);

    assertThat(new FileCeilingStore(dir).load()).isEqualTo(1_700_000_000_123L);
  }

  @Test
  void theLatestStoreWins() {
    FileCeilingStore store = new FileCeilingStore(dir);
    store.store(10);
    store.store(20);
    store.store(15);

    assertThat(store.load()).isEqualTo(15);
  }

  @Test
  void noTemporaryFileIsLeftBehind() throws IOException {
    FileCeilingStore store = new FileCeilingStore(dir);
    store.store(1);
    store.store(2);

    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("hlc-ceiling");
    }
  }

  @Test
  void aFileOfTheWrongSizeIsRefused() throws IOException {
    new FileCeilingStore(dir).store(42);
    Path file = onlyFile();
    Files.write(file, new byte[] {1, 2, 3, 4, 5});

    assertThatThrownBy(() -> new FileCeilingStore(dir).load())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt");
  }

  @Test
  void anEmptyFileIsRefused() throws IOException {
    new FileCeilingStore(dir).store(42);
    Files.write(onlyFile(), new byte[0]);

    assertThatThrownBy(() -> new FileCeilingStore(dir).load())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFileWithABadChecksumIsRefused() throws IOException {
    new FileCeilingStore(dir).store(42);
    Path file = onlyFile();
    byte[] bytes = Files.readAllBytes(file);
    bytes[Long.BYTES - 1] ^= 0x01; // the value changes, the checksum does not

    Files.write(file, bytes);

    assertThatThrownBy(() -> new FileCeilingStore(dir).load())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt");
  }

  private Path onlyFile() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .reduce(
              (a, b) -> {
                throw new AssertionError("more than one file in " + dir);
              })
          .orElseThrow();
    }
  }
}
