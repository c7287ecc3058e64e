package io.kvorum.node.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.replica.ReplicaScan;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.transport.TransportTestCluster.Node;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link PeerTransport} contract, written once and bound to every implementation by a subclass
 * that says how to start nodes joined by it: what a caller sees of a peer's replicas, the clock
 * carried both ways, the peer's errors arriving as themselves, deadlines, and many concurrent calls
 * on one connection under delays, drops and a broken connection.
 */
public abstract class PeerTransportContract {
  protected static final Duration WAIT = Duration.ofSeconds(30);
  protected static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
  protected static final NodeId N1 = NodeId.of("n1");
  protected static final NodeId N2 = NodeId.of("n2");
  protected static final NodeId N3 = NodeId.of("n3");
  private static final long NOW = System.currentTimeMillis();

  private TransportTestCluster cluster;
  private PeerCalls caller;

  /**
   * Starts {@code size} nodes {@code n1}… joined by the transport under test.
   *
   * @param callTimeout the transports' deadline for a read, a write or a scan batch
   * @param walls may give a node its own wall clock (null: the system's)
   */
  protected abstract TransportTestCluster start(
      int size, Duration callTimeout, Function<NodeId, LongSupplier> walls);

  @AfterEach
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private void cluster(int size, Duration callTimeout) {
    cluster(size, callTimeout, id -> null);
  }

  private void cluster(int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    cluster = start(size, callTimeout, walls);
  }

  private Node node(NodeId id) {
    return cluster.node(id);
  }

  /** Node n1's calls: one for the whole test, so that what a ping reported is kept. */
  private PeerCalls caller() {
    if (caller == null) {
      caller = node(N1).transport();
    }
    return caller;
  }

  // ---- reads and writes -----------------------------------------------------------------------

  @Test
  void writesAndReadsRoundTripEveryKindOfRecord() {
    cluster(2, CALL_TIMEOUT);
    Key binary = Key.of(new byte[] {0x00, (byte) 0xFF, 0x0A, (byte) 0x80});
    List<Key> keys = List.of(key("value"), key("tombstone"), key("ttl"), key("empty"), binary);
    List<Record> records =
        List.of(
            Record.value(version(1), bytes("hello")),
            Record.tombstone(version(2), 3),
            Record.value(version(3), bytes("expiring"), NOW + 60_000, 2),
            Record.value(version(4), new byte[0]),
            Record.value(version(5), new byte[] {0x00, (byte) 0xFF, 0x00}));

    for (int i = 0; i < keys.size(); i++) {
      await(caller().write(N2, keys.get(i), records.get(i)));
    }

    for (int i = 0; i < keys.size(); i++) {
      assertThat(await(caller().read(N2, keys.get(i)))).contains(records.get(i));
      assertThat(await(node(N2).storage().get(keys.get(i))))
          .as("stored on the peer itself")
          .contains(records.get(i));
    }
    assertThat(await(node(N1).storage().get(keys.get(0)))).as("not on the caller").isEmpty();
    assertThat(await(caller().read(N2, key("absent")))).isEmpty();
  }

  @Test
  void anOlderWriteDoesNotReplaceANewerRecordOnThePeer() {
    cluster(2, CALL_TIMEOUT);

    await(caller().write(N2, key("k"), Record.value(version(5), bytes("new"))));
    await(caller().write(N2, key("k"), Record.value(version(1), bytes("old"))));

    assertThat(await(caller().read(N2, key("k")))).contains(Record.value(version(5), bytes("new")));
  }

  @Test
  void thousandsOfConcurrentCallsEachGetTheirOwnAnswerAndEveryWriteIsAppliedOnce() {
    cluster(2, Duration.ofSeconds(20));
    ReplicaServices.WriteBatches received =
        new ReplicaServices.WriteBatches(node(N2).normalService());
    node(N2).serve(received);
    int half = 2_500;
    for (int i = 0; i < half; i++) {
      await(node(N2).storage().put(key("old-" + i), Record.value(version(0), bytes("old-" + i))));
    }

    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < half; i++) {
      reads.add(caller().read(N2, key("old-" + i)));
      writes.add(caller().write(N2, key("new-" + i), Record.value(version(1), bytes("new-" + i))));
    }

