package io.kvorum.node.membership;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the change in progress when this node is responsible for it: the joining node for a join,
 * the leaving node for a decommission, the moving node for a move, the first reachable member (by
 * id) of those that stay for a removal. Driving is: wait until every reachable member has
 * acknowledged the change's epoch (so every coordinator already writes to old and new owners), and
 * then for the settle time (so requests begun before they knew it have ended), stream the records
 * that move ({@link Streamer}), then complete the change in a new epoch. A drive that fails (a
 * source or a destination down) is started again on the next tick and resumes where the stream
 * stopped; so is one interrupted by a crash, once the node is back.
 */
final class ChangeDriver {
  private static final Logger log = LoggerFactory.getLogger(ChangeDriver.class);
  private static final long LOG_EVERY_MILLIS = 10_000;

  private final Membership membership;
  private final PeerTransport transport;
  private final MembershipStore files;
  private final Streamer streamer;
  private final BiFunction<NodeId, ClusterState, CompletableFuture<Void>> gossip;
  private final BooleanSupplier closed;
  private final Duration settleTime;
  private final NodeId self;
  private final AtomicLong driving = new AtomicLong(-1);
  private final CompletableFuture<Void> left = new CompletableFuture<>();

  ChangeDriver(
      Membership membership,
      PeerTransport transport,
      MembershipStore files,
      Streamer streamer,
      BiFunction<NodeId, ClusterState, CompletableFuture<Void>> gossip,
      BooleanSupplier closed,
      Duration settleTime) {
    this.membership = membership;
    this.transport = transport;
    this.files = files;
    this.streamer = streamer;
    this.gossip = gossip;
    this.closed = closed;
    this.settleTime = settleTime;
    this.self = membership.self();
  }

  CompletableFuture<Void> left() {
    return left;
  }

  /** Starts driving {@code state}'s change on {@code worker} if this node drives it. */
  void maybeDrive(ClusterState state, ExecutorService worker) {
    Optional<ClusterState.Change> change = state.change();
    if (change.isEmpty() || !driver(state, change.get()).equals(self)) {
      return;
    }
    if (!driving.compareAndSet(-1, change.get().epoch())) {
      return;
    }
    worker.execute(
        () -> {
          try {
            drive(change.get());
          } catch (RuntimeException e) {
            log.warn("{} stopped, to be resumed: {}", change.get(), e.getMessage());
          } finally {
            driving.set(-1);
          }
        });
  }

  private NodeId driver(ClusterState state, ClusterState.Change change) {
    if (change.kind() != ClusterState.Kind.REMOVE) {
      return change.node();
    }
    for (NodeId id : state.targets()) {
      if (id.equals(self) || transport.state(id).reachable()) {
        return id;
      }
    }
    return self;
  }

  private boolean current(ClusterState.Change change) {
    return membership.state().change().equals(Optional.of(change));
  }

  private void drive(ClusterState.Change change) {
    if (!current(change)) {
      return;
    }
    ClusterState state = membership.state();
    awaitAcknowledged(
        state, change.epoch(), change.kind() == ClusterState.Kind.REMOVE ? change.node() : null);
    // Requests begun under the state before the change end meanwhile: a write that reached the old
    // owners only is then there before the stream reads them, and a conditional write's round on
    // the old replicas cannot still run once the change completes, when rounds go to the new ones.
    settle();
    Owners owners = membership.owners();
    if (!current(change)) {
      return;
    }
    log.info("{}: every reachable member acknowledged; streaming", change);
    // Each source sends only the records it hands off, so each new replica of a record gets it
    // once, from the owner it replaces (Owners#handoffSource).
    switch (change.kind()) {
      case JOIN ->
          streamEach(
              change.epoch(),
              state.owners(),
              source -> start -> handoff(source, change.epoch(), Optional.of(self), start),
              entry -> List.of(self));
      case DECOMMISSION ->
          streamEach(
              change.epoch(),
              List.of(self),
              source -> start -> streamer.handoff(owners, null, start, false),
              entry -> gained(owners, entry));
      case REMOVE, MOVE ->
          streamEach(
              change.epoch(),
              state.owners().stream().filter(source -> !source.equals(removed(change))).toList(),
              source ->
                  start ->
                      source.equals(self)
                          ? streamer.handoff(owners, null, start, false)
                          : handoff(source, change.epoch(), Optional.empty(), start),
              entry -> gained(owners, entry));
    }
    String streamed = streamer.summary();
    ClusterState done =
        membership.propose(
            s -> {
              if (!s.change().equals(Optional.of(change))) {
                throw new IllegalStateException("the change is no longer in progress");
              }
              return s.completed();
            });
    log.info("{} complete: epoch {}; streamed {}", change, done.epoch(), streamed);
    files.deleteStartingWith("stream-" + change.epoch() + "-");
    if (change.kind() == ClusterState.Kind.DECOMMISSION) {
      awaitAcknowledged(done, done.epoch(), null);
      files.markDecommissioned();
      log.info("decommissioned: every reachable member knows this node left");
      left.complete(null);
    }
  }

