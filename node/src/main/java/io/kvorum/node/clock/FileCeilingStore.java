package io.kvorum.node.clock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Keeps the clock ceiling in a small file, replaced atomically (write a temporary file, fsync,
 * rename, fsync the directory) so a crash leaves either the old or the new value, never a torn one.
 */
public final class FileCeilingStore implements CeilingStore {
  private static final int SIZE = Long.BYTES + Integer.BYTES;
  private final Path file;
  private final Path temp;

  public FileCeilingStore(Path directory) {
    this.file = directory.resolve("hlc-ceiling");
    this.temp = directory.resolve("hlc-ceiling.tmp");
  }

  @Override
  public long load() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the clock ceiling " + file, e);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    if (bytes.length != SIZE || (int) checksum(buffer.getLong(0)) != buffer.getInt(Long.BYTES)) {
      throw new IllegalStateException(
          "the clock ceiling " + file + " is corrupt; refusing to guess a safe clock value");
    }
    return buffer.getLong(0);
  }

  @Override
  public void store(long ceilingMillis) {
    ByteBuffer buffer = ByteBuffer.allocate(SIZE);
    buffer.putLong(ceilingMillis).putInt((int) checksum(ceilingMillis)).flip();
    try {
      try (FileChannel channel =
          FileChannel.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
        dir.force(true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot store the clock ceiling " + file, e);
    }
  }

  private static long checksum(long value) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(Long.BYTES).putLong(0, value));
    return crc.getValue();
  }
}
