package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Directories;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.rocksdb.NativeLibraryLoader;
import org.rocksdb.RocksDB;

/**
 * Loads RocksDB's native library once per process, leaving no copy of it behind. RocksJava copies
 * the library out of its jar into a new temporary file each time a process loads it, and deletes
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
      try {
        Path directory = Files.createTempDirectory("kvorum-rocksdb-");
        try {
          NativeLibraryLoader.getInstance().loadLibrary(directory.toString());
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
}
