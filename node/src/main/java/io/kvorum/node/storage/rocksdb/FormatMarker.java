package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.Release;
import io.kvorum.node.core.StorageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The record format of a database directory, kept in a marker file beside RocksDB's own files
 * (RocksDB leaves files it does not name alone). Records of another format must never meet the
 * {@code max} merge operator, which would compare their bytes as if they were this format's, so a
 * directory is opened only if its marker names this format, or if it holds no records yet (then the
 * marker is written).
 *
 * <p>Formats are numbered ({@code kvorum-records-N}); every release so far writes format 3 (0.1.0
 * and 0.2.0: a 0.1.0 directory opens as it is, and a node can go back to 0.1.0 on a directory this
 * release ran on). The marker's first line is the format; a release that introduces a newer format
 * writes a second line {@code release=X} naming itself, so that an older release can refuse the
 * directory naming the release that opens it. The marker of format 3 stays one line: 0.1.0 compares
 * the whole file. A database without a marker but with records was written by a development build
 * before 0.1.0 (format 2), which no release reads.
 */
final class FormatMarker {
  static final String FILE = "KVORUM-FORMAT";
  static final String CURRENT = "kvorum-records-3";

  /** The number of {@link #CURRENT}. */
  static final int CURRENT_NUMBER = 3;

  private static final String PREFIX = "kvorum-records-";
  private static final String RELEASE = "release=";

  private FormatMarker() {}

  /**
   * Refuses {@code directory} if it holds records of another format.
   *
   * @return whether the marker is missing and must be written once the database is open
   * @throws StorageException naming the directory and what to do
   */
  static boolean check(Path directory) {
    Path marker = directory.resolve(FILE);
    try {
      if (Files.exists(marker)) {
        List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
        String format = lines.isEmpty() ? "" : lines.get(0).strip();
        if (!format.equals(CURRENT)) {
          throw refused(directory, unreadable(format, lines));
        }
        return false;
      }
      if (Files.exists(directory.resolve("CURRENT")) && holdsData(directory)) {
        throw refused(
            directory,
            "holds records without a format marker, written by a development build before kvorum"
                + " 0.1.0, which no release reads: wipe the data directory to start this node"
                + " afresh");
      }
      return true;
    } catch (IOException e) {
      throw new StorageException(StorageException.Kind.FAILURE, "open " + directory, null, e);
    }
  }

  /**
   * Why a marker naming {@code format} is refused: a newer format names the release that wrote it
   * (its {@code release=} line) as the one to start the node with.
   */
  private static String unreadable(String format, List<String> lines) {
    int number = number(format);
    String release = Release.version();
    if (number > CURRENT_NUMBER) {
      String opener =
          lines.stream()
              .skip(1)
              .map(String::strip)
              .filter(l -> l.startsWith(RELEASE))
              .map(l -> "kvorum " + l.substring(RELEASE.length()) + " or later")
              .findFirst()
              .orElse("the release that wrote it (one later than " + release + ")");
      return "holds records in format '"
          + format
          + "', newer than kvorum "
          + release
          + " reads ("
          + CURRENT
          + "): start this node with "
          + opener;
    }
    return "holds records in format '"
        + format
        + "', which kvorum "
        + release
        + " does not read (it reads "
        + CURRENT
        + ", written by every release since 0.1.0): wipe the data directory to start this node"
        + " afresh";
  }

  /** The number of {@code kvorum-records-N}, or -1 for a name of no known shape. */
  private static int number(String format) {
    if (!format.startsWith(PREFIX)) {
      return -1;
    }
    try {
      return Integer.parseInt(format.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Writes the marker durably: to a temporary file, fsynced, then moved into place. */
  static void write(Path directory) {
    try {
      DurableFiles.DISK.replace(
          directory.resolve(FILE), (CURRENT + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new StorageException(StorageException.Kind.FAILURE, "open " + directory, null, e);
    }
  }

  /** Whether the unmarked database has any record or hint, looked at read-only. */
  private static boolean holdsData(Path directory) {
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (Options listing = new Options();
        DBOptions options = new DBOptions();
        ColumnFamilyOptions family =
            new ColumnFamilyOptions().setMergeOperatorName(RocksDbOptions.MAX_MERGE)) {
      List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
      for (byte[] name : RocksDB.listColumnFamilies(listing, directory.toString())) {
        descriptors.add(new ColumnFamilyDescriptor(name, family));
      }
      try (RocksDB db = RocksDB.openReadOnly(options, directory.toString(), descriptors, handles)) {
        try {
          for (int i = 0; i < descriptors.size(); i++) {
            String name = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
            if (!name.equals(RocksDbOptions.DEATHS) && !isEmpty(db, handles.get(i))) {
              return true;
            }
          }
          return false;
        } finally {
          handles.forEach(ColumnFamilyHandle::close);
        }
      }
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("open " + directory, null, e);
    }
  }

  private static boolean isEmpty(RocksDB db, ColumnFamilyHandle family) throws RocksDBException {
    try (RocksIterator it = db.newIterator(family)) {
      it.seekToFirst();
      it.status();
      return !it.isValid();
    }
  }

  private static StorageException refused(Path directory, String reason) {
    return new StorageException(
        StorageException.Kind.FAILURE,
        "open " + directory,
        null,
        new IllegalStateException(directory + " " + reason));
  }
}
