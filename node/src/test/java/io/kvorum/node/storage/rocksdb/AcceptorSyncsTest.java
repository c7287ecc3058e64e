package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.Acceptor;
import io.kvorum.node.consensus.AcceptorStore;
import io.kvorum.node.consensus.rocksdb.RocksDbAcceptorStore;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.WalSync;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.TickerType;

/**
 * How many times an acceptor that stores the value it accepts (a conditional write committed by its
 * accepts, issue 42) syncs the write-ahead log, counted by RocksDB ({@code WAL_FILE_SYNCED}): once
 * with {@code --sync-writes true}, where the record's synced write also makes the acceptance
 * written before it durable (one log for both); once with the default interval, where the
 * acceptance is synced and the record waits for the interval. A refusal writes and syncs nothing;
 * this node's promise to its own round is synced by the acceptance that follows it.
 */
class AcceptorSyncsTest {
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.UTF_8));
  private static final Ballot BALLOT = new Ballot(Version.of(10, 0), NodeId.of("n1"));
  private static final Record VALUE = Record.value(Version.of(10, 0), "v".getBytes());
  private static final Proposal PROPOSAL =
      new Proposal(BALLOT, Optional.of(VALUE), Optional.empty());

  @TempDir Path dir;
  private ThreadPoolExecutor storage;
  private RocksDbStorageEngine engine;
  private AcceptorStore states;

  @AfterEach
  void close() throws InterruptedException {
    if (engine != null) {
      engine.close();
    }
    assertThat(StorageThreads.stop(storage)).isTrue();
  }

  @Test
  void withEveryWriteSyncedAnAcceptanceThatStoresItsValueSyncsTheLogOnce() {
    Acceptor acceptor = open(WalSync.EVERY_WRITE);
    long before = walSyncs();

    Reply reply = acceptor.accept(KEY, PROPOSAL, true).join();

    assertThat(reply).isEqualTo(new Reply.Accepted(BALLOT, true));
    assertThat(walSyncs() - before).as("syncs of the log").isEqualTo(1);
    assertKeptAfterReopen(WalSync.EVERY_WRITE);
  }

  @Test
  void withTheDefaultIntervalTheAcceptanceIsSyncedAndTheRecordWaitsForTheInterval() {
    Acceptor acceptor = open(WalSync.DEFAULT);
    long before = walSyncs();

    Reply reply = acceptor.accept(KEY, PROPOSAL, true).join();

    assertThat(reply).isEqualTo(new Reply.Accepted(BALLOT, true));
    assertThat(walSyncs() - before).as("syncs of the log").isEqualTo(1);
    assertKeptAfterReopen(WalSync.DEFAULT);
  }

  @Test
  void aPromiseToThisNodesOwnRoundIsSyncedByItsAcceptanceAndAnotherNodesAtOnce() {
    Acceptor acceptor = open(WalSync.DEFAULT);
    long before = walSyncs();

    assertThat(acceptor.prepareForOwnRound(KEY, BALLOT).join()).isInstanceOf(Reply.Promise.class);
    assertThat(walSyncs() - before).as("this node's own promise").isZero();
    assertThat(acceptor.accept(KEY, PROPOSAL, false).join()).isInstanceOf(Reply.Accepted.class);
    assertThat(walSyncs() - before).as("its acceptance, covering the promise").isEqualTo(1);

    Ballot other = new Ballot(Version.of(20, 0), NodeId.of("n2"));
    assertThat(acceptor.prepare(KEY, other).join()).isInstanceOf(Reply.Promise.class);
    assertThat(walSyncs() - before).as("a promise to another node's round").isEqualTo(2);
  }

  @Test
  void aRefusedAcceptanceStoresNothingAndSyncsNothing() {
    Acceptor acceptor = open(WalSync.EVERY_WRITE);
    Ballot higher = new Ballot(Version.of(20, 0), NodeId.of("n2"));
    acceptor.prepare(KEY, higher).join();
    long before = walSyncs();

    Reply reply = acceptor.accept(KEY, PROPOSAL, true).join();

    assertThat(reply).isInstanceOf(Reply.Rejected.class);
    assertThat(walSyncs() - before).isZero();
    assertThat(engine.get(KEY).join()).isEmpty();
  }

  private Acceptor open(WalSync sync) {
    storage = StorageThreads.bounded(2, 1_000);
    engine =
        RocksDbStorageEngine.open(
            dir, RocksDbSettings.defaults().withSync(sync).withStatistics(), storage);
    states = new RocksDbAcceptorStore(engine.paxos());
    return new Acceptor(engine, states, sync.everyWrite());
  }

  /** The acceptance and the record are there once the database is reopened. */
  private void assertKeptAfterReopen(WalSync sync) {
    engine.close();
    engine =
        RocksDbStorageEngine.open(
            dir, RocksDbSettings.defaults().withSync(sync).withStatistics(), storage);
    states = new RocksDbAcceptorStore(engine.paxos());
    assertThat(states.state(KEY).join().accepted()).contains(PROPOSAL);
    assertThat(engine.get(KEY).join()).contains(VALUE);
  }

  private long walSyncs() {
    return engine.options().statistics.getTickerCount(TickerType.WAL_FILE_SYNCED);
  }
}
