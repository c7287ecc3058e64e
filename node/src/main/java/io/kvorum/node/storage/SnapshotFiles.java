package io.kvorum.node.storage;

import io.kvorum.node.core.ChunkReader;
import io.kvorum.node.core.SnapshotException;
import io.kvorum.node.core.SnapshotFile;
import io.kvorum.node.core.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of this node's whole snapshots, for a backup to copy off (SPEC §11): listed with their
 * sizes and SHA-256, and read in chunks, on the snapshots' own thread. A file is hashed once: its
 * checksum is kept by its identity on disk (inode, size, modification time), which the hard links
 * of one data file in several snapshots share, so a second backup hashes only the new files.
 */
public final class SnapshotFiles {
  /** What a file's name in a snapshot may be: no path, never hidden. */
  private static final Pattern FILE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** The file that makes a snapshot directory whole; written last. */
  private static final String MANIFEST = "manifest.json";

  private static final int MAX_HASHES = 100_000;

  private final Path directory;
  private final Executor executor;
  private final Map<String, String> hashes = new ConcurrentHashMap<>();

  /**
   * @param directory where the snapshots are ({@code <data-dir>/snapshots})
   * @param executor the snapshots' own thread
   */
  public SnapshotFiles(Path directory, Executor executor) {
    this.directory = directory;
    this.executor = executor;
  }

  /**
   * The files of snapshot {@code name}, by name; fails with {@link SnapshotException} if there is
   * no whole snapshot of that name.
   */
  public CompletableFuture<List<SnapshotFile>> list(String name) {
    return CompletableFuture.supplyAsync(() -> listNow(snapshot(name)), executor);
  }

  /**
   * Opens file {@code file} of snapshot {@code name} for reading; fails with {@link
   * SnapshotException} if there is no such snapshot or it holds no such file.
   */
  public CompletableFuture<ChunkReader> open(String name, String file) {
    return CompletableFuture.supplyAsync(
        () -> {
          Path dir = snapshot(name);
          if (file == null
              || !FILE.matcher(file).matches()
              || !Files.isRegularFile(dir.resolve(file))) {
            throw SnapshotException.noFile(name, file);
          }
          try {
            return new Reader(FileChannel.open(dir.resolve(file), StandardOpenOption.READ));
          } catch (IOException e) {
            throw new StorageException(StorageException.Kind.FAILURE, "open " + file, null, e);
          }
        },
        executor);
  }

  /** A file open for reading, chunk by chunk on the snapshots' thread; closed by its reader. */
  public final class Reader implements ChunkReader {
    private final FileChannel channel;

    private Reader(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public long size() {
      try {
        return channel.size();
      } catch (IOException e) {
        return -1;
      }
    }

    @Override
    public CompletableFuture<byte[]> next(int max) {
      return CompletableFuture.supplyAsync(
          () -> {
            ByteBuffer buffer = ByteBuffer.allocate(max);
            try {
              int read = channel.read(buffer);
              return read <= 0 ? new byte[0] : java.util.Arrays.copyOf(buffer.array(), read);
            } catch (IOException e) {
              throw new StorageException(
                  StorageException.Kind.FAILURE, "read a snapshot file", null, e);
            }
          },
          executor);
    }

    @Override
    public void close() {
      try {
        channel.close();
      } catch (IOException e) {
        // nothing was written through it
      }
    }
  }

  private Path snapshot(String name) {
    Path dir = directory.resolve(Snapshots.validName(name) ? name : "");
    if (!Snapshots.validName(name) || !Files.isRegularFile(dir.resolve(MANIFEST))) {
      throw new SnapshotException(SnapshotException.Reason.UNKNOWN_SNAPSHOT, name);
    }
    return dir;
  }

  private List<SnapshotFile> listNow(Path dir) {
    List<SnapshotFile> files = new ArrayList<>();
    try (Stream<Path> children = Files.list(dir)) {
      for (Path file : children.sorted().toList()) {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (attributes.isRegularFile()) {
          files.add(
              new SnapshotFile(
                  file.getFileName().toString(), attributes.size(), hash(file, attributes)));
        }
      }
    } catch (IOException e) {
      throw new StorageException(StorageException.Kind.FAILURE, "list snapshot " + dir, null, e);
    }
    return files;
  }

  private String hash(Path file, BasicFileAttributes attributes) throws IOException {
    String identity =
        attributes.fileKey() + "/" + attributes.size() + "/" + attributes.lastModifiedTime();
    String known = hashes.get(identity);
    if (known != null && attributes.fileKey() != null) {
      return known;
    }
    String sha = sha256(file);
    if (hashes.size() >= MAX_HASHES) {
      hashes.clear();
    }
    hashes.put(identity, sha);
    return sha;
  }

  /** The SHA-256 of {@code file}'s bytes, lower-case hex. */
  public static String sha256(Path file) throws IOException {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
        digest.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
