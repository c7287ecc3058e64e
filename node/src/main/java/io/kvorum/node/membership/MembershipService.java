package io.kvorum.node.membership;

import io.kvorum.node.antientropy.RepairRate;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.StorageEngine;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.StreamFigures;
import io.kvorum.node.topology.Zone;
import io.kvorum.node.transport.PeerTransport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's part in membership (SPEC §8): it gossips its cluster state with every member each
 * interval (and answers their gossip), admits joining nodes, starts decommissions and removals one
 * at a time ({@link ChangeRequests}), moves itself to the zone it was started in, drives the change
 * it is responsible for ({@link ChangeDriver}), and sweeps the records it no longer owns once a
 * change is complete everywhere ({@link OwnershipSweep}).
 *
 * <p>Threads and time (the node's, given; {@link Execution}): the ticks run on the scheduler;
 * gossip answers, admissions and every proposal or adoption of a state on one io thread ({@code
 * kvorum-membership-io}; they write the state file, one at a time); the steps of streaming, sweeps
 * and a join's requests on one worker ({@code kvorum-membership}). No thread waits: every pause and
 * deadline is a task on the scheduler, measured on the monotonic clock given ({@code nanoTime}), so
 * a scheduler in virtual time runs all of it. Only {@link #decommission} and {@link #remove} wait,
 * on their caller's thread, for the io thread. After {@link #close}, the work in progress stops at
 * its next step.
 */
public final class MembershipService implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MembershipService.class);

  /**
   * @param bytesPerSecond the most streaming sends (or receives) per second
   * @param gossipInterval how often the state is exchanged with every member
   * @param settleTime how long requests started under an older state may still run: the driver of a
   *     change waits that long once every member acknowledged it before streaming, and old owners
   *     wait that long once every member acknowledged a completed change before dropping what they
   *     no longer own
   */
  public record Settings(long bytesPerSecond, Duration gossipInterval, Duration settleTime) {}

  /** How often a node exchanges its cluster state with every member. */
  public static final Duration GOSSIP_INTERVAL = Duration.ofSeconds(1);

  private final Membership membership;
  private final PeerTransport transport;
  private final Settings settings;
  private final ScheduledExecutorService timers;
  private final Execution execution;
  private final Streamer streamer;
  private final ChangeDriver driver;
  private final OwnershipSweep sweep;
  private final ChangeRequests requests;
  private final CompletableFuture<Void> joined = new CompletableFuture<>();
  private final CompletableFuture<Void> inZone = new CompletableFuture<>();
  // A move asked for and not stored yet: the ticks meanwhile do not ask again.
  private final AtomicBoolean askingToMove = new AtomicBoolean();
  // The zone this node was started in (--zone); null until the server says.
  private volatile Zone zone;
  // What changed() saw last: whether this node was a member, and whether it was decommissioning.
  private volatile boolean wasMember;
  private volatile boolean decommissioning;
  // The state the transport was last told of: what a tick gossips with and drives. A state is
  // visible in Membership before its listeners run, and a tick that read it there would call a
  // member just admitted before the transport has a connection to it ("it is not a member").
  private volatile ClusterState known;

  /**
   * @param timers where the ticks, pauses and deadlines are scheduled
   * @param io the one thread of cluster states: gossip answers, admissions, proposals, adoptions
   * @param worker the one thread of the steps of streams, sweeps and joins
   * @param wallMillis the wall clock: when a change started
   * @param nanoTime the monotonic clock: how long a pause or a deadline has run
   */
  public MembershipService(
      Membership membership,
      MembershipStore files,
      StorageEngine storage,
      PeerTransport transport,
      ChangeRepair repair,
      Settings settings,
      ScheduledExecutorService timers,
      Executor io,
      Executor worker,
      LongSupplier wallMillis,
      LongSupplier nanoTime) {
    this.membership = membership;
    this.transport = transport;
    this.settings = settings;
    this.timers = timers;
    this.execution = new Execution(timers, nanoTime, io, worker);
    this.streamer =
        new Streamer(
            membership.self(),
            storage,
            transport,
            new RepairRate(settings.bytesPerSecond(), timers, nanoTime),
            files,
            execution);
    this.driver =
        new ChangeDriver(
            membership,
            transport,
            files,
            streamer,
            repair,
            this::gossipTo,
            execution,
            settings.settleTime());
    this.sweep = new OwnershipSweep(membership, files, storage, settings.settleTime(), execution);
    this.requests =
        new ChangeRequests(membership, transport, execution, wallMillis, this::gossipWithAll);
    membership.onChange(this::changed);
    changed(membership.state());
  }

  /** Starts gossiping and driving. */
  public void start() {
    long every = settings.gossipInterval().toMillis();
    timers.scheduleWithFixedDelay(this::tick, 0, every, TimeUnit.MILLISECONDS);
  }

  private void changed(ClusterState state) {
    transport.members(state.members());
    known = state;
    // A leaving node restarted mid-decommission still serves its keys until it has left.
    MemberState mine = state.state(membership.self()).orElse(null);
    // Epoch 0 is a joining node not admitted yet: it holds only itself.
    if (state.epoch() > 0 && (mine == MemberState.NORMAL || mine == MemberState.LEAVING)) {
      joined.complete(null);
    }
    if (state.change().isEmpty()) {
      streamer.reset();
    }
    // A member that learns it is one no longer by its own decommission leaves, whoever completed
    // it; otherwise it was removed while it was away or its join aborted: it stops, as a
    // decommissioned node does, and a restart refuses to start on its data directory.
    if (state.epoch() > 0 && mine == null && wasMember && decommissioning) {
      driver.leave(state);
    } else if (state.epoch() > 0 && mine == null && wasMember) {
      log.error(
          "this node is no longer a member of the cluster (epoch {}: {}): it was removed, or its"
              + " join aborted, while it was away; it stops. Wipe its data directory to join again",
          state.epoch(),
          state.ids());
      driver.left().complete(null);
    }
    wasMember = mine != null;
    if (zone != null && inZone(state, zone)) {
      inZone.complete(null);
    }
    decommissioning =
        state
            .change()
            .filter(c -> c.kind() == ClusterState.Kind.DECOMMISSION)
            .map(c -> c.node().equals(membership.self()))
            .orElse(false);
  }

  /**
   * Makes this node a member of {@code wanted}, the zone it was started in: if the cluster state
   * has it in another, it asks for a move (SPEC §3, §8), again each gossip interval while another
   * change is in progress, and drives it. The future completes once the cluster state has this node
   * in {@code wanted}, at once if it already has.
   */
  public CompletableFuture<Void> settleZone(Zone wanted) {
    zone = wanted;
    if (inZone(membership.state(), wanted)) {
      inZone.complete(null);
    }
    return inZone;
  }

  private boolean inZone(ClusterState state, Zone wanted) {
    return state.node(membership.self()).map(n -> n.member().zone().equals(wanted)).orElse(false)
        && state
            .change()
            .filter(c -> c.kind() == ClusterState.Kind.MOVE)
            .filter(c -> c.node().equals(membership.self()))
            .isEmpty();
  }

  private void maybeMove(ClusterState state) {
    Zone wanted = zone;
    if (wanted == null
        || inZone.isDone()
        || state.change().isPresent()
        || state.state(membership.self()).orElse(null) != MemberState.NORMAL) {
      return;
    }
    Zone now = state.node(membership.self()).orElseThrow().member().zone();
    if (now.equals(wanted)) {
      return;
    }
    if (!askingToMove.compareAndSet(false, true)) {
      return;
    }
    log.info("this node was started in zone {}, the cluster has it in zone {}", wanted, now);
    requests
        .move(wanted)
        .whenComplete(
            (change, error) -> {
              askingToMove.set(false);
              if (error != null) {
                // Another change started meanwhile: the next tick asks again once it is over.
                log.info("cannot move to zone {} yet: {}", wanted, Failures.rootMessage(error));
              } else {
                // Driven at once, as the tick that asked would have before the move was stored.
                driver.maybeDrive(known);
              }
            });
  }

  /** Completes once this node is a normal member (at once for a member of a seeded cluster). */
  public CompletableFuture<Void> joined() {
    return joined;
  }

  /** Completes once this node has left the cluster by decommission. */
  public CompletableFuture<Void> left() {
    return driver.left();
  }

  private void tick() {
    if (execution.closed()) {
      return;
    }
    try {
      ClusterState state = known;
      if (state.epoch() > 0) {
        gossipWithAll(state);
        maybeMove(state);
        driver.maybeDrive(known);
        sweep.maybeSweep(state);
      }
    } catch (RuntimeException e) {
      log.warn("membership tick failed", e);
    }
  }

  private void gossipWithAll(ClusterState state) {
    for (Member member : state.members()) {
      if (!member.id().equals(membership.self())) {
        gossipTo(member.id(), state);
      }
    }
  }

  /**
   * Sends this node's state to {@code peer} and adopts its answer if newer. A peer that stopped
   * being a member since {@code state} was read (a decommission ending while a tick walks the
   * members) is refused by the transport at once: as unanswered as a peer that is down.
   */
  CompletableFuture<Void> gossipTo(NodeId peer, ClusterState state) {
    CompletableFuture<ClusterState> answer;
    try {
      answer =
          transport.call(
              peer,
              MembershipProtocol.GOSSIP,
              new MembershipProtocol.Gossip(membership.self(), state));
    } catch (PeerUnavailableException gone) {
      return CompletableFuture.completedFuture(null);
    }
    return answer
        .thenAcceptAsync(
            theirs -> {
              membership.seen(peer, theirs.epoch());
              membership.adopt(theirs);
            },
            execution.io())
        .exceptionally(error -> null);
  }

  // ---- serving the peers ----------------------------------------------------------------------

  /** A peer's gossip: adopts its state if newer, answers this node's. */
  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState theirs) {
    return CompletableFuture.supplyAsync(
        () -> {
          membership.seen(peer, theirs.epoch());
          if (theirs.epoch() > 0) {
            membership.adopt(theirs);
          }
          return membership.state();
        },
        execution.io());
  }

  /** A new node asks to join: admitted as joining unless another change is in progress. */
  public CompletableFuture<ClusterState> admit(Member member) {
    return requests.admit(member);
  }

  // ---- joining --------------------------------------------------------------------------------

  /**
   * Asks the member at {@code host}:{@code port} to admit this node, again and again with a growing
   * pause while it refuses (another change in progress, not reachable yet) ({@link JoinRequest});
   * completes once this node is a normal member, its records streamed.
   */
  public CompletableFuture<Void> join(String host, int port, Member self) {
    // Ends once this node holds a state, or fails as the node closes: joined says what matters.
    CompletableFuture<Void> unused =
        new JoinRequest(membership, transport, execution, host, port, self).start();
    return joined;
  }

  // ---- operator requests ----------------------------------------------------------------------

  /**
   * Starts this node's decommission; it streams its records away and then leaves. Completes, on the
   * io thread, with the change once it is stored; fails with {@link
   * io.kvorum.node.core.ClusterChangeException} if this node is the last member or another change
   * is in progress.
   */
  public CompletableFuture<ClusterState.Change> startDecommission() {
    return requests.decommission();
  }

  /**
   * Starts the removal of {@code node}, which must be down; or, if {@code node} is the one joining,
   * aborts its join (a node that died for good while it joined would otherwise hold the cluster in
   * its change forever). Completes, on the io thread, with the removal started or the join aborted
   * (a change of kind JOIN) once the new state is stored; fails with {@link
   * io.kvorum.node.core.ClusterChangeException} (an unknown node, a node that is up, another change
   * in progress) or {@link InvalidRequestException} (this node).
   */
  public CompletableFuture<ClusterState.Change> startRemoval(NodeId node) {
    return requests.remove(node);
  }

  /**
   * This node's records that it hands off in the change of {@code epoch}, for the peer that drives
   * it ({@link MembershipProtocol#HANDOFF}).
   */
  public ScanCursor handoff(long epoch, NodeId to, Key start) {
    Owners owners = membership.owners();
    // Once reads moved, nothing streams: a late request would rank by the new owners.
    if (owners
            .state()
            .change()
            .filter(change -> !change.readsMoved())
            .map(ClusterState.Change::epoch)
            .orElse(-1L)
        != epoch) {
      return ScanCursor.failed(
          new InvalidRequestException(
              null, "no membership change of epoch " + epoch + " is streaming here"));
    }
    return streamer.handoff(owners, to, start, true);
  }

  /** Streaming figures per member, as this node sees them. */
  public Map<NodeId, StreamFigures> streaming() {
    Map<NodeId, StreamFigures> figures = new LinkedHashMap<>();
    streamer.progress().forEach((node, progress) -> figures.put(node, progress.figures()));
    return figures;
  }

  /**
   * Stops driving changes, streaming and sweeping: what is in progress stops at its next step, its
   * pending pauses and deadlines fail at once. The threads are stopped by their owner after this.
   */
  @Override
  public void close() {
    execution.close();
  }
}
