package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.HintStore.Hint;
import io.kvorum.node.storage.HintStoreContract;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hints in the node's RocksDB: the contract, and that they survive a restart. */
class RocksDbHintStoreTest extends HintStoreContract {
  @TempDir Path dir;

  private ThreadPoolExecutor executor;
  private RocksDbStorageEngine engine;

  @Override
  protected HintStore newStore() {
    executor = StorageThreads.bounded(4, 10_000);
    return reopen();
  }

  private HintStore reopen() {
    engine = RocksDbStorageEngine.open(dir, RocksDbStorageEngineTest.SMALL, executor);
    return engine.hints();
  }

  @AfterEach
  void closeEngine() throws InterruptedException {
    engine.close();
    assertThat(StorageThreads.stop(executor)).isTrue();
  }

  @Test
  void hintsAndPendingCountsSurviveCloseAndReopen() {
    Key binary = Key.of(new byte[] {0x00, (byte) 0xFF});
    Record expiring = Record.value(version(3), bytes("expiring"), T0 + 60_000);
    add(N1, "a", value(1, "a"), T0 + 1);
    add(N1, "b", Record.tombstone(version(2)), T0 + 2);
    await(store.add(N1, binary, expiring, T0 + 3));
    add(N10, "c", value(4, "c"), T0 + 4);
    add(N2, "gone", value(5, "gone"), T0 + 5);
    remove(oldest(N2, 10));
    engine.close();

    store = reopen();

    assertThat(store.pending(N1)).isEqualTo(3);
    assertThat(store.pending(N10)).isEqualTo(1);
    assertThat(store.pending(N2)).isZero();
    assertThat(store.targets()).containsExactlyInAnyOrder(N1, N10);
    assertThat(oldest(N1, 10))
        .extracting(Hint::key, Hint::record, Hint::createdAtMillis)
        .containsExactly(
            tuple(Key.utf8("a"), value(1, "a"), T0 + 1),
            tuple(Key.utf8("b"), Record.tombstone(version(2)), T0 + 2),
            tuple(binary, expiring, T0 + 3));
    assertThat(keysOf(oldest(N10, 10))).containsExactly("c");
  }

  @Test
  void hintsAddedAfterAReopenComeAfterTheOlderOnesAndAreCountedWithThem() {
    add(N1, "before", value(1, "v"), T0 + 1);
    engine.close();
    store = reopen();

    add(N1, "after", value(2, "v"), T0 + 2);

    assertThat(keysOf(oldest(N1, 10))).containsExactly("before", "after");
    assertThat(store.pending(N1)).isEqualTo(2);
    remove(oldest(N1, 10));
    assertThat(store.pending(N1)).isZero();
    assertThat(store.targets()).isEmpty();
  }

  @Test
  void aRemovalThatSurvivedTheRestartStaysRemoved() {
    NodeId target = N1;
    add(target, "a", value(1, "v"), T0 + 1);
    add(target, "b", value(2, "v"), T0 + 2);
    Hint first = oldest(target, 1).get(0);
    remove(List.of(first));
    engine.close();
    store = reopen();

    remove(List.of(first));

    assertThat(store.pending(target)).isEqualTo(1);
    assertThat(keysOf(oldest(target, 10))).containsExactly("b");
  }
}
