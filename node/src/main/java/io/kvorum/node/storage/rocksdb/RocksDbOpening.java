package io.kvorum.node.storage.rocksdb;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Opens a {@link RocksDbStorageEngine}: checks the record format of the directory, opens the
 * database with every column family, and leaves nothing open if any step fails.
 */
final class RocksDbOpening {
  private RocksDbOpening() {}

  static RocksDbStorageEngine open(
      Path directory, RocksDbSettings settings, Executor executor, boolean captureChanges) {
    boolean unmarked = FormatMarker.check(directory);
    RocksDbOptions options;
    try {
      options = new RocksDbOptions(settings);
    } catch (RocksDBException e) {
      throw RocksDbFailures.of("open " + directory, null, e);
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    RocksDB db;
    try {
      db = options.open(directory.toString(), handles);
    } catch (RocksDBException e) {
      options.close();
      throw RocksDbFailures.of("open " + directory, null, e);
    }
    try {
      if (unmarked) {
        FormatMarker.write(directory);
      }
      return new RocksDbStorageEngine(
          executor, options, db, handles, settings, directory, captureChanges);
    } catch (RuntimeException e) {
      handles.forEach(ColumnFamilyHandle::close);
      db.close();
      options.close();
      throw e;
    }
  }
}
