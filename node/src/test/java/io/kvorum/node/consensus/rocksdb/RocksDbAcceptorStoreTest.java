package io.kvorum.node.consensus.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.AcceptorStoreContract;
import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.rocksdb.RocksDbSettings;
import io.kvorum.node.storage.rocksdb.RocksDbStorageEngine;
import io.kvorum.node.storage.rocksdb.StorageThreads;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Acceptor states in the node's RocksDB: the contract, a reopen, and a SIGKILLed process. */
class RocksDbAcceptorStoreTest extends AcceptorStoreContract {
  static final RocksDbSettings SMALL = new RocksDbSettings(false, 8L << 20, 4L << 20, 0);

  private static final int ACKNOWLEDGED_BEFORE_THE_KILL = 300;

  @TempDir Path dir;

  private ThreadPoolExecutor executor;
  private RocksDbStorageEngine engine;

  @Override
  protected AcceptorStore newStore() {
    executor = StorageThreads.bounded(4, 10_000);
    return reopen(dir);
  }

  private AcceptorStore reopen(Path directory) {
    engine = RocksDbStorageEngine.open(directory, SMALL, executor);
    return new RocksDbAcceptorStore(engine.paxos());
  }

  @AfterEach
  void closeEngine() throws InterruptedException {
    engine.close();
    assertThat(StorageThreads.stop(executor)).isTrue();
  }

  @Test
  void statesSurviveCloseAndReopenAndAreNotRecords() {
    Ballot ballot = ballot(10, N1);
    Record tombstone = Record.tombstone(Version.of(10, 0), 3);
    Proposal proposal = new Proposal(ballot, Optional.of(tombstone), Optional.empty());
    await(store.step(KEY, s -> s.prepare(ballot, Optional.empty())));
    await(store.step(KEY, s -> s.accept(proposal)));
    Key empty = Key.utf8("absent-value");
    Proposal nothing = new Proposal(ballot, Optional.empty(), Optional.of(Version.ZERO));
    await(store.step(empty, s -> s.accept(nothing)));
    engine.close();

    store = reopen(dir);

    assertThat(await(store.state(KEY))).isEqualTo(new AcceptorState(ballot, Optional.of(proposal)));
    assertThat(await(store.state(empty)))
        .isEqualTo(new AcceptorState(ballot, Optional.of(nothing)));
    assertThat(await(engine.get(KEY))).as("an accepted value is not a record").isEmpty();
  }

  /**
   * Group commit (issue 42): steps that arrive while every storage thread is busy are written in
   * one synced batch once one frees, each answered as if alone, in order, a key's later steps
   * seeing its earlier ones; and the states are there after a reopen.
   */
  @Test
  void stepsWaitingTogetherAreWrittenWithOneSync() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < executor.getMaximumPoolSize(); i++) {
      executor.execute(
          () -> {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    Awaitility.await().until(() -> executor.getActiveCount() == executor.getMaximumPoolSize());
    long before = ((RocksDbAcceptorStore) store).groups();
    List<CompletableFuture<Reply>> prepares = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Ballot ballot = ballot(10 + i, N1);
      prepares.add(store.step(Key.utf8("k" + i), s -> s.prepare(ballot, Optional.empty())));
    }
    Ballot low = ballot(20, N1);
    Ballot high = ballot(30, N2);
    Proposal atLow = new Proposal(low, Optional.empty(), Optional.of(Version.ZERO));
    CompletableFuture<Reply> first = store.step(KEY, s -> s.prepare(low, Optional.empty()));
    CompletableFuture<Reply> second = store.step(KEY, s -> s.prepare(high, Optional.empty()));
    CompletableFuture<Reply> late = store.step(KEY, s -> s.accept(atLow));

    release.countDown();

    assertThat(prepares).allSatisfy(p -> assertThat(await(p)).isInstanceOf(Reply.Promise.class));
    assertThat(await(first)).isInstanceOf(Reply.Promise.class);
    assertThat(await(second)).isInstanceOf(Reply.Promise.class);
    assertThat(await(late)).isInstanceOf(Reply.Rejected.class);
    assertThat(((RocksDbAcceptorStore) store).groups() - before).isEqualTo(1);
    engine.close();

    store = reopen(dir);

    assertThat(await(store.state(KEY)).promised()).isEqualTo(high);
    assertThat(await(store.state(Key.utf8("k99"))).promised()).isEqualTo(ballot(109, N1));
  }

  @Test
  void theFloorSurvivesCloseAndReopen() {
    await(store.raiseFloor(Version.of(1_000, 0)));
    engine.close();

    store = reopen(dir);

    assertThat(store.floor()).isEqualTo(Version.of(1_000, 0));
    assertThat(prepare(ballot(1_000, N1))).isInstanceOf(Reply.Rejected.class);
  }

  /**
   * A tombstone long past its grace is kept while its key holds an acceptor state (which may count
   * on it), and purged by the first record purge after that state is forgotten.
   */
  @Test
  void aDeadRecordIsKeptWhileItsKeyHoldsAnAcceptorState() {
    Ballot ballot = ballot(10, N1);
    Record tombstone = Record.tombstone(Version.of(10, 0), 3);
    prepare(ballot);
    await(
        store.step(
            KEY, s -> s.accept(new Proposal(ballot, Optional.of(tombstone), Optional.empty()))));
    await(engine.put(KEY, tombstone));

    assertThat(await(engine.purge(Long.MAX_VALUE - 1, 100)).removed()).isZero();
    assertThat(await(engine.get(KEY))).hasValue(tombstone);
    await(store.raiseFloor(Version.of(20, 0)));
    assertThat(await(store.purge(Map.of(KEY, Optional.of(tombstone))))).isEqualTo(1);

    assertThat(await(engine.purge(Long.MAX_VALUE, 100)).removed()).isEqualTo(1);
    assertThat(await(engine.get(KEY))).isEmpty();
  }

  /**
   * A process promising ever higher ballots is SIGKILLed: every promise it answered (printed) is
   * still there when the database is opened again, although its records are written unsynced.
   */
  @Test
  void aKilledProcessForgetsNoPromiseItAnswered() throws Exception {
    Path data = dir.resolve("killed");
    Process promiser =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                CrashPromiser.class.getName(),
                data.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    Map<String, Long> answered = new HashMap<>();
    int lines = 0;
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(promiser.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        String[] promise = line.split(" ");
        answered.merge(promise[0], Long.parseLong(promise[1]), Math::max);
        if (++lines == ACKNOWLEDGED_BEFORE_THE_KILL) {
          promiser.toHandle().destroyForcibly();
        }
      }
    } finally {
      promiser.destroyForcibly();
      promiser.waitFor(30, TimeUnit.SECONDS);
    }
    assertThat(lines).isGreaterThanOrEqualTo(ACKNOWLEDGED_BEFORE_THE_KILL);
    engine.close();

    store = reopen(data);

    for (Map.Entry<String, Long> promise : answered.entrySet()) {
      Ballot kept = await(store.state(Key.utf8(promise.getKey()))).promised();
      assertThat(kept.version().physicalMillis())
          .as("the promise of %s", promise.getKey())
          .isGreaterThanOrEqualTo(promise.getValue());
    }
  }
}
