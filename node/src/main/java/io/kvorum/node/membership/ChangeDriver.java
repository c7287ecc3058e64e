package io.kvorum.node.membership;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
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
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the change in progress when this node is responsible for it: the joining node for a join,
 * the leaving node for a decommission, the moving node for a move, the first reachable member (by
 * id) of those that stay for a removal; once the reads of a change moved, the first reachable
 * member that stays if the change's node is not reachable (nothing is left to stream; a join or
 * move no longer aborts then, and a leaving node may have died between storing the completion and
 * spreading it). Driving is three steps, each once every reachable member acknowledged the step
 * before and a settle time passed (docs/decisions/a-change-moves-reads-before-writes.md):
 *
 * <ol>
 *   <li>the change started (every coordinator now writes to the old and the new owners, and
 *       requests begun before they knew it have ended): finish the conditional writes the old
 *       owners' acceptors hold ({@link ChangeRepair}), stream the records that move ({@link
 *       Streamer}), then move the reads to the new owners in a new epoch ({@link
 *       ClusterState#readsMoved});
 *   <li>the reads moved (no coordinator reads the old owners alone any more): complete the change
 *       in a new epoch ({@link ClusterState#completed}), which stops writing to the old owners.
 * </ol>
 *
 * So no two coordinators are more than one step apart, and each pair of neighbouring steps has
 * quorums that meet. A drive that fails (a source or a destination down) is started again on the
 * next tick and resumes where the stream stopped, or at the step it reached; so is one interrupted
 * by a crash, once the node is back.
 *
 * <p>A drive is a chain of steps ({@link Execution}): its checks and streams on the worker, the
 * completion of the change on the io thread (as every proposal), its pauses (the settle time, the
 * polls for acknowledgements) on the scheduler, measured on the node's monotonic clock. One drive
 * at a time, never during an ownership sweep ({@link Execution#inTurn}); {@link #left} completes on
 * the worker once this node's decommission is over ({@link #leave}), whoever completed it.
 */
final class ChangeDriver {
  private static final Logger log = LoggerFactory.getLogger(ChangeDriver.class);
  private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final Duration POLL = Duration.ofMillis(100);

  private final Membership membership;
  private final PeerTransport transport;
  private final MembershipStore files;
  private final Streamer streamer;
  private final ChangeRepair repair;
  private final BiFunction<NodeId, ClusterState, CompletableFuture<Void>> gossip;
  private final Execution execution;
  private final Duration settleTime;
  private final NodeId self;
  private final AtomicLong driving = new AtomicLong(-1);
  private final CompletableFuture<Void> left = new CompletableFuture<>();
  private final AtomicBoolean leaving = new AtomicBoolean();

  ChangeDriver(
      Membership membership,
      PeerTransport transport,
      MembershipStore files,
      Streamer streamer,
      ChangeRepair repair,
      BiFunction<NodeId, ClusterState, CompletableFuture<Void>> gossip,
      Execution execution,
      Duration settleTime) {
    this.membership = membership;
    this.transport = transport;
    this.files = files;
    this.streamer = streamer;
    this.repair = repair;
    this.gossip = gossip;
    this.execution = execution;
    this.settleTime = settleTime;
    this.self = membership.self();
  }

  CompletableFuture<Void> left() {
    return left;
  }

  /**
   * Starts driving {@code state}'s change if this node drives it and no drive runs; returns at
   * once. Its end (or its failure, logged, to be resumed by a later call) frees the way for the
   * next.
   */
  void maybeDrive(ClusterState state) {
    Optional<ClusterState.Change> change = state.change();
    if (change.isEmpty() || !driver(state, change.get()).equals(self)) {
      return;
    }
    if (!driving.compareAndSet(-1, change.get().epoch())) {
      return;
    }
    execution
        .inTurn(() -> drive(change.get()))
        .whenComplete(
            (done, error) -> {
              if (error != null) {
                log.warn(
                    "{} stopped, to be resumed: {}",
                    change.get(),
                    Failures.unwrap(error).getMessage());
              }
              driving.set(-1);
            });
  }

  private NodeId driver(ClusterState state, ClusterState.Change change) {
    if (change.kind() != ClusterState.Kind.REMOVE && !takenOver(change)) {
      return change.node();
    }
    for (NodeId id : state.targets()) {
      if (!id.equals(change.node()) && (id.equals(self) || transport.state(id).reachable())) {
        return id;
      }
    }
    return self;
  }

  /**
   * Whether a change is completed by another member than its node: its reads moved and its node is
   * not reachable from here. Its node may have died for good (a join or move no longer aborts once
   * its reads moved), or stored the completion and died before spreading it; completing it twice
   * makes the same state, so two members that both drive it do no harm.
   */
  private boolean takenOver(ClusterState.Change change) {
    return change.readsMoved()
        && !change.node().equals(self)
        && !transport.state(change.node()).reachable();
  }

  private boolean current(ClusterState.Change change) {
    return membership.state().change().equals(Optional.of(change));
  }

  private CompletableFuture<Void> drive(ClusterState.Change change) {
    if (!current(change)) {
      return CompletableFuture.completedFuture(null);
    }
    ClusterState state = membership.state();
    if (change.readsMoved()) {
      return finish(change, state);
    }
    return awaitAcknowledged(state, change.epoch(), removed(change))
        // Requests begun under the state before the change end meanwhile: a write that reached the
        // old owners only is then there before the stream reads them, and a conditional write's
        // round on the old replicas cannot still run once the change completes, when rounds go to
        // the new ones.
        .thenCompose(acknowledged -> execution.pause(settleTime))
        // No round on the owners before alone runs any more: what their acceptors hold is carried.
        .thenComposeAsync(
            settled ->
                current(change)
                    ? repair.repair(state, change)
                    : CompletableFuture.completedFuture(null),
            execution.worker())
        .thenComposeAsync(repaired -> stream(change, state), execution.worker())
        .thenComposeAsync(streamed -> moveReads(change), execution.worker())
        .thenCompose(
            moved ->
                moved == null
                    ? CompletableFuture.<Void>completedFuture(null)
                    : finish(moved.change().orElseThrow(), moved));
  }

  private CompletableFuture<Void> stream(ClusterState.Change change, ClusterState state) {
    Owners owners = membership.owners();
    if (!current(change)) {
      return CompletableFuture.completedFuture(null);
    }
    log.info("{}: every reachable member acknowledged; streaming", change);
    // Each source sends only the records it hands off, so each new replica of a record gets it
    // once, from the owner it replaces (Owners#handoffSource).
    return switch (change.kind()) {
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
    };
  }

  /**
   * Moves the reads of {@code change}, streamed, to the new owners in a new epoch, on the io
   * thread; completes with that state, or null if the change is no longer in progress.
   */
  private CompletableFuture<ClusterState> moveReads(ClusterState.Change change) {
    if (!current(change)) {
      return CompletableFuture.completedFuture(null);
    }
    return proposeStep(change, ClusterState::readsMoved)
        .thenApply(
            moved -> {
              log.info(
                  "{}: streamed {}; reads moved to the new owners at epoch {}",
                  change,
                  streamer.summary(),
                  moved.epoch());
              return moved;
            });
  }

  /**
   * Completes {@code change}, whose reads moved in {@code state}, once every reachable member
   * acknowledged that and requests begun before they knew it have ended.
   */
  private CompletableFuture<Void> finish(ClusterState.Change change, ClusterState state) {
    return awaitAcknowledged(state, state.epoch(), removed(change))
        .thenCompose(acknowledged -> execution.pause(settleTime))
        .thenComposeAsync(settled -> complete(change), execution.worker());
  }

  /** Completes {@code change} in a new epoch, on the io thread. */
  private CompletableFuture<Void> complete(ClusterState.Change change) {
    if (!current(change)) {
      return CompletableFuture.completedFuture(null);
    }
    String streamed = streamer.summary();
    return proposeStep(change, ClusterState::completed)
        .thenAcceptAsync(
            done -> {
              log.info("{} complete: epoch {}; streamed {}", change, done.epoch(), streamed);
              files.deleteStartingWith("stream-" + change.epoch() + "-");
            },
            execution.worker());
  }

  /**
   * Proposes the next {@code step} of {@code change} in a new epoch, on the io thread; fails if the
   * change is no longer the one in progress.
   */
  private CompletableFuture<ClusterState> proposeStep(
      ClusterState.Change change, UnaryOperator<ClusterState> step) {
    return execution.onIo(
        () ->
            membership.propose(
                s -> {
                  if (!s.change().equals(Optional.of(change))) {
                    throw new IllegalStateException("the change is no longer in progress");
                  }
                  return step.apply(s);
                }));
  }

  /**
   * This node's decommission completed in {@code done}, by its own drive or another member's: once
   * every reachable member has {@code done}, it marks itself decommissioned and {@link #left}
   * completes. Once only; called on the thread that adopted {@code done}.
   */
  void leave(ClusterState done) {
    if (!leaving.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<Void> unused =
        awaitAcknowledged(done, done.epoch(), null)
            .thenRunAsync(
                () -> {
                  files.markDecommissioned();
                  log.info("decommissioned: every reachable member knows this node left");
                  left.complete(null);
                },
                execution.worker())
            .whenComplete(
                (ok, error) -> {
                  if (error != null) {
                    leaving.set(false);
                    // Only a closing node stops here; its stored state no longer lists it, so it
                    // will not start again on this data directory either.
                    log.warn(
                        "left the cluster, but stopped before every reachable member knew it: {}",
                        Failures.unwrap(error).getMessage());
                  }
                });
  }

  /**
   * Streams from every source at once, sharing the node's streaming rate: a source scans all its
   * records to find those it hands off, so the scanning is spread over the sources rather than done
   * by one at a time. Completes once all are done; a source that failed fails the drive once the
   * others are done (their progress is kept).
   */
  private CompletableFuture<Void> streamEach(
      long epoch,
      List<NodeId> sources,
      Function<NodeId, Function<Key, ScanCursor>> open,
      Function<Entry, List<NodeId>> destinations) {
    List<CompletableFuture<Void>> streams = new ArrayList<>();
    for (NodeId source : sources) {
      streams.add(
          execution.onWorker(
              () -> streamer.stream(epoch, source, open.apply(source), destinations)));
    }
    return CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new))
        .handle(
            (all, any) -> {
              for (CompletableFuture<Void> stream : streams) {
                if (stream.state() == Future.State.FAILED
                    && Failures.unwrap(stream.exceptionNow()) instanceof RuntimeException e) {
                  throw e;
                }
                if (stream.state() != Future.State.SUCCESS) {
                  throw new Streamer.StreamException(
                      "a stream did not finish: " + stream.state(), null);
                }
              }
              return null;
            });
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

  /**
   * Completes once every member of {@code state} but this node and {@code except} that is reachable
   * has reported {@code epoch} or a newer one, gossiping with those that have not at each poll;
   * fails with {@link Streamer.StreamException} if the node closes first.
   */
  private CompletableFuture<Void> awaitAcknowledged(ClusterState state, long epoch, NodeId except) {
    long[] loggedAt = {execution.nanoTime()};
    return execution.loop(
        () -> {
          if (execution.closed()) {
            throw new Streamer.StreamException("the node is closing", null);
          }
          List<NodeId> missing = unacknowledged(state, epoch, except);
          if (missing.isEmpty()) {
            return CompletableFuture.completedFuture(false);
          }
          if (execution.nanoTime() - loggedAt[0] > LOG_EVERY_NANOS) {
            log.info("waiting for {} to acknowledge epoch {}", missing, epoch);
            loggedAt[0] = execution.nanoTime();
          }
          return execution.pause(POLL).thenApply(polled -> true);
        });
  }

  /** The reachable members that have not reported {@code epoch}; each is sent this node's state. */
  private List<NodeId> unacknowledged(ClusterState state, long epoch, NodeId except) {
    List<NodeId> missing = new ArrayList<>();
    for (Member member : state.members()) {
      NodeId id = member.id();
      if (id.equals(self) || id.equals(except) || !transport.state(id).reachable()) {
        continue;
      }
      if (membership.seenEpoch(id) < epoch) {
        missing.add(id);
        // Answered or not, the next poll looks again.
        CompletableFuture<Void> unused = gossip.apply(id, membership.state());
      }
    }
    return missing;
  }
}
