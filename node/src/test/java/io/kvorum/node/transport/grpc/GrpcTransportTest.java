package io.kvorum.node.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.replication.LocalReplicaService;
import io.kvorum.node.testing.Futures;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The real inter-node path: {@link GrpcPeerTransport} clients talking to {@link GrpcReplicaServer}s
 * on free ports of this machine, each serving a node's own in-memory storage and hints.
 */
class GrpcTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(2);
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");

  private GrpcTestCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private void cluster(int size, Duration callTimeout) {
    cluster(size, callTimeout, id -> null);
  }

  private void cluster(int size, Duration callTimeout, Function<NodeId, LongSupplier> walls) {
    cluster = GrpcTestCluster.start(size, callTimeout, walls);
  }

  private GrpcTestCluster.Node node(NodeId id) {
    return cluster.node(id);
  }

  // ---- reads and writes -----------------------------------------------------------------------

  @Test
  void aServerStartedOnPortZeroReportsThePortItBound() {
    cluster(2, CALL_TIMEOUT);

    assertThat(node(N1).server.port()).isPositive();
    assertThat(node(N2).server.port()).isPositive().isNotEqualTo(node(N1).server.port());
  }

  @Test
  void writesAndReadsRoundTripEveryKindOfRecord() {
    cluster(2, CALL_TIMEOUT);
    GrpcPeerTransport transport = node(N1).transport;
    long now = System.currentTimeMillis();
    Key binary = Key.of(new byte[] {0x00, (byte) 0xFF, 0x0A, (byte) 0x80});
    List<Key> keys =
        List.of(
            Key.utf8("value"), Key.utf8("tombstone"), Key.utf8("ttl"), Key.utf8("empty"), binary);
    List<Record> records =
        List.of(
            Record.value(version(now, 1), bytes("hello")),
            Record.tombstone(version(now, 2)),
            Record.value(version(now, 3), bytes("expiring"), now + 60_000),
            Record.value(version(now, 4), new byte[0]),
            Record.value(version(now, 5), new byte[] {0x00, (byte) 0xFF, 0x00}));

    for (int i = 0; i < keys.size(); i++) {
      await(transport.write(N2, keys.get(i), records.get(i)));
    }

    for (int i = 0; i < keys.size(); i++) {
      assertThat(await(transport.read(N2, keys.get(i)))).contains(records.get(i));
      assertThat(await(node(N2).storage.get(keys.get(i))))
          .as("stored on the peer itself")
          .contains(records.get(i));
    }
    assertThat(await(node(N1).storage.get(keys.get(0)))).as("not on the caller").isEmpty();
    assertThat(await(transport.read(N2, Key.utf8("absent")))).isEmpty();
  }

  @Test
  void anOlderWriteDoesNotReplaceANewerRecordOnThePeer() {
    cluster(2, CALL_TIMEOUT);
    GrpcPeerTransport transport = node(N1).transport;
    long now = System.currentTimeMillis();
    Key key = Key.utf8("k");

    await(transport.write(N2, key, Record.value(version(now, 5), bytes("new"))));
    await(transport.write(N2, key, Record.value(version(now, 1), bytes("old"))));

    assertThat(await(transport.read(N2, key)))
        .contains(Record.value(version(now, 5), bytes("new")));
  }

  @Test
  void thousandsOfConcurrentRequestsOnTheSharedStreamEachGetTheirOwnAnswer() {
    cluster(2, Duration.ofSeconds(15));
    GrpcPeerTransport transport = node(N1).transport;
    long now = System.currentTimeMillis();
    int half = 2_500;
    for (int i = 0; i < half; i++) {
      await(
          node(N2)
              .storage
              .put(Key.utf8("old-" + i), Record.value(version(now, 0), bytes("old-" + i))));
    }

    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < half; i++) {
      reads.add(transport.read(N2, Key.utf8("old-" + i)));
      writes.add(
          transport.write(
              N2, Key.utf8("new-" + i), Record.value(version(now, 1), bytes("new-" + i))));
    }

    for (int i = 0; i < half; i++) {
      Optional<Record> read = await(reads.get(i));
      assertThat(read).as("read %d", i).isPresent();
      assertThat(text(read.get().value())).isEqualTo("old-" + i);
      await(writes.get(i));
    }
    for (int i = 0; i < half; i++) {
      assertThat(await(node(N2).storage.get(Key.utf8("new-" + i))))
          .map(r -> text(r.value()))
          .contains("new-" + i);
    }
  }

  @Test
  void aValueOfSixteenMebibytesTravelsBothWays() {
    cluster(2, Duration.ofSeconds(10));
    GrpcPeerTransport transport = node(N1).transport;
    byte[] value = new byte[GrpcTestCluster.MAX_VALUE];
    new Random(16).nextBytes(value);
    Record big = Record.value(version(System.currentTimeMillis(), 0), value);

    await(transport.write(N2, Key.utf8("big"), big));

    assertThat(await(node(N2).storage.get(Key.utf8("big")))).contains(big);
    assertThat(await(transport.read(N2, Key.utf8("big")))).contains(big);
  }

  // ---- clocks ---------------------------------------------------------------------------------

  @Test
  void theReceiversClockMovesPastTheSendersTimestamp() {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N1) ? () -> System.currentTimeMillis() + ahead : null);
    Version sent = node(N1).clock.now();

    await(node(N1).transport.read(N2, Key.utf8("anything")));

    Version receiver = node(N2).clock.current();
    assertThat(receiver).isGreaterThanOrEqualTo(sent);
    assertThat(receiver.physicalMillis())
        .as("ahead of the receiver's own wall clock")
        .isGreaterThan(System.currentTimeMillis() + ahead / 2);
    assertThat(node(N2).clock.now()).isGreaterThan(sent);
  }

  @Test
  void aTimestampMoreThanAMinuteAheadIsNotFollowed() {
    long ahead = Duration.ofMinutes(5).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N1) ? () -> System.currentTimeMillis() + ahead : null);

    await(
        node(N1)
            .transport
            .write(N2, Key.utf8("k"), Record.value(node(N1).clock.now(), bytes("v"))));

    assertThat(node(N2).clock.current().physicalMillis())
        .isLessThan(System.currentTimeMillis() + Duration.ofMinutes(1).toMillis());
  }

  @Test
  void theCallerFollowsTheClockOfThePeerThatAnswers() {
    long ahead = Duration.ofSeconds(30).toMillis();
    cluster(2, CALL_TIMEOUT, id -> id.equals(N2) ? () -> System.currentTimeMillis() + ahead : null);
    Version peer = node(N2).clock.now();

    await(node(N1).transport.read(N2, Key.utf8("anything")));

    assertThat(node(N1).clock.current()).isGreaterThanOrEqualTo(peer);
  }

  // ---- scans ----------------------------------------------------------------------------------

  @Test
  void aScanReturnsEveryRecordInOrderInSeveralBatches() {
    cluster(2, CALL_TIMEOUT);
    long now = System.currentTimeMillis();
    List<Key> expected = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      Key key = Key.utf8(String.format("scan/%04d", i));
      Record record =
          i % 7 == 0
              ? Record.tombstone(version(now, 1))
              : Record.value(version(now, 1), bytes("v" + i));
      await(node(N2).storage.put(key, record));
      expected.add(key);
    }
    await(node(N2).storage.put(Key.utf8("scan0"), Record.value(version(now, 1), bytes("after"))));
    await(node(N2).storage.put(Key.utf8("scal"), Record.value(version(now, 1), bytes("before"))));

    List<List<Entry>> batches;
    try (ScanCursor cursor =
        node(N1).transport.scan(N2, KeyRange.between(Key.utf8("scan/"), Key.utf8("scan0")))) {
      batches = readBatches(cursor);
    }

    assertThat(batches).hasSizeGreaterThan(1);
    List<Entry> all = batches.stream().flatMap(List::stream).toList();
    assertThat(all).extracting(Entry::key).containsExactlyElementsOf(expected);
    assertThat(all.get(0).record().tombstone()).as("tombstones included").isTrue();
    assertThat(text(all.get(1).record().value())).isEqualTo("v1");
  }

  @Test
  void aScanOfAnEmptyRangeEndsAtOnce() {
    cluster(2, CALL_TIMEOUT);

    try (ScanCursor cursor = node(N1).transport.scan(N2, KeyRange.from(Key.utf8("nothing")))) {
      assertThat(await(cursor.next(100, 1 << 20))).isEmpty();
      assertThat(await(cursor.next(100, 1 << 20))).isEmpty();
    }
  }

  @Test
  void aSlowScanReaderHoldsThePeerBackAndStillGetsEverything() {
    cluster(2, Duration.ofSeconds(10));
    GrpcTestCluster.Node peer = node(N2);
    int total = 10_000;
    byte[] value = new byte[4 << 10];
    new Random(4).nextBytes(value);
    long now = System.currentTimeMillis();
    for (int i = 0; i < total; i++) {
      await(
          peer.storage.put(
              Key.utf8(String.format("big/%05d", i)), Record.value(version(now, 0), value)));
    }
    AtomicLong produced = new AtomicLong();
    peer.service.use(
        ReplicaServices.counting(new LocalReplicaService(peer.storage, peer.handoff), produced));

    try (ScanCursor cursor = node(N1).transport.scan(N2, KeyRange.from(Key.utf8("big/")))) {
      List<Entry> first = await(cursor.next(256, 1 << 20));
      assertThat(first).isNotEmpty();

      // 40 MiB in the range: a peer that ignored the reader would have sent it all by now.
      Awaitility.await()
          .during(Duration.ofMillis(500))
          .atMost(WAIT)
          .until(() -> produced.get() < total / 2);

      List<Entry> all = new ArrayList<>(first);
      all.addAll(readBatches(cursor).stream().flatMap(List::stream).toList());
      assertThat(all).hasSize(total);
      for (int i = 0; i < total; i++) {
        assertThat(text(all.get(i).key().bytes())).isEqualTo(String.format("big/%05d", i));
      }
    }
    assertThat(produced.get()).isEqualTo(total);
  }

  @Test
  void aScanOverSmallValuesFollowedByAHugeOneArrivesWhole() {
    cluster(2, Duration.ofSeconds(10));
    long now = System.currentTimeMillis();
    byte[] small = new byte[10 << 10];
    for (int i = 0; i < 100; i++) {
      await(
          node(N2)
              .storage
              .put(Key.utf8(String.format("mix/%03d", i)), Record.value(version(now, 0), small)));
    }
    byte[] huge = new byte[GrpcTestCluster.MAX_VALUE];
    await(node(N2).storage.put(Key.utf8("mix/999"), Record.value(version(now, 0), huge)));

    try (ScanCursor cursor = node(N1).transport.scan(N2, KeyRange.from(Key.utf8("mix/")))) {
      List<Entry> all = readBatches(cursor).stream().flatMap(List::stream).toList();

      assertThat(all).hasSize(101);
      assertThat(all.get(100).record().value()).hasSize(GrpcTestCluster.MAX_VALUE);
    }
  }

  @Test
  void aScanWhosePeerSendsNothingFailsAtTheDeadlineAsUnavailable() {
    Duration timeout = Duration.ofMillis(300);
    cluster(2, timeout);
    node(N2).service.use(new ReplicaServices.Stalled());

    try (ScanCursor cursor = node(N1).transport.scan(N2, KeyRange.from(Key.utf8("a")))) {
      assertThat(failure(cursor.next(10, 1 << 20))).isInstanceOf(PeerUnavailableException.class);
    }
  }

  // ---- failures -------------------------------------------------------------------------------

  @Test
  void aStoppedPeerFailsCallsAsUnavailableAndIsReachedAgainOnceItIsBack() {
    Duration timeout = Duration.ofSeconds(1);
    cluster(3, timeout);
    GrpcTestCluster.Node caller = node(N1);
    GrpcTestCluster.Node peer = node(N2);
    List<NodeId> reachableAgain = new CopyOnWriteArrayList<>();
    caller.transport.onPeerReachable(reachableAgain::add);
    await(caller.transport.write(N2, Key.utf8("k"), Record.value(caller.clock.now(), bytes("v"))));

    peer.stopServer();

    long start = System.nanoTime();
    Throwable failure = failure(caller.transport.read(N2, Key.utf8("k")));
    assertThat(failure).isInstanceOf(PeerUnavailableException.class);
    assertThat(((PeerUnavailableException) failure).peer()).isEqualTo(N2);
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("fails within the call timeout")
        .isLessThan(timeout.plusMillis(500));
    Awaitility.await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(caller.transport.state(N2).reachable()).isFalse());
    assertThat(caller.transport.state(N3).reachable()).as("the other peer is unaffected").isTrue();
    reachableAgain.clear();

    peer.startServer();

    Awaitility.await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> caller.transport.read(N2, Key.utf8("k")).get().isPresent());
    assertThat(caller.transport.state(N2).reachable()).isTrue();
    Awaitility.await().atMost(WAIT).until(() -> reachableAgain.contains(N2));
  }

  @Test
  void aPeerThatAnswersTooSlowlyFailsTheCallAtItsDeadline() {
    Duration timeout = Duration.ofMillis(300);
    cluster(2, timeout);
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).service.use(stalled);

    long start = System.nanoTime();
    CompletableFuture<Optional<Record>> read = node(N1).transport.read(N2, Key.utf8("k"));
    assertThat(read).isNotDone();
    Throwable failure = failure(read);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(failure)
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("no answer within 300 ms");
    assertThat(took).isGreaterThanOrEqualTo(timeout.minusMillis(20));

    // The late answer arrives after the deadline; the stream stays usable.
    node(N2).serveNormally();
    stalled.answerAll();
    await(
        node(N1)
            .transport
            .write(N2, Key.utf8("k"), Record.value(node(N1).clock.now(), bytes("v"))));
    assertThat(await(node(N1).transport.read(N2, Key.utf8("k")))).isPresent();
  }

  @Test
  void anErrorInThePeersStorageComesBackAsUnavailableNamingTheCode() {
    cluster(2, CALL_TIMEOUT);
    node(N2).service.use(new ReplicaServices.Overloaded());

    Throwable read = failure(node(N1).transport.read(N2, Key.utf8("k")));
    Throwable write =
        failure(
            node(N1)
                .transport
                .write(N2, Key.utf8("k"), Record.value(node(N1).clock.now(), bytes("v"))));

    assertThat(read)
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("OVERLOADED");
    assertThat(write)
        .isInstanceOf(PeerUnavailableException.class)
        .hasMessageContaining("OVERLOADED");
    node(N2).serveNormally();
    assertThat(await(node(N1).transport.read(N2, Key.utf8("k"))))
        .as("the stream is still fine")
        .isEmpty();
  }

  // ---- hello ----------------------------------------------------------------------------------

  @Test
  void helloMakesThePeerDeliverItsHintsForTheCallerBeforeItAnswers() {
    cluster(3, CALL_TIMEOUT);
    GrpcTestCluster.Node caller = node(N1);
    GrpcTestCluster.Node holder = node(N2);
    long now = holder.clock.wallMillis();
    Record missed = Record.value(holder.clock.now(), bytes("written while n1 was away"));
    Record deleted = Record.tombstone(holder.clock.now());
    await(holder.hints.add(N1, Key.utf8("missed"), missed, now));
    await(holder.hints.add(N1, Key.utf8("deleted"), deleted, now));
    await(holder.hints.add(N3, Key.utf8("for-n3"), missed, now));

    long delivered = await(caller.transport.hello(N2));

    assertThat(delivered).isEqualTo(2);
    assertThat(await(caller.storage.get(Key.utf8("missed")))).contains(missed);
    assertThat(await(caller.storage.get(Key.utf8("deleted")))).contains(deleted);
    assertThat(holder.hints.pending(N1)).isZero();
    assertThat(holder.hints.pending(N3)).as("hints for others stay").isEqualTo(1);
    assertThat(await(caller.transport.hello(N3))).as("a peer with no hints").isZero();
  }

  @Test
  void helloToAStoppedPeerFailsAsUnavailable() {
    cluster(2, Duration.ofMillis(500));
    node(N2).stopServer();

    assertThat(failure(node(N1).transport.hello(N2))).isInstanceOf(PeerUnavailableException.class);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static List<List<Entry>> readBatches(ScanCursor cursor) {
    List<List<Entry>> batches = new ArrayList<>();
    for (List<Entry> batch = await(cursor.next(256, 1 << 20));
        !batch.isEmpty();
        batch = await(cursor.next(256, 1 << 20))) {
      batches.add(batch);
    }
    return batches;
  }

  private static Version version(long physicalMillis, int logical) {
    return Version.of(physicalMillis, logical);
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
