package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * A process for {@link RocksDbDurabilityTest}: writes to an engine as fast as it can, single puts
 * and batches, each key twice, and prints {@code key version} for every write acknowledged, until
 * it is killed. Its arguments: the data directory, and {@code at-once} or {@code queued} (how the
 * engine writes: on this thread, or through its storage threads).
 */
final class CrashWriter {
  private CrashWriter() {}

  public static void main(String[] args) throws InterruptedException {
    RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(
            Path.of(args[0]),
            args[1].equals("queued")
                ? RocksDbStorageEngineTest.QUEUED
                : RocksDbStorageEngineTest.SMALL,
            StorageThreads.bounded(4, 10_000));
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    Semaphore inFlight = new Semaphore(256);
    for (long version = 1; ; version += 2) {
      inFlight.acquire();
      String name = "k" + version / 4;
      CompletableFuture<Void> write =
          version % 8 == 1
              ? engine.putAll(
                  List.of(
                      new Entry(Key.utf8(name), record(version)),
                      new Entry(Key.utf8(name), record(version + 1))))
              : engine.put(Key.utf8(name), record(version + 1));
      long acknowledged = version + 1;
      write.whenComplete(
          (ok, error) -> {
            if (error == null) {
              synchronized (out) {
                out.println(name + " " + acknowledged);
                out.flush();
              }
            }
            inFlight.release();
          });
    }
  }

  /** The record of {@code version}: its value names the version, with a zero byte inside. */
  static Record record(long version) {
    return Record.value(
        new Version(version), ("v" + version + "\0.").getBytes(StandardCharsets.UTF_8));
  }
}
