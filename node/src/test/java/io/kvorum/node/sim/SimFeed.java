package io.kvorum.node.sim;

import io.kvorum.node.changes.ChangeFeed;
import io.kvorum.node.changes.Cursors;
import io.kvorum.node.changes.FeedEvent;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.sim.check.ClientOp;
import io.kvorum.node.sim.check.Recording;
import io.kvorum.node.sim.check.Violation;
import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeLogContract;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A consumer of a change feed of the whole key space (SPEC §12), as {@code KvorumClient.watch}
 * follows one: it opens the feed on a node, keeps every event, and resumes from the last cursor it
 * received on another node ready, picked at random, whenever its feed ends, its node crashes, or
 * nothing has come for {@link #SILENCE} (a frozen node). Each feed it opened is a session; {@link
 * #check} says whether what the sessions showed keeps the SPEC's promises for the run's {@link
 * Recording}: every write owed shown, each key's versions never going back within a session.
 *
 * <p>The writes owed ({@link #promised}) are those a majority of a key's three replicas
 * acknowledged: a feed goes on without a minority of members (a node down, cut off), so a write
 * only one of them took shows once that node answers again, unless a newer version of its key was
 * shown meanwhile. And none acknowledged within {@link #CLOCK_SEEN} of a clock step: a feed orders
 * the members' logs by their clocks as last measured, and a step is measured by the next heartbeat
 * (docs/decisions/a-feed-goes-on-without-a-minority-and-waits-out-the-clocks.md).
 */
final class SimFeed {
  /** How long the consumer waits for an event (progress comes every 2 s) before it resumes. */
  static final Duration SILENCE = Duration.ofSeconds(5);

  /** How soon after a clock step the members' clocks are measured again: a heartbeat, and one. */
  static final Duration CLOCK_SEEN = Duration.ofSeconds(2);

  private static final Duration TICK = Duration.ofMillis(500);
  private static final KeyRange EVERYTHING = KeyRange.from(Key.of(new byte[] {0}));

  /** One change shown: the record of a key, in the session it was shown in. */
  private record Shown(int session, Key key, Record record) {}

  private final SimCluster cluster;
  private final List<Shown> shown = new ArrayList<>();
  private final List<String> ends = new ArrayList<>();
  private boolean running;
  private SimNode first;
  private Optional<Long> cursor = Optional.empty();
  private Session session;
  private int sessions;
  private Predicate<ClientOp> owed = op -> true;
  private List<ClientOp> stillMissing;
  private Origins origins;
  private int checkedAt;

  /** One feed opened on a node's incarnation. */
  private final class Session implements ChangeFeed.Sink {
    final int number = ++sessions;
    final SimNode node;
    final SimScheduler.Owner incarnation;
    final SimExecutor loop;
    ChangeFeed feed;
    long lastEventAt;
    boolean ended;

    Session(SimNode node) {
      this.node = node;
      this.incarnation = node.incarnation();
      this.loop = new SimExecutor(cluster.scheduler(), incarnation, Integer.MAX_VALUE, true);
      this.lastEventAt = cluster.scheduler().now();
    }

    boolean alive() {
      return !ended
          && node.incarnation() == incarnation
          && cluster.scheduler().now() - lastEventAt < SILENCE.toNanos();
    }

    @Override
    public boolean writable() {
      return true;
    }

    @Override
    public void send(FeedEvent event) {
      if (session != this) {
        return; // a session given up on, still sending
      }
      lastEventAt = cluster.scheduler().now();
      cursor = Optional.of(event.cursor());
      if (event instanceof FeedEvent.Changed changed) {
        shown.add(new Shown(number, changed.key(), changed.record()));
      }
    }

    @Override
    public void end(RuntimeException reason) {
      ended = true;
      ends.add(node.id() + ": " + reason.getMessage());
    }

    void close() {
      ended = true;
      ChangeFeed open = feed;
      if (open != null && node.incarnation() == incarnation) {
        loop.execute(open::close);
      }
    }
  }

  SimFeed(SimCluster cluster) {
    this.cluster = cluster;
  }

  /**
   * The acknowledged writes a feed must show: acknowledged by at least two replicas, and not within
   * {@link #CLOCK_SEEN} of one of {@code clockSteps} (virtual nanoseconds).
   */
  static Predicate<ClientOp> promised(List<Long> clockSteps) {
    long seen = CLOCK_SEEN.toNanos();
    return op ->
        op.quorum().ack() >= 2
            && clockSteps.stream().noneMatch(step -> Math.abs(op.ret() - step) <= seen);
  }

  /** Checks only the acknowledged writes {@code owed} says the feed must show (default: all). */
  SimFeed owing(Predicate<ClientOp> owed) {
    this.owed = owed;
    return this;
  }

  /**
   * Opens the first feed now, on a node picked at random (from now: nothing written yet is
   * promised), and keeps it followed.
   */
  void start() {
    running = true;
    tick();
  }

  /** As {@link #start}, the first feed on {@code node}. */
  void startOn(SimNode node) {
    first = node;
    start();
  }

  /** Closes the feed; nothing more is shown. */
  void stop() {
    running = false;
    if (session != null) {
      session.close();
      session = null;
    }
  }

  /** Where {@code op}'s version is in the change logs now: {@code node@stamp}, for a report. */
  private List<String> loggedAs(ClientOp op) {
    List<String> found = new ArrayList<>();
    for (SimNode node : cluster.nodes()) {
      ChangeLog log = node.disk().live().records().changes();
      ChangeLog.Page page = new ChangeLog.Page(List.of(), 0, 0, true);
      while (page.more()) {
        page = ChangeLogContract.read(log, EVERYTHING, page.closed(), Integer.MAX_VALUE).join();
        for (ChangeLog.Change change : page.changes()) {
          if (change.key().equals(op.key()) && change.record().version().equals(op.version())) {
            found.add(node.id() + "@" + new Version(change.stamp()));
          }
        }
      }
    }
    return found;
  }

  /** What the consumer saw, in a line. */
  String summary() {
    return "change feed: "
        + shown.size()
        + " changes shown in "
        + sessions
        + " sessions"
        + (ends.isEmpty() ? "" : ", ended " + ends);
  }

  private void tick() {
    if (!running) {
      return;
    }
    if (session == null || !session.alive()) {
      if (session != null) {
        session.close();
      }
      session = open();
    }
    cluster.scheduler().after(TICK.toNanos(), null, this::tick);
  }

  /**
   * A feed on a node ready, picked at random, from the last cursor; null if none would open one.
   */
  private Session open() {
    // A node serves feeds once ready, as it does every client request (a joining node's view of
    // the members is its own alone until then).
    List<SimNode> up =
        cluster.nodes().stream()
            .filter(n -> n.server().map(KvorumServer::ready).orElse(false))
            .toList();
    if (up.isEmpty()) {
      return null;
    }
    SimNode node =
        sessions == 0 && first != null
            ? first
            : up.get(cluster.scheduler().random().nextInt(up.size()));
    Session opened = new Session(node);
    Optional<String> since = cursor.map(Cursors::format);
    opened.loop.execute(
        () -> {
          try {
            opened.feed =
                node.server()
                    .orElseThrow()
                    .changeFeeds()
                    .open(EVERYTHING, since, opened.loop, opened);
          } catch (RuntimeException e) {
            // The node is stopping, or its clock is behind the cursor: another is tried.
            opened.end(e);
          }
        });
    return opened;
  }

  /**
   * Whether every acknowledged write of {@code recording} was shown, or need not be; asked again
   * with the same recording, looks again only at what it missed, and only once more was shown.
   */
  boolean showedAll(Recording recording) {
    if (stillMissing == null || shown.size() != checkedAt) {
      checkedAt = shown.size();
      stillMissing = missing(recording, stillMissing);
    }
    return stillMissing.isEmpty();
  }

  /**
   * The acknowledged writes the feed owed and did not show. A write need not show when a newer
   * version of its key was shown whose write began before it was acknowledged (the two were
   * concurrent: the newer may reach every replica first, and a feed never goes back to the older);
   * a write that began after it was acknowledged arrived after it at every replica it reached, so
   * it never excuses it.
   */
  private List<ClientOp> missing(Recording recording, List<ClientOp> among) {
    if (origins == null || origins.recording() != recording) {
      origins = Origins.of(recording);
    }
    Map<Key, List<Record>> byKey = new HashMap<>();
    shown.forEach(s -> byKey.computeIfAbsent(s.key(), k -> new ArrayList<>()).add(s.record()));
    List<ClientOp> missing = new ArrayList<>();
    for (ClientOp op : among != null ? among : recording.ops()) {
      if (!op.isAcknowledgedWrite() || !owed.test(op)) {
        continue;
      }
      List<Record> records = byKey.getOrDefault(op.key(), List.of());
      boolean excused =
          records.stream()
              .anyMatch(
                  r -> op.isWrittenAs(r) || (op.isCoveredBy(r) && beganBefore(origins.of(r), op)));
      if (!excused) {
        missing.add(op);
      }
    }
    return missing;
  }

  /** The writes of a recording by what they wrote: values (unique) and acknowledged deletes. */
  private record Origins(
      Recording recording, Map<ByteBuffer, ClientOp> byValue, Map<Version, ClientOp> deletes) {
    static Origins of(Recording recording) {
      Map<ByteBuffer, ClientOp> byValue = new HashMap<>();
      Map<Version, ClientOp> deletes = new HashMap<>();
      for (ClientOp op : recording.ops()) {
        if (op.kind().writesValue()) {
          byValue.put(ByteBuffer.wrap(op.value()), op);
        } else if (op.isAcknowledgedWrite()) {
          deletes.put(op.version(), op);
        }
      }
      return new Origins(recording, byValue, deletes);
    }

    /** The write that wrote {@code record}, if known (null: a delete not acknowledged). */
    ClientOp of(Record record) {
      return record.tombstone()
          ? deletes.get(record.version())
          : byValue.get(ByteBuffer.wrap(record.value()));
    }
  }

  /** Whether {@code newer} (null: unknown, so perhaps) began before {@code op} was answered. */
  private static boolean beganBefore(ClientOp newer, ClientOp op) {
    return newer == null || newer.call() < op.ret();
  }

  /**
   * What the feed broke of SPEC §12: an acknowledged write that no session showed, nor a newer
   * version of its key written concurrently with it (at least once); a key whose versions went
   * backwards within a session (the same version twice is two writes given it, or a copy).
   */
  List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    for (ClientOp op : missing(recording, null)) {
      violations.add(
          new Violation(
              "ChangeFeed",
              op.key().toString(),
              "an acknowledged "
                  + op.kind()
                  + " at "
                  + op.version()
                  + " ("
                  + op.quorum()
                  + " through "
                  + op.node()
                  + ", "
                  + op.call() / 1_000_000
                  + "-"
                  + op.ret() / 1_000_000
                  + " ms) was never shown, nor a newer version written concurrently, in "
                  + sessions
                  + " feed sessions (their ends: "
                  + ends
                  + "); logged as "
                  + loggedAs(op)
                  + "; shown of the key: "
                  + shown.stream()
                      .filter(x -> x.key().equals(op.key()))
                      .map(x -> x.session() + ":" + x.record().version())
                      .toList()));
    }
    Map<String, Record> last = new HashMap<>();
    for (Shown s : shown) {
      String at = s.session() + " " + s.key();
      Record before = last.put(at, s.record());
      if (before != null && s.record().version().compareTo(before.version()) < 0) {
        violations.add(
            new Violation(
                "ChangeFeed",
                s.key().toString(),
                "session "
                    + s.session()
                    + " showed "
                    + s.record().version()
                    + " after "
                    + before.version()));
      }
    }
    return violations;
  }
}
