package io.kvorum.node.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvorum.node.core.FeedException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeLog.Change;
import io.kvorum.node.storage.ChangeLog.Page;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The merge of one feed over scripted member logs: what it sends, when, and when it ends. Each
 * member's log is a list of changes and a closed stamp the test moves.
 */
@Timeout(30)
class ChangeFeedTest {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final KeyRange ALL = KeyRange.from(Key.of(new byte[] {0}));
  private static final Duration SHORT = Duration.ofMillis(300);

  private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
  private final ScriptedLogs logs = new ScriptedLogs();
  private final Consumer consumer = new Consumer();

  @AfterEach
  void stop() {
    loop.shutdownNow();
  }

  private ChangeFeed open(FeedSettings settings) {
    ChangeFeed feed =
        new ChangeFeed(
            ALL,
            logs,
            loop,
            consumer,
            settings,
            new FeedMetrics(new SimpleMeterRegistry(), System::currentTimeMillis),
            System::nanoTime,
            0,
            0);
    loop.execute(feed::start);
    return feed;
  }

  private static FeedSettings settings() {
    return new FeedSettings(
        Duration.ofHours(1),
        Duration.ZERO,
        Duration.ofMillis(5),
        Duration.ofMillis(20),
        SHORT,
        100,
        Duration.ofSeconds(10));
  }