    for (int i = 0; i < half; i++) {
      assertThat(await(reads.get(i)))
          .as("read %d", i)
          .map(r -> text(r.value()))
          .contains("old-" + i);
      await(writes.get(i));
      assertThat(await(node(N2).storage().get(key("new-" + i))))
          .map(r -> text(r.value()))
          .contains("new-" + i);
    }
    assertThat(received.sizes().stream().mapToInt(Integer::intValue).sum()).isEqualTo(half);
  }

  // ---- scans ----------------------------------------------------------------------------------

  @Test
  void aScanReturnsEveryRecordInOrderInSeveralBatches() {
    cluster(2, CALL_TIMEOUT);
    List<Key> expected = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      Key key = key(String.format("scan/%04d", i));
      Record record =
          i % 7 == 0 ? Record.tombstone(version(1)) : Record.value(version(1), bytes("v" + i));
      await(node(N2).storage().put(key, record));
      expected.add(key);
    }
    await(node(N2).storage().put(key("scan0"), Record.value(version(1), bytes("after"))));
    await(node(N2).storage().put(key("scal"), Record.value(version(1), bytes("before"))));

    List<List<Entry>> batches;
    try (ScanCursor cursor = caller().scan(N2, KeyRange.between(key("scan/"), key("scan0")))) {
      batches = readBatches(cursor);
    }

    assertThat(batches).hasSizeGreaterThan(1);
    List<Entry> all = batches.stream().flatMap(List::stream).toList();
    assertThat(all).extracting(Entry::key).containsExactlyElementsOf(expected);
    assertThat(all.get(0).record().tombstone()).as("tombstones included").isTrue();
    assertThat(text(all.get(1).record().value())).isEqualTo("v1");
  }

  @Test
  void aScanWithAFirstBatchSendsThatManyEntriesFirstThenTwiceAsManyEachTime() {
    cluster(2, CALL_TIMEOUT);
    for (int i = 0; i < 100; i++) {
      await(
          node(N2)
              .storage()
              .put(key(String.format("page/%03d", i)), Record.value(version(1), bytes("v"))));
    }

    List<List<Entry>> batches;
    try (ScanCursor cursor = caller().scan(N2, new ReplicaScan(KeyRange.from(key("page/")), 5))) {
      batches = readBatches(cursor);
    }

    assertThat(batches).extracting(List::size).containsExactly(5, 10, 20, 40, 25);
  }

  @Test
  void aScanOfAnEmptyRangeEndsAtOnce() {
    cluster(2, CALL_TIMEOUT);

    try (ScanCursor cursor = caller().scan(N2, KeyRange.from(key("nothing")))) {
      assertThat(await(cursor.next(100, 1 << 20))).isEmpty();
      assertThat(await(cursor.next(100, 1 << 20))).isEmpty();
    }
  }

  @Test
  void aScanWhosePeerSendsNothingFailsAtTheDeadlineAsUnavailable() {
    cluster(2, Duration.ofMillis(300));
    node(N2).serve(new ReplicaServices.Stalled());

    try (ScanCursor cursor = caller().scan(N2, KeyRange.from(key("a")))) {
      assertThat(failure(cursor.next(10, 1 << 20))).isInstanceOf(PeerUnavailableException.class);
    }
  }

  // ---- anti-entropy ---------------------------------------------------------------------------

  @Test
  void antiEntropyCallsCarryThePeersTreeAndTheRecordsItShares() {
    cluster(3, CALL_TIMEOUT);
    List<Entry> shared = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      Entry entry = new Entry(key("ae-" + i), Record.value(version(i + 1), bytes("v" + i), 0, 3));
      shared.add(entry);
      await(caller().write(N2, entry.key(), entry.record()));
      await(node(N2).transport().write(N1, entry.key(), entry.record()));
    }
    await(caller().write(N2, key("only-on-n2"), Record.value(version(1), bytes("x"), 0, 3)));
    await(caller().write(N2, key("single-copy"), Record.value(version(1), bytes("x"), 0, 1)));

    int[] root = {0};
    long[] theirs = await(caller().treeHashes(N2, 0, root));
    long[] ours = await(node(N1).repair().hashes(N2, 0, root));
    assertThat(theirs).hasSize(1);
    assertThat(theirs).as("n2 holds one record more than n1").isNotEqualTo(ours);

    int[] all = IntStream.range(0, 1 << 16).toArray();
    List<Entry> pulled = new ArrayList<>();
    try (ScanCursor cursor = caller().segments(N2, all)) {
      for (List<Entry> batch = await(cursor.next(64, 1 << 20));
          !batch.isEmpty();
          batch = await(cursor.next(64, 1 << 20))) {
        pulled.addAll(batch);
      }
    }
    List<Key> expected = new ArrayList<>(shared.stream().map(Entry::key).toList());
    expected.add(key("only-on-n2"));
    assertThat(pulled.stream().map(Entry::key).toList())
        .as("every record both should hold, in key order; not the one n2 alone should hold")
        .containsExactlyElementsOf(expected.stream().sorted().toList());

    await(
        node(N2)
            .transport()
            .write(N1, key("only-on-n2"), Record.value(version(1), bytes("x"), 0, 3)));
    assertThat(await(caller().treeHashes(N2, 0, root)))
        .isEqualTo(await(node(N1).repair().hashes(N2, 0, root)));
    assertThat(failure(caller().treeHashes(N2, 7, root)))
        .as("a level that does not exist")
        .isInstanceOf(InvalidRequestException.class);
  }

  // ---- membership -----------------------------------------------------------------------------

  @Test
  void aHandoffCarriesItsChangeTargetAndStartAndStreamsWhatThePeerHandsOff() {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N2) ? () -> System.currentTimeMillis() + ahead : null);
    List<String> asked = new CopyOnWriteArrayList<>();
    ServedNode normal = node(N2).normalService();
    node(N2)
        .serve(
            new ReplicaServices.Forwarding() {
              @Override
              protected ServedNode delegate() {
                return normal;
              }

              @Override
              public ScanCursor handoff(long epoch, NodeId to, Key start) {
                asked.add(epoch + " " + to + " " + start);
                return normal.scan(KeyRange.from(start)).filter(e -> e.key().size() % 2 == 1);
              }
            });
    for (int i = 0; i < 300; i++) {
      await(node(N2).storage().put(key("h-" + i), Record.value(version(i + 1), bytes("v" + i))));
    }
    Version peer = node(N2).clock().now();

    List<Entry> pulled = new ArrayList<>();
    try (ScanCursor cursor = caller().handoff(N2, 7, N1, key("h-1"))) {
      for (List<Entry> batch = await(cursor.next(64, 1 << 20));
          !batch.isEmpty();
          batch = await(cursor.next(64, 1 << 20))) {
        pulled.addAll(batch);
      }
    }
    try (ScanCursor cursor = caller().handoff(N2, 8, null, key("h-2"))) {
      await(cursor.next(64, 1 << 20));
    }

    assertThat(asked).containsExactly("7 n1 " + key("h-1"), "8 null " + key("h-2"));
    assertThat(pulled)
        .as("what the peer's handoff gave, in key order, records intact")
        .containsExactlyElementsOf(
            await(node(N2).storage().scan(KeyRange.from(key("h-1"))).next(1000, 1 << 20)).stream()
                .filter(e -> e.key().size() % 2 == 1)
                .toList());
    assertThat(pulled).hasSizeGreaterThan(150); // several batches
    assertThat(node(N1).clock().current()).isGreaterThanOrEqualTo(peer);
    node(N2).serveNormally();
    assertThat(failure(caller().handoff(N2, 7, N1, key("a")).next(10, 1 << 20)))
        .as("a node without membership")
        .isInstanceOf(UnavailableException.class);
  }

  // ---- hello ----------------------------------------------------------------------------------

  @Test
  void helloMakesThePeerDeliverItsHintsForTheCallerBeforeItAnswers() {
    cluster(3, CALL_TIMEOUT);
    Node holder = node(N2);
    long now = holder.clock().wallMillis();
    // Written to all three nodes, so n1 holds the keys: a hint for a replica that does not is
    // forgotten, not delivered (HintedHandoffTest).
    Record missed =
        Record.value(holder.clock().now(), bytes("written while n1 was away"), Record.NO_EXPIRY, 3);
    Record deleted = Record.tombstone(holder.clock().now(), 3);
    await(holder.hints().add(N1, key("missed"), missed, now));
    await(holder.hints().add(N1, key("deleted"), deleted, now));
    await(holder.hints().add(N3, key("for-n3"), missed, now));

    long delivered = await(caller().hello(N2));

    assertThat(delivered).isEqualTo(2);
    assertThat(await(node(N1).storage().get(key("missed")))).contains(missed);
    assertThat(await(node(N1).storage().get(key("deleted")))).contains(deleted);
    assertThat(holder.hints().pending(N1)).isZero();
    assertThat(holder.hints().pending(N3)).as("hints for others stay").isEqualTo(1);
    assertThat(await(caller().hello(N3))).as("a peer with no hints").isZero();
  }

  // ---- the clock ------------------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Operation.class)
  void everyCallMovesThePeersClockPastTheCallers(Operation operation) {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N1) ? () -> System.currentTimeMillis() + ahead : null);
    Version sent = node(N1).clock().now();

    await(operation.call(caller()));

    Version receiver = node(N2).clock().current();
    assertThat(receiver).isGreaterThanOrEqualTo(sent);
    assertThat(receiver.physicalMillis())
        .as("ahead of the receiver's own wall clock")
        .isGreaterThan(System.currentTimeMillis() + ahead / 2);
  }

  @ParameterizedTest
  @EnumSource(Operation.class)
  void everyAnswerMovesTheCallersClockPastThePeers(Operation operation) {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N2) ? () -> System.currentTimeMillis() + ahead : null);
    await(node(N2).storage().put(key("k"), Record.value(version(1), bytes("v"))));
    Version peer = node(N2).clock().now();

    await(operation.call(caller()));

    assertThat(node(N1).clock().current()).isGreaterThanOrEqualTo(peer);
  }

  @ParameterizedTest
  @EnumSource(Operation.class)
  void aFailureMovesTheCallersClockPastThePeersToo(Operation operation) {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N2) ? () -> System.currentTimeMillis() + ahead : null);
    node(N2).serve(ReplicaServices.failing(() -> new OverloadedException("storage")));
    Version peer = node(N2).clock().now();

    assertThat(failure(operation.call(caller()))).isInstanceOf(OverloadedException.class);

    assertThat(node(N1).clock().current()).isGreaterThanOrEqualTo(peer);
  }

  @Test
  void aPingAnswersWithThePeersWallClock() {
    long ahead = Duration.ofHours(1).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N2) ? () -> System.currentTimeMillis() + ahead : null);

    long before = System.currentTimeMillis();
    long peerWall = await(caller().ping(N2));
    long after = System.currentTimeMillis();

    assertThat(peerWall).isBetween(before + ahead, after + ahead);
  }

  @Test
  void aPingCarriesThePeersStorageFiguresWhichTheCallerKeepsUntilTheNext() {
    cluster(2, CALL_TIMEOUT);
    for (int i = 0; i < 5; i++) {
      await(caller().write(N2, key("figures-" + i), Record.value(version(i + 1), bytes("v"))));
    }
    assertThat(caller().reportedStorage(N2)).as("before any ping").isEmpty();

    await(caller().ping(N2));
    assertThat(caller().reportedStorage(N2))
        .hasValueSatisfying(report -> assertThat(report.records()).isEqualTo(5));

    await(caller().write(N2, key("figures-5"), Record.value(version(6), bytes("v"))));
    assertThat(caller().reportedStorage(N2).orElseThrow().records())
        .as("until the next")
        .isEqualTo(5);
    await(caller().ping(N2));
    assertThat(caller().reportedStorage(N2).orElseThrow().records()).isEqualTo(6);
    assertThat(caller().reportedStorage(N3)).as("a node never pinged").isEmpty();
  }

  @Test
  void aPageOfThePeersChangeLogCarriesItsChangesInArrivalOrderAndWhereToReadOn() {
    cluster(2, CALL_TIMEOUT);
    Record written = Record.value(version(1), bytes("1"), 123_456L, 3);
    await(caller().write(N2, key("log-a"), written));
    await(caller().write(N2, key("other"), Record.value(version(1), bytes("x"))));
    await(caller().write(N2, key("log-b"), Record.tombstone(version(2))));
    KeyRange range = KeyRange.between(key("log-"), key("log."));

    ChangeLog.Page page = await(caller().changes(N2, range, 0, 10));

    assertThat(page.changes())
        .extracting(c -> c.key(), c -> c.record())
        .containsExactly(
            tuple(key("log-a"), written), tuple(key("log-b"), Record.tombstone(version(2))));
    assertThat(page.changes()).extracting(ChangeLog.Change::stamp).isSorted();
    assertThat(page.closed()).isGreaterThanOrEqualTo(page.changes().get(1).stamp());
    assertThat(page.more()).isFalse();
    assertThat(await(caller().changes(N2, range, page.closed(), 10)).changes()).isEmpty();
    ChangeLog.Page first = await(caller().changes(N2, range, 0, 1));
    assertThat(first.changes()).hasSize(1);
    assertThat(first.more()).isTrue();
  }

  @Test
  void readsOfThePeersChangeLogInOneCallAreAnsweredAPageEachInTheirOrder() {
    cluster(2, CALL_TIMEOUT);
    await(caller().write(N2, key("a/1"), Record.value(version(1), bytes("1"))));
    await(caller().write(N2, key("b/1"), Record.value(version(1), bytes("2"))));
    await(caller().write(N2, key("a/2"), Record.value(version(1), bytes("3"))));
    KeyRange a = KeyRange.between(key("a/"), key("a0"));
    KeyRange b = KeyRange.between(key("b/"), key("b0"));
    KeyRange c = KeyRange.between(key("c/"), key("c0"));

    List<ChangeLog.Page> pages =
        await(
            caller()
                .changes(
                    N2,
                    List.of(
                        new ChangeLog.Read(b, 0, 10),
                        new ChangeLog.Read(a, 0, 10),
                        new ChangeLog.Read(c, 0, 10),
                        new ChangeLog.Read(a, 0, 1))));

    assertThat(pages).hasSize(4);
    assertThat(pages.get(0).changes())
        .extracting(ChangeLog.Change::key)
        .containsExactly(key("b/1"));
    assertThat(pages.get(1).changes())
        .extracting(ChangeLog.Change::key)
        .containsExactly(key("a/1"), key("a/2"));
    assertThat(pages.get(2).changes()).isEmpty();
    assertThat(pages.get(2).more()).isFalse();
    assertThat(pages.get(3).changes())
        .extracting(ChangeLog.Change::key)
        .containsExactly(key("a/1"));
    assertThat(pages.get(3).more()).isTrue();
  }

  @Test
  void aWriteTooFarAheadOfThePeersClockIsRefusedWithItsOffsetAndTheOthersAreStored() {
    cluster(2, CALL_TIMEOUT);
    long ahead = Duration.ofHours(1).toMillis();
    Record future = Record.value(Version.of(System.currentTimeMillis() + ahead, 0), bytes("f"));
    List<CompletableFuture<Void>> others = new ArrayList<>();
    CompletableFuture<Void> refused = caller().write(N2, key("future"), future);
    for (int i = 0; i < 20; i++) {
      others.add(caller().write(N2, key("now-" + i), Record.value(version(1), bytes("v"))));
    }

    assertThat(failure(refused))
        .isInstanceOfSatisfying(
            ClockOffsetException.class,
            e -> {
              assertThat(e.offsetMillis()).isBetween(ahead - 10_000, ahead);
              assertThat(e.maxOffsetMillis())
                  .isEqualTo(TransportTestCluster.MAX_CLOCK_OFFSET.toMillis());
              assertThat(e).hasMessageContaining("ahead of this replica's wall clock");
            });
    assertThat(await(node(N2).storage().get(key("future")))).isEmpty();
    for (int i = 0; i < others.size(); i++) {
      // Written in the same batch as the refused one, a write may be reported refused too; it is
      // stored all the same.
      others.get(i).handle((ok, error) -> null).join();
      assertThat(await(node(N2).storage().get(key("now-" + i)))).as("write %d", i).isPresent();
    }
  }

  // ---- the peer's errors ----------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Fault.class)
  void aPeersFailureArrivesAsTheSameKindOfErrorForEveryOperation(Fault fault) {
    cluster(2, CALL_TIMEOUT);
    node(N2).serve(ReplicaServices.failing(fault.raised));

    for (Operation operation : Operation.values()) {
      assertThat(failure(operation.call(caller())))
          .as("%s", operation)
          .matches(fault.arrives, fault.name());
    }
    node(N2).serveNormally();
    assertThat(await(caller().read(N2, key("k")))).as("the connection is still fine").isEmpty();
  }

  @Test
  void aPeerWhoseDiskIsFullFailsWritesWithNoSpaceAndStillServesReads() {
    cluster(2, CALL_TIMEOUT);
    await(node(N2).storage().put(key("old"), Record.value(version(1), bytes("v"))));
    node(N2).serve(ReplicaServices.fullDisk(node(N2).normalService()));

    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      writes.add(caller().write(N2, key("new-" + i), Record.value(version(2), bytes("v"))));
    }

    for (CompletableFuture<Void> write : writes) {
      assertThat(failure(write))
          .isInstanceOfSatisfying(
              StorageException.class,
              e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE));
    }
    assertThat(await(caller().read(N2, key("old")))).isPresent();
  }

  // ---- deadlines ------------------------------------------------------------------------------

  @Test
  void aPeerThatNeverAnswersFailsEachCallAtItsDeadlineAndALateAnswerIsDropped() {
    Duration timeout = Duration.ofMillis(300);
    cluster(2, timeout);
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);

    long start = System.nanoTime();
    CompletableFuture<Optional<Record>> read = caller().read(N2, key("k"));
    CompletableFuture<Void> write =
        caller().write(N2, key("k"), Record.value(version(1), bytes("v")));
    assertThat(read).isNotDone();
    assertThat(failure(read))
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("no answer within 300 ms");
    assertThat(failure(write)).isInstanceOf(PeerUnavailableException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took)
        .isGreaterThanOrEqualTo(timeout.minusMillis(20))
        .isLessThan(timeout.multipliedBy(10));

    node(N2).serveNormally();
    stalled.answerAll();
    await(caller().write(N2, key("k"), Record.value(version(2), bytes("v"))));
    assertThat(await(caller().read(N2, key("k")))).as("the connection is still fine").isPresent();
  }

  // ---- many calls under delays, drops and a broken connection ---------------------------------

  @Test
  void delayedAnswersArriveMatchedToTheirRequests() {
    cluster(2, Duration.ofSeconds(20));
    int count = 1_000;
    for (int i = 0; i < count; i++) {
      await(node(N2).storage().put(key("k" + i), Record.value(version(0), bytes("v" + i))));
    }
    node(N2).serve(ReplicaServices.delayed(node(N2).normalService(), Duration.ofMillis(50), 7));

    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      reads.add(caller().read(N2, key("k" + i)));
      writes.add(caller().write(N2, key("w" + i), Record.value(version(1), bytes("w" + i))));
    }

    for (int i = 0; i < count; i++) {
      assertThat(await(reads.get(i))).as("read %d", i).map(r -> text(r.value())).contains("v" + i);
      await(writes.get(i));
      assertThat(await(node(N2).storage().get(key("w" + i))))
          .map(r -> text(r.value()))
          .contains("w" + i);
    }
  }

  @Test
  void callsWhoseAnswersAreLostFailAtTheirDeadlineWhileTheOthersComplete() {
    Duration timeout = Duration.ofSeconds(1);
    cluster(2, timeout);
    int count = 500;
    for (int i = 0; i < count; i++) {
      await(node(N2).storage().put(key("k" + i), Record.value(version(0), bytes("v" + i))));
    }
    Predicate<Key> lost = key -> text(key.bytes()).endsWith("7");
    node(N2).serve(ReplicaServices.droppingReads(node(N2).normalService(), lost));

    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      reads.add(caller().read(N2, key("k" + i)));
    }

    for (int i = 0; i < count; i++) {
      if (lost.test(key("k" + i))) {
        assertThat(failure(reads.get(i)))
            .as("read %d", i)
            .isInstanceOf(PeerUnavailableException.class);
      } else {
        assertThat(await(reads.get(i)))
            .as("read %d", i)
            .map(r -> text(r.value()))
            .contains("v" + i);
      }
    }
  }

  @Test
  void aBrokenConnectionFailsWhatWaitsOnItPromptlyAndCallsSucceedOnceThePeerIsBack() {
    Duration timeout = Duration.ofSeconds(30);
    cluster(3, timeout);
    List<NodeId> reachableAgain = new CopyOnWriteArrayList<>();
    caller().onPeerReachable(reachableAgain::add);
    await(caller().write(N2, key("k"), Record.value(version(1), bytes("v"))));
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);
    List<CompletableFuture<Optional<Record>>> waiting = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      waiting.add(caller().read(N2, key("k")));
    }
    Awaitility.await().atMost(WAIT).until(() -> stalled.waiting() == 200);

    long start = System.nanoTime();
    cluster.stop(N2);

    for (CompletableFuture<Optional<Record>> read : waiting) {
      assertThat(failure(read)).isInstanceOf(PeerUnavailableException.class);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("failed long before their deadline")
        .isLessThan(timeout.dividedBy(3));
    Throwable refused = failure(caller().read(N2, key("k")));
    assertThat(refused).isInstanceOf(PeerUnavailableException.class);
    assertThat(((PeerUnavailableException) refused).peer()).isEqualTo(N2);
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(caller().state(N2).reachable()).isFalse());
    assertThat(caller().state(N3).reachable()).as("the other peer is unaffected").isTrue();
    reachableAgain.clear();

    node(N2).serveNormally();
    cluster.start(N2);

    Awaitility.await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> caller().read(N2, key("k")).get().isPresent());
    assertThat(caller().state(N2).reachable()).isTrue();
    Awaitility.await().atMost(WAIT).until(() -> reachableAgain.contains(N2));
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Each operation, as a call whose result the test awaits or whose failure it inspects. */
  enum Operation {
    READ(t -> t.read(N2, key("k"))),
    WRITE(t -> t.write(N2, key("k"), Record.value(version(1), bytes("v")))),
    SCAN(
        t -> {
          ScanCursor cursor = t.scan(N2, KeyRange.from(key("a")));
          return cursor.next(10, 1 << 20).whenComplete((batch, error) -> cursor.close());
        }),
    HELLO(t -> t.hello(N2)),
    PING(t -> t.ping(N2));

    private final Function<PeerCalls, CompletableFuture<?>> call;

    Operation(Function<PeerCalls, CompletableFuture<?>> call) {
      this.call = call;
    }

    /** Calls {@code n2} through {@code transport}. */
    CompletableFuture<?> call(PeerCalls transport) {
      return call.apply(transport);
    }
  }

  /** A failure of the peer's own, and how it must arrive at the caller. */
  enum Fault {
    OVERLOADED(() -> new OverloadedException("storage"), OverloadedException.class::isInstance),
    INVALID(
        () -> new InvalidRequestException(null, "bad"), InvalidRequestException.class::isInstance),
    NO_SPACE(
        () -> new StorageException(StorageException.Kind.NO_SPACE, "put", null, null),
        e -> e instanceof StorageException s && s.kind() == StorageException.Kind.NO_SPACE),
    STORAGE_FAILURE(
        () -> new StorageException(StorageException.Kind.FAILURE, "get", null, null),
        e -> e instanceof StorageException s && s.kind() == StorageException.Kind.FAILURE),
    SHUTTING_DOWN(
        () -> new UnavailableException("shutting down"), UnavailableException.class::isInstance),
    CLOCK_OFFSET(
        () -> new ClockOffsetException("a version ahead", 3_600_000, 500),
        e ->
            e instanceof ClockOffsetException c
                && c.offsetMillis() == 3_600_000
                && c.maxOffsetMillis() == 500
                && c.getMessage().contains("a version ahead")),
    BUG(
        () -> new IllegalStateException("a bug"),
        e -> e instanceof StorageException s && s.kind() == StorageException.Kind.FAILURE);

    private final Supplier<RuntimeException> raised;
    private final Predicate<Throwable> arrives;

    Fault(Supplier<RuntimeException> raised, Predicate<Throwable> arrives) {
      this.raised = raised;
      this.arrives = arrives;
    }
  }

  private static List<List<Entry>> readBatches(ScanCursor cursor) {
    List<List<Entry>> batches = new ArrayList<>();
    for (List<Entry> batch = await(cursor.next(256, 1 << 20));
        !batch.isEmpty();
        batch = await(cursor.next(256, 1 << 20))) {
      batches.add(batch);
    }
    return batches;
  }

  private static Version version(int logical) {
    return Version.of(NOW, logical);
  }

  private static Key key(String text) {
    return Key.utf8(text);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static <T> T await(CompletableFuture<T> future) {
    return Futures.await(future, WAIT);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    return Futures.failure(future, WAIT);
  }
}
