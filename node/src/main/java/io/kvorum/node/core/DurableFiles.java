package io.kvorum.node.core;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * Files a node relies on after a power cut: what it writes here is on the disk, not only in the
 * page cache, when a method returns. A file is synced through {@link FileSync}, and a directory is
 * synced after an entry in it is created, renamed or deleted, since a rename or a new name lives in
 * the directory's own blocks. docs/durability.md lists every file a node writes and when it is
 * synced.
 */
public final class DurableFiles {
  /** The files and directories of the real disk. */
  public static final DurableFiles DISK = new DurableFiles(FileSync.DISK);

  private final FileSync sync;

  /** Durable files whose syncs go through {@code sync} (tests count them). */
  public DurableFiles(FileSync sync) {
    this.sync = sync;
  }

  /** Makes a file's data and metadata, or a directory's entries, durable: fsync(2). */
  @FunctionalInterface
  public interface FileSync {
    void sync(Path path) throws IOException;

    /** fsync(2) through a read-only descriptor, which Linux allows for files and directories. */
    FileSync DISK =
        path -> {
          try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
          }
        };
  }

  /** Syncs {@code path}, a file or a directory. */
  public void sync(Path path) throws IOException {
    sync.sync(path);
  }

  /**
   * Replaces {@code file} with {@code content} so that a crash at any moment leaves either the old
   * content or the new, whole: written to a temporary file beside it and synced, renamed over it,
   * then its directory synced.
   */
  public void replace(Path file, byte[] content) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      write(temp, content);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    sync.sync(directory(file));
  }

  /**
   * Writes a new {@code file} (or truncates one) and syncs it; its name is durable only once its
   * directory is synced ({@link #syncTree}, {@link #replace}).
   */
  public void write(Path file, byte[] content) throws IOException {
    try (FileChannel channel =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
    }
    sync.sync(file);
  }

  /** Renames {@code from} to {@code to} atomically and syncs the directory holding both. */
  public void rename(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    sync.sync(directory(to));
  }

  /**
   * Deletes {@code file} if it exists and syncs its directory, so the deletion outlives a crash.
   */
  public void delete(Path file) throws IOException {
    if (Files.deleteIfExists(file)) {
      sync.sync(directory(file));
    }
  }

  /** Syncs every file under {@code root}, then every directory, the deepest first. */
  public void syncTree(Path root) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(root)) {
      paths = walk.toList();
    }
    for (Path path : paths) {
      if (Files.isRegularFile(path)) {
        sync.sync(path);
      }
    }
    for (Path path : paths.reversed()) {
      if (Files.isDirectory(path)) {
        sync.sync(path);
      }
    }
  }

  /**
   * Creates {@code dir} and any missing parents, syncing the parent of each directory it created.
   */
  public void createDirectories(Path dir) throws IOException {
    Path absolute = dir.toAbsolutePath();
    if (Files.isDirectory(absolute)) {
      return;
    }
    Path parent = absolute.getParent();
    if (parent != null) {
      createDirectories(parent);
    }
    Files.createDirectories(absolute);
    if (parent != null) {
      sync.sync(parent);
    }
  }

  private static Path directory(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    return parent == null ? file.toAbsolutePath().getRoot() : parent;
  }
}
