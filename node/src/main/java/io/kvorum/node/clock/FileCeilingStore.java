package io.kvorum.node.clock;

import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Keeps the clock ceiling in a small file of two slots, each on a page of its own: a generation
 * number, the ceiling and a checksum of both. The file is made once, whole (a temporary file
 * written and fsynced, then renamed); from then on every store overwrites the older slot in place
 * and fsyncs it, so storing needs no new disk blocks and goes on working on a full disk. A crash
 * during a store can tear only the slot being written; the other still holds the previous ceiling,
 * and {@link #load} takes the valid slot of the newer generation.
 *
 * <p>A file of the single-value form of earlier versions (the ceiling and its checksum, replaced by
 * rename on every store) is read, and replaced by the two-slot form at the first store.
 */
public final class FileCeilingStore implements CeilingStore {
  /** One slot per page, so a torn write of one slot cannot reach the other. */
  static final int PAGE = 4096;

  static final int FILE_SIZE = 2 * PAGE;
  private static final int SLOT = 2 * Long.BYTES + Integer.BYTES;
  private static final int SINGLE_VALUE_SIZE = Long.BYTES + Integer.BYTES;

  private final Path file;

  /** The generation stored last, or -1 before this instance knows the file's state. */
  private long generation = -1;

  public FileCeilingStore(Path directory) {
    this.file = directory.resolve("hlc-ceiling");
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
    if (bytes.length == SINGLE_VALUE_SIZE) {
      return singleValue(bytes);
    }
    Slot newest = bytes.length == FILE_SIZE ? newest(bytes) : null;
    if (newest == null) {
      throw corrupt();
    }
    return newest.ceiling;
  }

  /**
   * Stores {@code ceilingMillis} durably.
   *
   * @throws StorageException of kind {@code NO_SPACE} if the disk is full (only possible while the
   *     file is first made, or on a file system that copies on write), {@code FAILURE} on any other
   *     I/O error
   */
  @Override
  public synchronized void store(long ceilingMillis) {
    try {
      if (generation < 0) {
        generation = twoSlotGeneration();
      }
      if (generation < 0) {
        create(ceilingMillis);
        generation = 1;
        return;
      }
      long next = generation + 1;
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        write(channel, slot(next, ceilingMillis), (next % 2) * PAGE);
        // The file's size never changes, so syncing its data is enough.
        channel.force(false);
      }
      generation = next;
    } catch (IOException e) {
      throw StorageException.ofIo("store the clock ceiling " + file, e);
    }
  }

  /** The newest generation of a two-slot file, or -1 if there is none yet (or the old form). */
  private long twoSlotGeneration() throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) != FILE_SIZE) {
      return -1;
    }
    Slot newest = newest(Files.readAllBytes(file));
    if (newest == null) {
      throw corrupt();
    }
    return newest.generation;
  }

  /** Makes the two-slot file whole, both slots holding the ceiling, and replaces any old one. */
  private void create(long ceilingMillis) throws IOException {
    ByteBuffer page = ByteBuffer.allocate(FILE_SIZE);
    page.put(0, slot(0, ceilingMillis), 0, SLOT);
    page.put(PAGE, slot(1, ceilingMillis), 0, SLOT);
    DurableFiles.DISK.replace(file, page.array());
  }

  private static void write(FileChannel channel, byte[] bytes, long position) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer, position + buffer.position());
    }
  }

  private record Slot(long generation, long ceiling) {}

  /** The valid slot of the newer generation, or null if neither is valid. */
  private static Slot newest(byte[] bytes) {
    Slot newest = null;
    for (int offset = 0; offset < FILE_SIZE; offset += PAGE) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, SLOT).slice();
      long generation = buffer.getLong(0);
      long ceiling = buffer.getLong(Long.BYTES);
      boolean valid = buffer.getInt(2 * Long.BYTES) == (int) checksum(generation, ceiling);
      if (valid && (newest == null || generation > newest.generation)) {
        newest = new Slot(generation, ceiling);
      }
    }
    return newest;
  }

  private static byte[] slot(long generation, long ceilingMillis) {
    return ByteBuffer.allocate(SLOT)
        .putLong(generation)
        .putLong(ceilingMillis)
        .putInt((int) checksum(generation, ceilingMillis))
        .array();
  }

  private long singleValue(byte[] bytes) {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    long value = buffer.getLong(0);
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(Long.BYTES).putLong(0, value));
    if ((int) crc.getValue() != buffer.getInt(Long.BYTES)) {
      throw corrupt();
    }
    return value;
  }

  private static long checksum(long generation, long ceilingMillis) {
    CRC32C crc = new CRC32C();
    crc.update(
        ByteBuffer.allocate(2 * Long.BYTES).putLong(generation).putLong(ceilingMillis).flip());
    return crc.getValue();
  }

  private IllegalStateException corrupt() {
    return new IllegalStateException(
        "the clock ceiling " + file + " is corrupt; refusing to guess a safe clock value");
  }
}
