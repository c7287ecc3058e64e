package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import org.rocksdb.NativeLibraryLoader;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Loads RocksDB's native library once per process, leaving no copy of it behind.
 *
 * <p>The build unpacks the library for Linux into {@code native/} beside the node's jar, and the
 * image keeps it there: a node loads that file when it is the jar's own (the same size and CRC-32
 * as the jar's entry), which saves each start from inflating 17 MB
 * (docs/decisions/start-up-pays-only-for-what-the-node-runs.md).
 *
 * <p>Otherwise RocksJava copies the library out of its jar into a new temporary file, and deletes
 * that file only when the JVM exits normally: every node killed, crashed or powered off left 17 MB
 * in the temporary directory (3,710 copies, 63 GB, had filled this project's build machine when a
 * CI run's backup test failed on it). Here the copy goes into a directory of its own that is
 * removed as soon as the library is loaded: a loaded library needs its file no more. With {@code
 * ROCKSDB_SHAREDLIB_DIR} set, RocksJava's own rule applies (one file of a fixed name there).
 */
final class NativeLibrary {
  private static boolean loaded;

  private NativeLibrary() {}

  /** Loads the library, if this process has not yet. */
  static synchronized void load() {
    if (loaded) {
      return;
    }
    if (System.getenv("ROCKSDB_SHAREDLIB_DIR") == null) {
      Optional<Path> unpacked = unpacked();
      try {
        Path directory = Files.createTempDirectory("kvorum-rocksdb-");
        try {
          if (unpacked.isPresent()) {
            // RocksJava looks in the directories it is given for the name this call makes
            // (librocksdbjnijni-linux64.so in 11.8), not the jar's: a link of that name to the
            // file.
            Files.createSymbolicLink(
                directory.resolve(Environment.getJniLibraryFileName("rocksdbjni")),
                unpacked.get().toAbsolutePath());
            RocksDB.loadLibrary(List.of(directory.toString()));
          } else {
            NativeLibraryLoader.getInstance().loadLibrary(directory.toString());
          }
        } finally {
          Directories.removeTree(directory);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot load RocksDB's native library", e);
      }
    }
    // Records the library as loaded for RocksJava, which loads it no more.
    RocksDB.loadLibrary();
    loaded = true;
  }

  /** The library in {@code native/} beside the jar this class came from, if it is the jar's own. */
  private static Optional<Path> unpacked() {
    String name = Environment.getJniLibraryFileName("rocksdb");
    URL entry = RocksDB.class.getResource("/" + name);
    if (entry == null) {
      return Optional.empty();
    }
    try {
      if (!(entry.openConnection() instanceof JarURLConnection jar)) {
        return Optional.empty();
      }
      Path file = Path.of(jar.getJarFileURL().toURI()).resolveSibling("native").resolve(name);
      if (!Files.isRegularFile(file)) {
        return Optional.empty();
      }
      ZipEntry packed = jar.getJarEntry();
      return Files.size(file) == packed.getSize() && crc(file) == packed.getCrc()
          ? Optional.of(file)
          : Optional.empty();
    } catch (IOException | URISyntaxException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static long crc(Path file) throws IOException {
    CRC32 crc = new CRC32();
    try (FileChannel channel = FileChannel.open(file)) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
      while (channel.read(buffer) > 0) {
        crc.update(buffer.flip());
        buffer.clear();
      }
    }
    return crc.getValue();
  }
}
