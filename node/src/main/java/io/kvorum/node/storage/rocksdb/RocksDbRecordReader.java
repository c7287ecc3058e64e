package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.storage.RecordSource;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The records of a database directory that no node has open, a snapshot's or a stopped node's, read
 * in key order without changing a file: RocksDB opened read-only, each record decoded by {@link
 * RecordCodec} as the node itself decodes it. Only the records' family is read; the hints a
 * snapshot also holds are other nodes' writes
 * (docs/decisions/a-snapshot-is-a-rocksdb-checkpoint.md).
 */
public final class RocksDbRecordReader implements RecordSource {
  private static final long READAHEAD = 2L << 20;

  static {
    NativeLibrary.load();
  }

  private final Path directory;
  private final RocksDbOptions options;
  private final RocksDB db;
  private final List<ColumnFamilyHandle> handles;

  private RocksDbRecordReader(
      Path directory, RocksDbOptions options, RocksDB db, List<ColumnFamilyHandle> handles) {
    this.directory = directory;
    this.options = options;
    this.db = db;
    this.handles = handles;
  }

  /**
   * The database in {@code from}: {@code from} itself when it holds one (a snapshot, {@code
   * <data-dir>/snapshots/NAME}, or a {@code db/}), else {@code from/db} (a node's data directory);
   * null when neither does.
   */
  public static Path databaseIn(Path from) {
    for (Path candidate : new Path[] {from, from.resolve("db")}) {
      if (Files.isRegularFile(candidate.resolve("CURRENT"))) {
        return candidate;
      }
    }
    return null;
  }

  /**
   * Opens the database in {@code directory} ({@link #databaseIn}) read-only.
   *
   * @throws StorageException if a running node has it open (its {@code LOCK} file is locked), it
   *     holds records of another format, or RocksDB cannot open it
   */
  public static RocksDbRecordReader open(Path directory) {
    refuseIfLocked(directory);
    FormatMarker.check(directory);
    RocksDbOptions options;
    try {
      options = new RocksDbOptions(RocksDbSettings.defaults());
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("open " + directory, null, e);
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      RocksDB db =
          RocksDB.openReadOnly(options.db, directory.toString(), options.families, handles);
      return new RocksDbRecordReader(directory, options, db, handles);
    } catch (RocksDBException e) {
      options.close();
      throw RocksDbFailures.of("open " + directory + " read-only", null, e);
    }
  }

  /**
   * RocksDB holds an exclusive {@code fcntl} lock on {@code LOCK} while a process has the database
   * open for writing; a shared lock of ours fails then. A read-only open would not notice, and
   * would read a database that a running node keeps changing.
   *
   * @throws StorageException if a running node has the database in {@code directory} open
   */
  public static void refuseIfLocked(Path directory) {
    Path lock = directory.resolve("LOCK");
    if (!Files.exists(lock)) {
      return;
    }
    try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.READ);
        FileLock held = channel.tryLock(0, Long.MAX_VALUE, true)) {
      if (held == null) {
        throw inUse(directory, null);
      }
    } catch (OverlappingFileLockException e) {
      throw inUse(directory, e);
    } catch (IOException e) {
      throw StorageException.ofIo("lock " + lock, e);
    }
  }

  private static StorageException inUse(Path directory, Exception cause) {
    IOException reason =
        new IOException(
            "a running node has it open: stop the node, or take a snapshot (kvorum-node"
                + " snapshot) and load that",
            cause);
    return new StorageException(StorageException.Kind.FAILURE, "open " + directory, null, reason);
  }

  @Override
  public Path directory() {
    return directory;
  }

  /** RocksDB's estimate of the records held. */
  @Override
  public long estimatedRecords() {
    try {
      return db.getLongProperty(handles.get(0), "rocksdb.estimate-num-keys");
    } catch (RocksDBException e) {
      return 0;
    }
  }

  @Override
  public void forEach(Consumer<Entry> each) {
    try (ReadOptions reads = new ReadOptions().setFillCache(false).setReadaheadSize(READAHEAD);
        RocksIterator iterator = db.newIterator(handles.get(0), reads)) {
      for (iterator.seekToFirst(); iterator.isValid(); iterator.next()) {
        each.accept(new Entry(Key.of(iterator.key()), RecordCodec.decode(iterator.value())));
      }
      iterator.status();
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("read " + directory, null, e);
    }
  }

  @Override
  public void close() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    options.close();
  }
}
