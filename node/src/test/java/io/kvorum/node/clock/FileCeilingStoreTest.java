package io.kvorum.node.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
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
  void aFileWithBothSlotsDamagedIsRefused() throws IOException {
    FileCeilingStore store = new FileCeilingStore(dir);
    store.store(42);
    store.store(43);
    Path file = onlyFile();
    byte[] bytes = Files.readAllBytes(file);
    bytes[2 * Long.BYTES - 1] ^= 0x01; // the values change, the checksums do not
    bytes[FileCeilingStore.PAGE + 2 * Long.BYTES - 1] ^= 0x01;
    Files.write(file, bytes);

    assertThatThrownBy(() -> new FileCeilingStore(dir).load())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt");
  }

  @Test
  void storesOverwriteTheFileInPlaceWithoutGrowingIt() throws IOException {
    FileCeilingStore store = new FileCeilingStore(dir);
    store.store(1);
    Path file = onlyFile();
    Object identity = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    assertThat(identity).as("the file system names files").isNotNull();

    for (long ceiling = 2; ceiling <= 100; ceiling++) {
      store.store(ceiling);
    }

    assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey())
        .as("the same file (inode), not a replacement")
        .isEqualTo(identity);
    assertThat(Files.size(file)).isEqualTo(FileCeilingStore.FILE_SIZE);
    assertThat(new FileCeilingStore(dir).load()).isEqualTo(100);
  }

  @Test
  void aStoreTornByACrashLeavesThePreviousCeiling() throws IOException {
    FileCeilingStore store = new FileCeilingStore(dir);
    store.store(1_000);
    store.store(2_000);
    store.store(3_000);
    Path file = onlyFile();
    byte[] bytes = Files.readAllBytes(file);
    int newest = bytes[Long.BYTES - 1] == 3 ? 0 : FileCeilingStore.PAGE; // generation 3's slot
    assertThat(ByteBuffer.wrap(bytes).getLong(newest + Long.BYTES)).isEqualTo(3_000);
    bytes[newest + Long.BYTES + 7] ^= 0x55; // a half-written slot: its checksum no longer fits
    Files.write(file, bytes);

    FileCeilingStore reopened = new FileCeilingStore(dir);
    assertThat(reopened.load()).isEqualTo(2_000);
    reopened.store(4_000);
    assertThat(new FileCeilingStore(dir).load()).isEqualTo(4_000);
    reopened.store(5_000);
    assertThat(new FileCeilingStore(dir).load()).isEqualTo(5_000);
  }

  @Test
  void theSingleValueFileOfEarlierVersionsIsReadAndReplacedAtTheFirstStore() throws IOException {
    long ceiling = 1_700_000_000_123L;
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(Long.BYTES).putLong(0, ceiling));
    Path file = dir.resolve("hlc-ceiling");
    Files.write(
        file, ByteBuffer.allocate(12).putLong(ceiling).putInt((int) crc.getValue()).array());

    FileCeilingStore store = new FileCeilingStore(dir);
    assertThat(store.load()).isEqualTo(ceiling);
    store.store(ceiling + 1_000);

    assertThat(Files.size(file)).isEqualTo(FileCeilingStore.FILE_SIZE);
    assertThat(new FileCeilingStore(dir).load()).isEqualTo(ceiling + 1_000);
  }

  @Test
  void noSpaceFromTheFileSystemIsTheTypedNoSpaceFailure() {
    StorageException full =
        StorageException.ofIo("store", new IOException("No space left on device"));
    StorageException other = StorageException.ofIo("store", new IOException("Input/output error"));

    assertThat(full.kind()).isEqualTo(StorageException.Kind.NO_SPACE);
    assertThat(other.kind()).isEqualTo(StorageException.Kind.FAILURE);
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