  private static Change change(long stamp, String key, long version) {
    return new Change(
        stamp,
        Key.utf8(key),
        Record.value(Version.of(version, 0), key.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aChangeWaitsUntilEveryMemberIsClosedPastIt() {
    logs.member(A).add(change(10, "k", 1)).close(100);
    logs.member(B).close(5);
    open(settings());

    await().during(Duration.ofMillis(100)).until(() -> consumer.changes().isEmpty());
    logs.member(B).close(10);

    await().until(() -> consumer.changes().size() == 1);
    assertThat(consumer.progress()).last().isEqualTo(10L);
  }

  @Test
  void copiesFromSeveralReplicasAndOlderVersionsArrivingLateAreSentOnce() {
    logs.member(A).add(change(10, "k", 2)).add(change(30, "k", 1)).close(100);
    logs.member(B).add(change(11, "k", 2)).add(change(20, "j", 1)).close(100);
    open(settings());

    await().until(() -> consumer.changes().size() == 2);
    await().during(Duration.ofMillis(100)).until(() -> consumer.changes().size() == 2);
    assertThat(consumer.changes())
        .extracting(e -> e.key().toString(), e -> e.record().version().physicalMillis())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("k", 2L),
            org.assertj.core.groups.Tuple.tuple("j", 1L));
    assertThat(consumer.changes()).extracting(FeedEvent::cursor).isSorted();
  }

  @Test
  void aMemberTheTransportCannotReachDoesNotHoldTheFeedBack() {
    logs.member(A).add(change(10, "k", 1)).close(100);
    logs.member(B).close(0);
    logs.unreachable.add(B);
    open(settings());

    await().until(() -> consumer.changes().size() == 1);
  }

  @Test
  void aFeedCutOffFromAMajorityOfReplicasWaitsForThemAndShowsWhatTheyHeldInOrder() {
    NodeId c = NodeId.of("c");
    logs.ids = List.of(A, B, c);
    logs.member(A).add(change(30, "k", 3)).close(100);
    logs.member(B).add(change(10, "k", 1)).add(change(20, "k", 2)).close(100);
    logs.member(c).close(100);
    logs.unreachable.addAll(List.of(B, c));
    open(settings());

    // A alone could hold only some of what a majority acknowledged: nothing is sent past it.
    await().during(Duration.ofMillis(200)).until(() -> consumer.changes().isEmpty());
    logs.unreachable.remove(B);

    await().until(() -> consumer.changes().size() == 3);
    assertThat(consumer.changes())
        .extracting(e -> e.record().version().physicalMillis())
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void aMemberThatFailsHoldsTheFeedBackOnlyForItsGrace() {
    logs.member(A).add(change(10, "k", 1)).close(100);
    logs.failing.add(B);
    long opened = System.nanoTime();
    open(settings());

    await().until(() -> consumer.changes().size() == 1);
    assertThat(System.nanoTime() - opened).isGreaterThanOrEqualTo(SHORT.toNanos());

    // Back, with a change older than what was sent since: sent late, not lost.
    logs.member(B).add(change(9, "late", 1)).close(100);
    logs.failing.remove(B);
    await().until(() -> consumer.changes().size() == 2);
  }

  @Test
  void aConsumerThatTakesNothingIsCutOffOnceTooManyEventsWait() {
    for (int i = 1; i <= 200; i++) {
      logs.member(A).add(change(i, "k" + i, 1));
    }
    logs.member(A).close(1_000);
    logs.member(B).close(1_000);
    consumer.writable.set(false);
    open(settings());

    await().until(() -> consumer.ended.get() != null);
    assertThat(consumer.ended.get())
        .isInstanceOfSatisfying(
            FeedException.class,
            e -> assertThat(e.reason()).isEqualTo(FeedException.Reason.TOO_SLOW));
  }

  @Test
  void aFeedWhosePositionWasPurgedEndsAsExpired() {
    logs.member(A).close(100).purgedBefore = 50;
    logs.member(B).close(100);
    open(settings());

    await().until(() -> consumer.ended.get() != null);
    assertThat(consumer.ended.get())
        .isInstanceOfSatisfying(
            FeedException.class,
            e -> assertThat(e.reason()).isEqualTo(FeedException.Reason.CURSOR_EXPIRED));
  }

  /** One member's log as the test scripts it. */
  static final class ScriptedLog {
    final List<Change> changes = new CopyOnWriteArrayList<>();
    volatile long closed;
    volatile long purgedBefore;

    ScriptedLog add(Change change) {
      changes.add(change);
      return this;
    }

    ScriptedLog close(long stamp) {
      closed = stamp;
      return this;
    }

    Page read(long after) {
      long upTo = closed;
      List<Change> page =
          changes.stream().filter(c -> c.stamp() > after && c.stamp() <= upTo).toList();
      return new Page(page, Math.max(after, upTo), purgedBefore, false);
    }
  }

  static final class ScriptedLogs implements ChangeFeed.Logs {
    final Map<NodeId, ScriptedLog> members = new ConcurrentHashMap<>();
    final Set<NodeId> unreachable = ConcurrentHashMap.newKeySet();
    final Set<NodeId> failing = ConcurrentHashMap.newKeySet();

    ScriptedLog member(NodeId id) {
      return members.computeIfAbsent(id, k -> new ScriptedLog());
    }

    volatile List<NodeId> ids = List.of(A, B);

    @Override
    public List<NodeId> members() {
      return ids;
    }

    @Override
    public long clockSpread() {
      return 0;
    }

    @Override
    public Optional<RuntimeException> clockRefusal() {
      return Optional.empty();
    }

    /** As a cluster of as many nodes as members, each key on every one of them. */
    @Override
    public boolean mayGoWithout(Set<NodeId> absent) {
      return absent.size() < ids.size() / 2 + 1;
    }

    @Override
    public boolean reachable(NodeId member) {
      return !unreachable.contains(member);
    }

    @Override
    public CompletableFuture<Page> read(NodeId member, ChangeLog.Read read) {
      if (failing.contains(member)) {
        return CompletableFuture.failedFuture(new UnavailableException("scripted"));
      }
      return CompletableFuture.completedFuture(member(member).read(read.after()));
    }
  }

  static final class Consumer implements ChangeFeed.Sink {
    final List<FeedEvent> events = new CopyOnWriteArrayList<>();
    final AtomicBoolean writable = new AtomicBoolean(true);
    final AtomicReference<RuntimeException> ended = new AtomicReference<>();

    @Override
    public boolean writable() {
      return writable.get();
    }

    @Override
    public void send(FeedEvent event) {
      events.add(event);
    }

    @Override
    public void end(RuntimeException reason) {
      ended.set(reason);
    }

    List<FeedEvent.Changed> changes() {
      return events.stream()
          .filter(FeedEvent.Changed.class::isInstance)
          .map(FeedEvent.Changed.class::cast)
          .toList();
    }

    List<Long> progress() {
      return events.stream()
          .filter(FeedEvent.Progress.class::isInstance)
          .map(FeedEvent::cursor)
          .toList();
    }
  }
}
