package io.kvorum.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.HintStore;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.ScriptedPeerTransport.Call;
import io.kvorum.node.testing.ScriptedPeerTransport.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HintedHandoffTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final long T0 = 1_700_000_000_000L;
  private static final Duration WINDOW = Duration.ofHours(3);
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");

  private final AtomicLong wall = new AtomicLong(T0);
  private final InMemoryHintStore store = new InMemoryHintStore();
  private final ScriptedPeerTransport transport = new ScriptedPeerTransport();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ScheduledExecutorService pauses = Executors.newSingleThreadScheduledExecutor();
  private Holders holders = Holders.EVERY_NODE;

  @AfterEach
  void stopPauses() {
    pauses.shutdownNow();
  }

  private HintedHandoff handoff(HintStore hints, Duration window, long maxPerPeer) {
    return handoff(
        hints,
        new HintedHandoff.Settings(
            window, maxPerPeer, HintedHandoff.Settings.DEFAULT_WELCOME_LIMIT));
  }

  private HintedHandoff handoff(HintStore hints, HintedHandoff.Settings settings) {
    return new HintedHandoff(
        hints,
        transport,
        holders,
        wall::get,
        settings,
        List.of(N2, N3),
        registry,
        pauses,
        System::nanoTime);
  }

  private HintedHandoff handoff() {
    return handoff(store, WINDOW, 1_000);
  }

  // ---- storing hints --------------------------------------------------------------------------

  @Test
  void aHintIsStoredForItsTargetAndCounted() {
    HintedHandoff handoff = handoff();

    await(handoff.hint(N2, key("k"), value(1, "v")));

    assertThat(handoff.pending(N2)).isEqualTo(1);
    assertThat(handoff.pending(N3)).isZero();
    HintStore.Hint hint = await(store.oldest(N2, 10)).get(0);
    assertThat(hint.key()).isEqualTo(key("k"));
    assertThat(hint.record()).isEqualTo(value(1, "v"));
    assertThat(hint.createdAtMillis()).isEqualTo(T0);
    assertThat(counter("kvorum.hints.stored")).isEqualTo(1);
    assertThat(registry.get("kvorum.hints.pending").tag("peer", "n2").gauge().value()).isEqualTo(1);
    assertThat(transport.calls()).as("nothing is sent when a hint is made").isEmpty();
  }

  @Test
  void hintsBeyondThePerPeerCapAreDropped() {
    HintedHandoff handoff = handoff(store, WINDOW, 3);

    for (int i = 0; i < 5; i++) {
      await(handoff.hint(N2, key("k" + i), value(i + 1, "v")));
    }
    await(handoff.hint(N3, key("other"), value(1, "v")));

    assertThat(handoff.pending(N2)).isEqualTo(3);
    assertThat(keys(await(store.oldest(N2, 10)))).containsExactly("k0", "k1", "k2");
    assertThat(handoff.pending(N3)).as("another peer has its own cap").isEqualTo(1);
    assertThat(counter("kvorum.hints.stored")).isEqualTo(4);
    assertThat(dropped("cap")).isEqualTo(2);
  }

  @Test
  void aHintTheStoreCannotKeepIsCountedAsDropped() {
    HintStore failing = new FailingAdds(store);
    HintedHandoff handoff = handoff(failing, WINDOW, 1_000);

    assertThat(handoff.hint(N2, key("k"), value(1, "v")))
        .failsWithin(WAIT)
        .withThrowableThat()
        .withRootCauseInstanceOf(StorageException.class);

    assertThat(dropped("store-failed")).isEqualTo(1);
    assertThat(counter("kvorum.hints.stored")).isZero();
  }

  // ---- delivering -----------------------------------------------------------------------------

  @Test
  void deliverSendsEveryHintOldestFirstAndForgetsThem() {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 20; i++) {
      wall.set(T0 + i);
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v" + i)));
    }
    await(handoff.hint(N3, key("for-n3"), value(1, "v")));

    long delivered = await(handoff.deliver(N2));

    assertThat(delivered).isEqualTo(20);
    List<Call> writes = transport.calls("write");
    assertThat(writes).extracting(Call::peer).containsOnly(N2);
    assertThat(writes).extracting(c -> text(c.key())).containsExactlyElementsOf(keysUpTo(20));
    assertThat(writes.get(7).record()).isEqualTo(value(8, "v7"));
    assertThat(handoff.pending(N2)).isZero();
    assertThat(handoff.pending(N3)).as("only the target's hints are delivered").isEqualTo(1);
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(20);
  }

  @Test
  void deliveringToAPeerWithoutHintsSendsNothing() {
    HintedHandoff handoff = handoff();

    assertThat(await(handoff.deliver(N2))).isZero();

    assertThat(transport.calls()).isEmpty();
  }

  @Test
  void deliveryStopsAtTheFirstFailureAndKeepsWhatWasNotDelivered() {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 20; i++) {
      wall.set(T0 + i);
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v")));
    }
    // The peer takes three writes, then goes away.
    transport.script(call -> transport.calls("write").size() > 3 ? Outcome.FAIL : null);

    long delivered = await(handoff.deliver(N2));

    assertThat(delivered).isEqualTo(3);
    assertThat(handoff.pending(N2)).isEqualTo(17);
    assertThat(keys(await(store.oldest(N2, 1)))).containsExactly("k03");
    assertThat(transport.calls("write"))
        .as("no hint beyond the failed batch is tried")
        .hasSizeLessThan(10);
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(3);

    transport.script(call -> null);
    assertThat(await(handoff.deliver(N2))).as("the next delivery resumes").isEqualTo(17);
    assertThat(handoff.pending(N2)).isZero();
    List<String> confirmed =
        transport.calls("write").stream().map(c -> text(c.key())).distinct().toList();
    assertThat(confirmed).containsExactlyInAnyOrderElementsOf(keysUpTo(20));
  }

  @Test
  void hintsTheReplicaRefusesForTheirClockAreDroppedAndDeliveryGoesOn() {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 10; i++) {
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v")));
    }
    // Written while this node's clock was an hour ahead: delivered later, they would win over
    // every write made since.
    transport
        .script(call -> text(call.key()).compareTo("k05") < 0 ? Outcome.FAIL : null)
        .failWith(call -> new ClockOffsetException("the version is ahead", 3_600_000, 500));

    long delivered = await(handoff.deliver(N2));

    assertThat(delivered).isEqualTo(5);
    assertThat(handoff.pending(N2)).isZero();
    assertThat(dropped("clock")).isEqualTo(5);
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(5);
    assertThat(transport.calls("write")).as("none is sent twice").hasSize(10);
  }

  @Test
  void hintsForAReplicaThatNoLongerHoldsTheirKeysAreForgottenNotSent() {
    // A membership change completed since the writes: n2 no longer holds the keys "moved-…".
    holders = (node, key, record) -> !text(key).startsWith("moved");
    HintedHandoff handoff = handoff();
    await(handoff.hint(N2, key("moved-1"), value(1, "v")));
    await(handoff.hint(N2, key("kept"), value(2, "v")));
    await(handoff.hint(N2, key("moved-2"), value(3, "v")));

    long delivered = await(handoff.deliver(N2));

    assertThat(delivered).isEqualTo(1);
    assertThat(transport.calls("write")).extracting(c -> text(c.key())).containsExactly("kept");
    assertThat(handoff.pending(N2)).isZero();
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(1);
    assertThat(dropped("window") + dropped("cap") + dropped("store-failed") + dropped("clock"))
        .as("nothing the replica misses: no alert")
        .isZero();
  }

  @Test
  void hintsOlderThanTheWindowAreDroppedNotSent() {
    HintedHandoff handoff = handoff(store, Duration.ofHours(1), 1_000);
    await(handoff.hint(N2, key("old-1"), value(1, "v")));
    wall.set(T0 + 10);
    await(handoff.hint(N2, key("old-2"), value(2, "v")));
    wall.set(T0 + Duration.ofMinutes(90).toMillis());
    await(handoff.hint(N2, key("fresh"), value(3, "v")));
    wall.set(T0 + Duration.ofMinutes(100).toMillis());

    long delivered = await(handoff.deliver(N2));

    assertThat(delivered).isEqualTo(1);
    assertThat(transport.calls("write")).extracting(c -> text(c.key())).containsExactly("fresh");
    assertThat(handoff.pending(N2)).isZero();
    assertThat(dropped("window")).isEqualTo(2);
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(1);
  }

  @Test
  void deliverAllDeliversToReachablePeersAndOnlyExpiresTheHintsOfOthers() {
    HintedHandoff handoff = handoff(store, Duration.ofHours(1), 1_000);
    await(handoff.hint(N2, key("n2-old"), value(1, "v")));
    await(handoff.hint(N3, key("n3-old"), value(1, "v")));
    wall.set(T0 + Duration.ofMinutes(90).toMillis());
    await(handoff.hint(N2, key("n2-fresh"), value(2, "v")));
    await(handoff.hint(N3, key("n3-fresh"), value(2, "v")));
    transport.reachable(N3, false);

    await(handoff.deliverAll());

    assertThat(transport.calls("write"))
        .extracting(c -> c.peer() + ":" + text(c.key()))
        .containsExactly("n2:n2-fresh");
    assertThat(handoff.pending(N2)).isZero();
    assertThat(handoff.pending(N3)).isEqualTo(1);
    assertThat(keys(await(store.oldest(N3, 10)))).containsExactly("n3-fresh");
    assertThat(dropped("window")).isEqualTo(2);
  }

  @Test
  void deliverAllExpiresEvenMoreThanOneBatchOfAnUnreachablePeersHints() {
    HintedHandoff handoff = handoff(store, Duration.ofHours(1), 10_000);
    for (int i = 0; i < 600; i++) {
      await(handoff.hint(N3, key("old-" + i), value(1, "v")));
    }
    wall.set(T0 + Duration.ofMinutes(90).toMillis());
    await(handoff.hint(N3, key("fresh"), value(2, "v")));
    transport.reachable(N3, false);

    await(handoff.deliverAll());

    assertThat(handoff.pending(N3)).isEqualTo(1);
    assertThat(dropped("window")).isEqualTo(600);
    assertThat(transport.calls()).isEmpty();
  }

  @Test
  void welcomeForgetsThePeersAbsenceThenDelivers() {
    HintedHandoff handoff = handoff();
    await(handoff.hint(N2, key("k"), value(1, "v")));
    AtomicBoolean announcedBeforeFirstWrite = new AtomicBoolean();
    transport.script(
        call -> {
          if (transport.calls("write").size() == 1) {
            announcedBeforeFirstWrite.set(transport.announced().contains(N2));
          }
          return null;
        });

    long delivered = await(handoff.welcome(N2));

    assertThat(delivered).isEqualTo(1);
    assertThat(transport.announced()).containsExactly(N2);
    assertThat(announcedBeforeFirstWrite).isTrue();
    assertThat(handoff.pending(N2)).isZero();
  }

  @Test
  void concurrentDeliveriesToOnePeerSendEveryHintOnce() throws Exception {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 100; i++) {
      wall.set(T0 + i);
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v")));
    }
    // Writes are confirmed a little later, on another thread, as over a network.
    transport.completeOn(CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
    List<Callable<CompletableFuture<?>>> four = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      four.add(() -> handoff.deliver(N2));
    }
    List<CompletableFuture<?>> deliveries = startTogether(four);

    for (CompletableFuture<?> delivery : deliveries) {
      assertThat(await(delivery)).isEqualTo(100L);
    }
    Map<String, Long> sends =
        transport.calls("write").stream()
            .collect(Collectors.groupingBy(c -> text(c.key()), Collectors.counting()));
    assertThat(sends).hasSize(100);
    assertThat(Set.copyOf(sends.values())).as("times each hint was sent").containsExactly(1L);
    assertThat(handoff.pending(N2)).isZero();
    assertThat(counter("kvorum.hints.delivered")).isEqualTo(100);
  }

  @Test
  void aHintMadeWhileADeliveryRunsIsDeliveredOnceToo() {
    HintedHandoff handoff = handoff();
    await(handoff.hint(N2, key("first"), value(1, "v")));
    transport.answer(N2, Outcome.HANG);
    CompletableFuture<Long> running = handoff.deliver(N2);
    assertThat(transport.hanging()).isEqualTo(1);

    await(handoff.hint(N2, key("second"), value(2, "v")));
    transport.answer(N2, Outcome.SUCCEED);
    CompletableFuture<Long> next = handoff.deliver(N2);
    assertThat(next).as("waits for the delivery under way").isNotDone();
    transport.releaseAll();

    assertThat(await(running)).isEqualTo(2);
    assertThat(await(next)).as("counts what the delivery it waited for handed over").isEqualTo(2);
    assertThat(transport.calls("write"))
        .extracting(c -> text(c.key()))
        .containsExactly("first", "second");
    assertThat(handoff.pending(N2)).isZero();
  }

  // ---- welcoming a peer back ------------------------------------------------------------------

  @Test
  void welcomeKeepsPassingOverTheHintsUntilThePeerConfirmedEveryOne() {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 20; i++) {
      wall.set(T0 + i);
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v")));
    }
    // The peer's connection is not up yet for the second write (as after a coordinator restart).
    transport.script(call -> transport.calls("write").size() == 2 ? Outcome.FAIL : null);

    long delivered = await(handoff.welcome(N2));

    assertThat(delivered).isEqualTo(20);
    assertThat(handoff.pending(N2)).isZero();
    assertThat(transport.announced())
        .as("each pass starts with the peer's back-off and breaker cleared")
        .hasSizeGreaterThanOrEqualTo(2)
        .containsOnly(N2);
  }

  @Test
  void welcomeGivesUpAtItsLimitAndKeepsTheHints() {
    HintedHandoff handoff =
        handoff(store, new HintedHandoff.Settings(WINDOW, 1_000, Duration.ofMillis(100)));
    await(handoff.hint(N2, key("k"), value(1, "v")));
    transport.answer(N2, Outcome.FAIL);

    assertThat(handoff.welcome(N2))
        .failsWithin(WAIT)
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(UnavailableException.class)
        .withMessageContaining("1 hints for n2 are still pending")
        .withMessageContaining("scripted failure");
    assertThat(handoff.pending(N2)).isEqualTo(1);
    assertThat(transport.calls("write")).as("it tried more than once").hasSizeGreaterThan(1);
  }

  @Test
  void welcomeWaitsForTheDeliveryUnderWayThenPassesOverWhatIsLeft() {
    HintedHandoff handoff = handoff();
    await(handoff.hint(N2, key("first"), value(1, "v")));
    transport.answer(N2, Outcome.HANG);
    CompletableFuture<Long> timer = handoff.deliver(N2);
    await(handoff.hint(N2, key("second"), value(2, "v")));
    transport.answer(N2, Outcome.SUCCEED);

    CompletableFuture<Long> hello = handoff.welcome(N2);
    assertThat(hello).as("waits for the delivery under way").isNotDone();
    assertThat(transport.calls("write")).as("no second delivery overlaps it").hasSize(1);
    transport.releaseAll();

    assertThat(await(timer)).isEqualTo(2);
    assertThat(await(hello)).isEqualTo(2);
    assertThat(transport.calls("write"))
        .extracting(c -> text(c.key()))
        .containsExactly("first", "second");
  }

  @Test
  void welcomesDeliveriesAndTimerPassesToOnePeerNeverSendAHintTwice() throws Exception {
    HintedHandoff handoff = handoff();
    for (int i = 0; i < 100; i++) {
      wall.set(T0 + i);
      await(handoff.hint(N2, key(String.format("k%02d", i)), value(i + 1, "v")));
    }
    transport.completeOn(CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
    List<Callable<CompletableFuture<?>>> triggers =
        List.of(
            () -> handoff.welcome(N2),
            () -> handoff.deliver(N2),
            handoff::deliverAll,
            () -> handoff.welcome(N2));

    List<CompletableFuture<?>> started = startTogether(triggers);

    started.forEach(HintedHandoffTest::await);
    Map<String, Long> sends =
        transport.calls("write").stream()
            .collect(Collectors.groupingBy(c -> text(c.key()), Collectors.counting()));
    assertThat(sends).hasSize(100);
    assertThat(Set.copyOf(sends.values())).as("times each hint was sent").containsExactly(1L);
    assertThat(handoff.pending(N2)).isZero();
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Starts every trigger at the same moment, each on its own thread. */
  private static List<CompletableFuture<?>> startTogether(
      List<Callable<CompletableFuture<?>>> triggers) throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(triggers.size());
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<CompletableFuture<?>>> started = new ArrayList<>();
      for (Callable<CompletableFuture<?>> trigger : triggers) {
        started.add(
            callers.submit(
                () -> {
                  start.await();
                  return trigger.call();
                }));
      }
      start.countDown();
      List<CompletableFuture<?>> futures = new ArrayList<>();
      for (Future<CompletableFuture<?>> f : started) {
        futures.add(f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      return futures;
    } finally {
      callers.shutdownNow();
    }
  }

  private double counter(String name) {
    return registry.get(name).counter().count();
  }

  private double dropped(String reason) {
    return registry.get("kvorum.hints.dropped").tag("reason", reason).counter().count();
  }

  private static List<String> keysUpTo(int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(String.format("k%02d", i));
    }
    return keys;
  }

  private static List<String> keys(List<HintStore.Hint> hints) {
    return hints.stream().map(h -> text(h.key())).toList();
  }

  private static String text(Key key) {
    return new String(key.bytes(), StandardCharsets.UTF_8);
  }

  private static Key key(String text) {
    return Key.utf8(text);
  }

  private static Record value(int logical, String value) {
    return Record.value(Version.of(T0, logical), value.getBytes(StandardCharsets.UTF_8));
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
  }

  /** A hint store whose disk refuses new hints. */
  private record FailingAdds(HintStore delegate) implements HintStore {
    @Override
    public CompletableFuture<Void> add(NodeId target, Key key, Record record, long createdAt) {
      return CompletableFuture.failedFuture(
          new StorageException(StorageException.Kind.NO_SPACE, "store hint", key, null));
    }

    @Override
    public CompletableFuture<List<Hint>> oldest(NodeId target, int limit) {
      return delegate.oldest(target, limit);
    }

    @Override
    public CompletableFuture<Void> remove(List<Hint> hints) {
      return delegate.remove(hints);
    }

    @Override
    public long pending(NodeId target) {
      return delegate.pending(target);
    }

    @Override
    public Set<NodeId> targets() {
      return delegate.targets();
    }
  }
}
