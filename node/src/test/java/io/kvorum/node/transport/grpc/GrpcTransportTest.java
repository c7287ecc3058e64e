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
import io.kvorum.node.testing.Futures;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerCalls;
import io.kvorum.node.transport.ReplicaServices;
import io.kvorum.node.transport.TransportTestCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What only the gRPC transport has, beyond the {@link GrpcPeerTransportTest contract}: ports,
 * values up to 16 MiB, batches bounded in count and bytes and applied as one storage batch, flow
 * control on the replica stream and on scans, and a wire that can be cut or go silent.
 */
class GrpcTransportTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final long NOW = System.currentTimeMillis();

  private GrpcTestCluster cluster;
  private final List<AutoCloseable> extras = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable extra : extras) {
      extra.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private TransportTestCluster.Node node(NodeId id) {
    return cluster.node(id);
  }

  @Test
  void everyNodeServesOnAPortOfItsOwn() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(2), id -> null);

    assertThat(cluster.port(N1)).isPositive();
    assertThat(cluster.port(N2)).isPositive().isNotEqualTo(cluster.port(N1));
  }

  @Test
  void aValueOfSixteenMebibytesTravelsBothWaysAmongSmallOnes() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(10), id -> null);
    byte[] value = new byte[GrpcTestCluster.MAX_VALUE];
    new Random(16).nextBytes(value);
    Record big = Record.value(version(0), value);

    List<CompletableFuture<Void>> small = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      small.add(
          node(N1).transport().write(N2, key("small-" + i), Record.value(version(0), value(i))));
    }
    await(node(N1).transport().write(N2, key("big"), big));
    small.forEach(GrpcTransportTest::await);

    assertThat(await(node(N2).storage().get(key("big")))).contains(big);
    assertThat(await(node(N1).transport().read(N2, key("big")))).contains(big);
  }

  // ---- batches --------------------------------------------------------------------------------

  @Test
  void writesSentTogetherReachThePeersStorageInBatchesOfAtMost256() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(20), id -> null);
    ReplicaServices.WriteBatches received =
        new ReplicaServices.WriteBatches(node(N2).normalService());
    node(N2).serve(received);
    int count = 2_000;

    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      writes.add(node(N1).transport().write(N2, key("k" + i), Record.value(version(1), value(i))));
    }
    writes.forEach(GrpcTransportTest::await);

    List<Integer> sizes = received.sizes();
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(count);
    assertThat(sizes).as("one storage batch per message").hasSizeLessThan(count / 4);
    assertThat(sizes).allMatch(size -> size <= ProtoMapping.BATCH_ENTRIES);
    for (int i = 0; i < count; i++) {
      assertThat(await(node(N2).storage().get(key("k" + i)))).isPresent();
    }
  }

  @Test
  void aBatchHoldsAboutOneMebibyteOfValuesAtMost() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(20), id -> null);
    ReplicaServices.WriteBatches received =
        new ReplicaServices.WriteBatches(node(N2).normalService());
    node(N2).serve(received);
    byte[] value = new byte[100 << 10];

    List<CompletableFuture<Void>> writes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      writes.add(node(N1).transport().write(N2, key("k" + i), Record.value(version(1), value)));
    }
    writes.forEach(GrpcTransportTest::await);

    assertThat(received.sizes().stream().mapToInt(Integer::intValue).sum()).isEqualTo(200);
    assertThat(received.sizes())
        .allMatch(size -> (long) size * value.length <= ProtoMapping.BATCH_BYTES);
  }

  // ---- flow control ---------------------------------------------------------------------------

  @Test
  void thePeerServesAtMostAWindowOfRequestsOfOneStreamAndTheRestWait() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(60), id -> null);
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);
    int count = 3_000;

    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      reads.add(node(N1).transport().read(N2, key("k" + i)));
    }

    Awaitility.await()
        .atMost(WAIT)
        .until(() -> stalled.waiting() > ServedExchange.WINDOW - ProtoMapping.BATCH_ENTRIES);
    Awaitility.await()
        .during(Duration.ofMillis(500))
        .atMost(WAIT)
        .until(() -> stalled.waiting() <= ServedExchange.WINDOW);
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () -> {
              stalled.answerAll();
              return reads.stream().allMatch(CompletableFuture::isDone);
            });
    reads.forEach(read -> assertThat(await(read)).isEmpty());
  }

  @Test
  void aSlowScanReaderHoldsThePeerBackAndStillGetsEverything() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(10), id -> null);
    TransportTestCluster.Node peer = node(N2);
    int total = 10_000;
    byte[] value = new byte[4 << 10];
    new Random(4).nextBytes(value);
    for (int i = 0; i < total; i++) {
      await(peer.storage().put(key(String.format("big/%05d", i)), Record.value(version(0), value)));
    }
    AtomicLong produced = new AtomicLong();
    peer.serve(ReplicaServices.counting(peer.normalService(), produced));

    try (ScanCursor cursor = node(N1).transport().scan(N2, KeyRange.from(key("big/")))) {
      List<Entry> first = await(cursor.next(256, 1 << 20));
      assertThat(first).isNotEmpty();

      // 40 MiB in the range: a peer that ignored the reader would have sent it all by now.
      Awaitility.await()
          .during(Duration.ofMillis(500))
          .atMost(WAIT)
          .until(() -> produced.get() < total / 2);

      List<Entry> all = new ArrayList<>(first);
      all.addAll(readAll(cursor));
      assertThat(all).hasSize(total);
      for (int i = 0; i < total; i++) {
        assertThat(text(all.get(i).key().bytes())).isEqualTo(String.format("big/%05d", i));
      }
    }
    assertThat(produced.get()).isEqualTo(total);
  }

  @Test
  void aScanOverSmallValuesFollowedByAHugeOneArrivesWhole() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(10), id -> null);
    byte[] small = new byte[10 << 10];
    for (int i = 0; i < 100; i++) {
      await(
          node(N2)
              .storage()
              .put(key(String.format("mix/%03d", i)), Record.value(version(0), small)));
    }
    byte[] huge = new byte[GrpcTestCluster.MAX_VALUE];
    await(node(N2).storage().put(key("mix/999"), Record.value(version(0), huge)));

    try (ScanCursor cursor = node(N1).transport().scan(N2, KeyRange.from(key("mix/")))) {
      List<Entry> all = readAll(cursor);

      assertThat(all).hasSize(101);
      assertThat(all.get(100).record().value()).hasSize(GrpcTestCluster.MAX_VALUE);
    }
  }

  // ---- the wire -------------------------------------------------------------------------------

  @Test
  void aStoppingPeerAnswersWhatItTookThenEndsTheStreamWithoutWaitingForTheCaller()
      throws Exception {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(30), id -> null);
    await(node(N1).transport().write(N2, key("k"), Record.value(version(1), value(1))));
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);
    CompletableFuture<Optional<Record>> taken = node(N1).transport().read(N2, key("k"));
    Awaitility.await().atMost(WAIT).until(() -> stalled.waiting() == 1);

    long start = System.nanoTime();
    CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> cluster.stop(N2));
    Thread.sleep(200);
    assertThat(stopped).as("a stop waits for what the peer took").isNotDone();
    stalled.answerAll();
    stopped.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(taken).as("answered before the stream ended").isCompleted();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("not the two seconds a server gives calls that do not end by themselves")
        .isLessThan(Duration.ofMillis(1_500));
    assertThat(failure(node(N1).transport().read(N2, key("k"))))
        .isInstanceOf(PeerUnavailableException.class);
  }

  @Test
  void aCutConnectionFailsWhatWaitsOnItAtOnceAndTheNextCallsGoOverANewOne() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(30), id -> null);
    TcpProxy proxy = proxyTo(N2);
    PeerCalls caller = callerThrough(proxy, Duration.ofSeconds(30));
    await(caller.write(N2, key("k"), Record.value(version(1), value(1))));
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);
    List<CompletableFuture<Optional<Record>>> waiting = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      waiting.add(caller.read(N2, key("k")));
    }
    Awaitility.await().atMost(WAIT).until(() -> stalled.waiting() == 100);

    long start = System.nanoTime();
    proxy.cut();

    for (CompletableFuture<Optional<Record>> read : waiting) {
      assertThat(failure(read)).isInstanceOf(PeerUnavailableException.class);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    node(N2).serveNormally();
    caller.peerAnnounced(N2);
    Awaitility.await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(() -> caller.read(N2, key("k")).get().isPresent());
  }

  /**
   * Two nodes starting together each say hello to the other; a channel that tried the peer before
   * it listened backs off for a second or more, and a hello failing at once with that old refusal
   * left both nodes ready without greeting each other, their calls to each other failing until the
   * back-off ended (a fresh cluster's first writes answered 504).
   */
  @Test
  void aHelloReachesAPeerThatStartedListeningWhileTheChannelToItWasBackingOff() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(5), id -> null);
    cluster.stop(N2);
    PeerCalls caller = callerAt(cluster.port(N2), Duration.ofSeconds(5));
    Awaitility.await().atMost(WAIT).until(() -> !caller.state(N2).reachable());
    cluster.start(N2);

    assertThat(await(caller.hello(N2))).as("hints delivered").isZero();
    assertThat(caller.state(N2).reachable()).isTrue();
  }

  @Test
  void aWireThatGoesSilentFailsWhatWaitsOnItWithinTheKeepAliveTimeout() {
    cluster = GrpcTestCluster.start(2, Duration.ofSeconds(60), id -> null);
    TcpProxy proxy = proxyTo(N2);
    PeerCalls caller = callerThrough(proxy, Duration.ofSeconds(60));
    await(caller.write(N2, key("k"), Record.value(version(1), value(1))));
    ReplicaServices.Stalled stalled = new ReplicaServices.Stalled();
    node(N2).serve(stalled);
    CompletableFuture<Optional<Record>> read = caller.read(N2, key("k"));
    Awaitility.await().atMost(WAIT).until(() -> stalled.waiting() == 1);

    long start = System.nanoTime();
    proxy.freeze();

    // A ping after 10 s of silence, 3 s to answer it: far sooner than the call's own deadline.
    assertThat(failure(read)).isInstanceOf(PeerUnavailableException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  private TcpProxy proxyTo(NodeId id) {
    TcpProxy proxy = new TcpProxy(cluster.port(id));
    extras.add(proxy);
    return proxy;
  }

  /** A transport of {@code n1}'s that reaches {@code n2} through {@code proxy}. */
  private PeerCalls callerThrough(TcpProxy proxy, Duration callTimeout) {
    return callerAt(proxy.port(), callTimeout);
  }

  /** A transport of {@code n1}'s that reaches {@code n2} on {@code port}. */
  private PeerCalls callerAt(int port, Duration callTimeout) {
    List<Member> members =
        List.of(new Member(N1, "127.0.0.1", cluster.port(N1)), new Member(N2, "127.0.0.1", port));
    GrpcPeerTransport transport =
        new GrpcPeerTransport(
            new Topology(N1, members),
            node(N1).clock(),
            callTimeout,
            TransportTestCluster.HELLO_TIMEOUT,
            GrpcTestCluster.MAX_MESSAGE,
            GrpcTestCluster.LOOPS,
            true,
            Optional.empty(),
            PeerProtocol.current(new SimpleMeterRegistry()));
    extras.add(0, transport);
    return new PeerCalls(transport, N1);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static List<Entry> readAll(ScanCursor cursor) {
    List<Entry> all = new ArrayList<>();
    for (List<Entry> batch = await(cursor.next(256, 1 << 20));
        !batch.isEmpty();
        batch = await(cursor.next(256, 1 << 20))) {
      all.addAll(batch);
    }
    return all;
  }

  private static Version version(int logical) {
    return Version.of(NOW, logical);
  }

  private static Key key(String text) {
    return Key.utf8(text);
  }

  private static byte[] value(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
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
