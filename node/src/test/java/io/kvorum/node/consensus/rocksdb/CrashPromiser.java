package io.kvorum.node.consensus.rocksdb;

import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.kvorum.node.storage.rocksdb.StorageThreads;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * A process for {@link RocksDbAcceptorStoreTest}: promises ever higher ballots on 16 keys, 8 at a
 * time, and prints {@code key ballot-millis} for every promise answered, until it is killed.
 */
final class CrashPromiser {
  private CrashPromiser() {}

  public static void main(String[] args) throws InterruptedException {
    RocksDbStorageEngine engine =
        RocksDbStorageEngine.open(
            Path.of(args[0]), RocksDbAcceptorStoreTest.SMALL, StorageThreads.bounded(4, 10_000));
    AcceptorStore store = new RocksDbAcceptorStore(engine.paxos());
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    Semaphore inFlight = new Semaphore(8);
    for (long millis = 1; ; millis++) {
      inFlight.acquire();
      String name = "k" + millis % 16;
      Ballot ballot = new Ballot(Version.of(millis, 0), NodeId.of("n1"));
      long answered = millis;
      store
          .step(Key.utf8(name), s -> s.prepare(ballot, Optional.empty()))
          .whenComplete(
              (reply, error) -> {
                if (error == null) {
                  synchronized (out) {
                    out.println(name + " " + answered);
                    out.flush();
                  }
                }
                inFlight.release();
              });
    }
  }
}