  /**
   * Streams from every source at once, one thread each, sharing the node's streaming rate: a source
   * scans all its records to find those it hands off, so the scanning is spread over the sources
   * rather than done by one at a time. Waits for all; a source that failed fails the drive once the
   * others are done (their progress is kept).
   */
  private void streamEach(
      long epoch,
      List<NodeId> sources,
      Function<NodeId, Function<Key, ScanCursor>> open,
      Function<Entry, List<NodeId>> destinations) {
    List<Future<?>> streams = new ArrayList<>();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (NodeId source : sources) {
        streams.add(
            threads.submit(() -> streamer.stream(epoch, source, open.apply(source), destinations)));
      }
    }
    for (Future<?> stream : streams) {
      if (stream.state() == Future.State.FAILED
          && stream.exceptionNow() instanceof RuntimeException e) {
        throw e;
      }
      if (stream.state() != Future.State.SUCCESS) {
        throw new Streamer.StreamException("a stream did not finish: " + stream.state(), null);
      }
    }
  }

  /** The node a removal takes away, which cannot stream; none for the other kinds. */
  private ScanCursor handoff(NodeId source, long epoch, Optional<NodeId> to, Key start) {
    return transport.open(
        source, MembershipProtocol.HANDOFF, new MembershipProtocol.Handoff(epoch, to, start));
  }

  private static NodeId removed(ClusterState.Change change) {
    return change.kind() == ClusterState.Kind.REMOVE ? change.node() : null;
  }

  private static List<NodeId> gained(Owners owners, Entry entry) {
    return owners.gained(entry.key(), entry.record().replicas());
  }

  private void settle() {
    long until = System.nanoTime() + settleTime.toNanos();
    while (!closed.getAsBoolean()
        && !Thread.currentThread().isInterrupted()
        && System.nanoTime() < until) {
      Threads.sleep(Math.min(100, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
    }
  }

  /**
   * Waits until every member of {@code state} but this node and {@code except} that is reachable
   * has reported {@code epoch} or a newer one, gossiping with those that have not.
   */
  private void awaitAcknowledged(ClusterState state, long epoch, NodeId except) {
    long loggedAt = System.currentTimeMillis();
    while (!closed.getAsBoolean()) {
      List<NodeId> missing = new ArrayList<>();
      for (Member member : state.members()) {
        NodeId id = member.id();
        if (id.equals(self) || id.equals(except) || !transport.state(id).reachable()) {
          continue;
        }
        if (membership.seenEpoch(id) < epoch) {
          missing.add(id);
          // Answered or not, the next pass looks again.
          CompletableFuture<Void> unused = gossip.apply(id, membership.state());
        }
      }
      if (missing.isEmpty()) {
        return;
      }
      if (System.currentTimeMillis() - loggedAt > LOG_EVERY_MILLIS) {
        log.info("waiting for {} to acknowledge epoch {}", missing, epoch);
        loggedAt = System.currentTimeMillis();
      }
      Threads.sleep(100);
    }
    throw new Streamer.StreamException("the node is closing", null);
  }
}
