package io.kvorum.node.sim;

import io.kvorum.node.coordinator.NodeView;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.sim.check.Availability;
import io.kvorum.node.sim.check.Checks;
import io.kvorum.node.sim.check.ClientOp;
import io.kvorum.node.sim.check.OpKind;
import io.kvorum.node.sim.check.Outcome;
import io.kvorum.node.sim.check.Recording;
import io.kvorum.node.sim.check.ReplicaState;
import io.kvorum.node.sim.check.Violation;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.topology.Zone;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;

/**
 * One seeded run of a whole cluster: start it, let the clients and the faults loose for a while,
 * heal everything, let hints, read repair and anti-entropy settle it, read every key at every node
 * (then once more through its Paxos acceptors), then check the run's {@link Recording} with every
 * checker ({@link Checks#standard}). The seed decides everything (the cluster's size, its settings,
 * the workload, the faults, every delay), so a seed replays the exact run: its {@link
 * Result#traceHash} is the same every time.
 */
final class Simulation {
  /** How long a run without anti-entropy waits after the heal: three hint replays. */
  private static final Duration HINTS_ALONE = Duration.ofSeconds(30);

  /** How long the change feed's consumer has to show every acknowledged write after the heal. */
  private static final Duration FEED_CATCH_UP = Duration.ofSeconds(60);

  private final long seed;
  private final Scenario scenario;
  private final IntPredicate strikes;
  private int faultsDrawn;

  private Simulation(long seed, Scenario scenario, IntPredicate strikes) {
    this.seed = seed;
    this.scenario = scenario;
    this.strikes = strikes;
  }

  /** Runs {@code seed} of {@code scenario}. */
  static Result run(long seed, Scenario scenario) {
    return run(seed, scenario, number -> true);
  }

  /**
   * Runs {@code seed} of {@code scenario} with only the faults whose numbers {@code strikes}
   * accepts ({@link SimNemesis#striking}): a shrunk schedule ({@link SimulationShrink}).
   */
  static Result run(long seed, Scenario scenario, IntPredicate strikes) {
    try (SimLogging quiet = SimLogging.quiet()) {
      return new Simulation(seed, scenario, strikes).run();
    }
  }

  private Result run() {
    Scenario.Draw draw = scenario.draw(seed);
    Recording.Recorder recorder = Recording.recorder();
    try (SimCluster cluster = SimCluster.create(seed, draw.nodes(), draw::configure)) {
      cluster.onApplied(
          (key, record, node) -> recorder.applied(key, record, node, cluster.scheduler().now()));
      cluster.onAccepted(
          (key, proposal, node) ->
              recorder.accepted(key, proposal, node, cluster.scheduler().now()));
      List<String> log = new ArrayList<>();
      try {
        return phases(cluster, draw, recorder, log);
      } catch (RuntimeException | AssertionError e) {
        return new Result(
            seed,
            draw,
            List.of(new Violation("simulation", "-", "the run failed: " + e)),
            log,
            cluster.scheduler().traceHash(),
            cluster.scheduler().executed(),
            cluster.scheduler().now(),
            e,
            recorder.build(),
            faultsDrawn);
      }
    }
  }

  private Result phases(
      SimCluster cluster, Scenario.Draw draw, Recording.Recorder recorder, List<String> log) {
    cluster.startAll();
    if (!cluster.runUntil(cluster::allReady, Duration.ofSeconds(60))) {
      throw new AssertionError("the cluster did not become ready within 60 s");
    }
    boolean zones = draw.scenario() == Scenario.ZONES;
    if (zones) {
      // Each node moves itself into its zone at its first start: every node sees every move
      // ended before the clients start, and the old owners have dropped what they no longer own.
      if (!cluster.runUntil(() -> zonesSeen(cluster), Duration.ofSeconds(120))) {
        throw new AssertionError("the nodes did not all see every zone within 120 s");
      }
      awaitChanges(cluster);
    }
    SimWorkload workload =
        new SimWorkload(
            cluster,
            recorder,
            draw.keys(),
            draw.mix(),
            draw.requestTimeout(),
            draw.ttlChance(),
            draw.scenario().antiEntropy());
    if (zones) {
      workload.readyNodesOnly();
    }
    SimNemesis nemesis =
        new SimNemesis(
                cluster,
                draw.faults(),
                draw.faultGap().toNanos(),
                draw.sync().periodic() ? draw.sync().interval().toNanos() * 10 : 0)
            .striking(strikes);
    // A consumer follows every change from before the first write to after the heal.
    SimFeed feed = new SimFeed(cluster);
    feed.start();
    workload.start(draw.clients());
    nemesis.start();
    SimSnapshots snapshots = draw.scenario() == Scenario.RESTORE ? new SimSnapshots() : null;
    if (snapshots == null) {
      cluster.run(draw.duration());
    } else {
      // A snapshot on every member, taken amid the clients and the faults.
      long end = cluster.scheduler().now() + draw.duration().toNanos();
      cluster.run(
          draw.duration().multipliedBy(3 + cluster.scheduler().random().nextInt(5)).dividedBy(10));
      snapshots.take(cluster, workload.keys());
      cluster.run(Duration.ofNanos(Math.max(0, end - cluster.scheduler().now())));
    }
    workload.stop();
    nemesis.stop();
    // What is in flight ends: answered, or given up by its client.
    cluster.runUntil(() -> workload.inFlight() == 0, draw.requestTimeout().multipliedBy(20));
    nemesis.healAll();
    faultsDrawn = nemesis.drawn();
    log.addAll(nemesis.log());
    if (nemesis.membershipChanged()) {
      // Acceptor states do not move with the keys yet (issue 42): no fixed three to choose.
      recorder.noAcceptances();
    }
    awaitChanges(cluster);
    feed.owing(SimFeed.promised(nemesis.clockSteps()));
    List<Violation> feedViolations =
        follow(
            cluster,
            feed,
            excuseUnsyncedAcks(recorder.build(), nemesis.powerCuts(), draw.sync()),
            log);
    if (draw.scenario().antiEntropy()) {
      settle(cluster);
    } else {
      // Hints alone: every replica a write missed is mended by its coordinator's hint.
      awaitReady(cluster);
      cluster.run(HINTS_ALONE);
    }
    long settledAt = cluster.scheduler().now();
    // What the replicas hold before the final reads, whose read repair would mend it.
    endState(cluster, workload, recorder);
    finalReads(cluster, workload);
    cluster.runUntil(() -> workload.inFlight() == 0, Duration.ofSeconds(30));
    finalLinearizableReads(cluster, workload);
    recorder.settledAt(settledAt).endMillis(cluster.node(1).wallMillis());
    Recording answered = recorder.build();
    Recording recording = excuseUnsyncedAcks(answered, nemesis.powerCuts(), draw.sync());
    List<Violation> violations =
        new ArrayList<>(
            Checks.standard(
                    Checks.Settings.of(
                        draw.requestTimeout().toNanos(), SimWorkload.SLACK.toNanos()))
                .run(recording));
    violations.addAll(feedViolations);
    if (zones) {
      // On the answers as the clients saw them: a power cut's excuse makes some answers unknown.
      violations.addAll(new Availability(workload.coordinatorTroubled()).check(answered));
    }
    if (snapshots != null) {
      violations.addAll(snapshots.check(recording));
      log.add(snapshots.summary());
      // The cluster destroyed, its snapshots restored into another of 2 to 6 nodes.
      cluster.nodes().forEach(n -> n.crash(SimNode.Crash.KILL));
      try (SimCluster fresh = cluster.another(2 + cluster.scheduler().random().nextInt(5))) {
        violations.addAll(
            SimRestore.run(fresh, snapshots, workload.keys(), draw, draw.faults(), log));
      }
    }
    return new Result(
        seed,
        draw,
        violations,
        log,
        cluster.scheduler().traceHash(),
        cluster.scheduler().executed(),
        cluster.scheduler().now(),
        null,
        recording,
        faultsDrawn);
  }

  /**
   * Lets the change feed's consumer catch up once the cluster is healed, for at most {@link
   * #FEED_CATCH_UP} (hints replay every 10 s), then stops it and checks what it showed against the
   * writes acknowledged so far: every one shown (or a newer version of its key), no key's versions
   * going backwards within a feed. Writes a power cut may have taken from a replica under {@code
   * --sync-writes INTERVAL} count as for the other checkers.
   */
  private static List<Violation> follow(
      SimCluster cluster, SimFeed feed, Recording acknowledged, List<String> log) {
    cluster.runUntil(() -> feed.showedAll(acknowledged), FEED_CATCH_UP);
    feed.stop();
    log.add(feed.summary());
    return feed.check(acknowledged);
  }

  /**
   * Everything up and ready, then two full anti-entropy rounds on every node after the heal, and no
   * hint left: from then on every replica holds what it will hold.
   */
  static void settle(SimCluster cluster) {
    awaitReady(cluster);
    for (int round = 0; round < 2; round++) {
      // A millisecond on, so that no round that finished before the ask seems to have come after.
      cluster.run(Duration.ofMillis(1));
      Map<NodeId, Long> asked = new TreeMap<>();
      for (SimNode node : cluster.nodes()) {
        asked.put(node.id(), node.wallMillis());
        node.server().orElseThrow().admin().repairNow();
      }
      boolean done = cluster.runUntil(() -> repaired(cluster, asked), Duration.ofSeconds(300));
      if (!done) {
        throw new AssertionError(
            "anti-entropy did not finish a round within 300 s of the heal: "
                + unrepaired(cluster, asked));
      }
    }
  }

  /**
   * Every membership change started ends once the cluster is healed (SPEC §8), and then every node
   * is ready. In that order: a joining node is ready once its join ended, and a join may wait out a
   * hand-off batch lost in the faults for its whole deadline ({@link
   * io.kvorum.node.transport.Deadline#LONG_BATCH}, a minute) before it resumes (EVERYTHING seed
   * 157, and seeds 1000327, 1000424 and 1000611 of a hunt).
   */
  static void awaitChanges(SimCluster cluster) {
    if (!cluster.runUntil(() -> changes(cluster).isEmpty(), Duration.ofSeconds(300))) {
      throw new AssertionError(
          "a membership change did not end within 300 s of the heal: " + changes(cluster));
    }
    awaitReady(cluster);
    // The old owners drop what they no longer own once every member has seen the new epoch and
    // twice the request timeout has passed (old-owners-drop-what-they-no-longer-own-after-
    // settling.md): gossip, then the settle wait, then the sweep.
    cluster.run(Duration.ofSeconds(10));
  }

  /** Whether every node sees every member in its zone, and no change under way. */
  private static boolean zonesSeen(SimCluster cluster) {
    Map<NodeId, Zone> zones = new TreeMap<>();
    cluster.nodes().forEach(n -> zones.put(n.id(), n.config().membership().zone()));
    return cluster.nodes().stream()
        .allMatch(
            n ->
                n.server()
                    .map(s -> s.admin().clusterState())
                    .filter(state -> state.change().isEmpty())
                    .filter(
                        state ->
                            state.members().stream()
                                .allMatch(m -> m.zone().equals(zones.get(m.id()))))
                    .isPresent());
  }

  private static List<String> changes(SimCluster cluster) {
    List<String> changes = new ArrayList<>();
    for (SimNode node : cluster.nodes()) {
      node.server()
          .flatMap(s -> s.admin().clusterState().change())
          .ifPresent(change -> changes.add(node.id() + " sees " + change));
    }
    return changes;
  }

  private static void awaitReady(SimCluster cluster) {
    if (!cluster.runUntil(cluster::allReady, Duration.ofSeconds(60))) {
      throw new AssertionError(
          "the healed cluster did not become ready within 60 s: "
              + cluster.nodes().stream()
                  .filter(n -> n.server().map(s -> !s.ready()).orElse(false))
                  .map(n -> n.id().value())
                  .toList()
              + " not ready");
    }
  }

  private static boolean repaired(SimCluster cluster, Map<NodeId, Long> asked) {
    return unrepaired(cluster, asked).isEmpty();
  }

  /** The peers each node holds hints for or has not finished a round with since it was asked. */
  private static List<String> unrepaired(SimCluster cluster, Map<NodeId, Long> asked) {
    List<String> left = new ArrayList<>();
    for (SimNode node : cluster.nodes()) {
      for (NodeView view : node.server().orElseThrow().admin().clusterView()) {
        if (!view.self()
            && (view.hintsPending() > 0
                || view.repair() == null
                || view.repair().lastRoundFinishedMillis() < asked.get(node.id()))) {
          left.add(
              node.id()
                  + " with "
                  + view.id()
                  + ": "
                  + view.hintsPending()
                  + " hints, "
                  + view.repair());
        }
      }
    }
    return left;
  }

  /** A read of every key at every node, each at all its replicas: each must see the end state. */
  private static void finalReads(SimCluster cluster, SimWorkload workload) {
    int from = Math.min(3, cluster.size());
    for (SimNode node : cluster.nodes()) {
      for (Key key : workload.keys()) {
        CompletableFuture<ClientOp> unused =
            workload.send(0, node, OpKind.GET, key, new Quorum(from, from));
      }
    }
  }

  /**
   * Then a linearizable read of every key through each node in turn: Paxos rounds that begin long
   * after the acceptors forgot what they could (the purge grace has passed), each finishing what a
   * quorum of acceptors still holds ({@link io.kvorum.node.sim.check.ChosenStaysChosen}).
   */
  private static void finalLinearizableReads(SimCluster cluster, SimWorkload workload) {
    int from = Math.min(3, cluster.size());
    for (SimNode node : cluster.nodes()) {
      for (Key key : workload.keys()) {
        CompletableFuture<ClientOp> unused =
            workload.send(0, node, OpKind.GET_LINEARIZABLE, key, new Quorum(from / 2 + 1, from));
      }
      cluster.runUntil(() -> workload.inFlight() == 0, Duration.ofSeconds(30));
    }
  }

  /** What every node holds of each key, and the key's ranking at the end. */
  private static void endState(
      SimCluster cluster, SimWorkload workload, Recording.Recorder recorder) {
    KvorumServer any = cluster.node(1).server().orElseThrow();
    Owners owners = new Owners(any.admin().clusterState());
    for (Key key : workload.keys()) {
      Map<NodeId, Record> held = cluster.held(key);
      recorder.end(ReplicaState.of(key, owners.readers(key, owners.size()), held));
    }
  }

  /**
   * With {@code --sync-writes INTERVAL}, a power cut may take what its node acknowledged in the
   * last interval (docs/durability.md): a write acknowledged within an interval of a power cut may
   * have lost the copy of the node cut, so it counts as acknowledged by one replica fewer, and one
   * acknowledged by a single replica as of unknown outcome. Power cuts are spaced further apart
   * than the interval, so that no write loses two copies so.
   */
  private static Recording excuseUnsyncedAcks(
      Recording recording, List<Long> powerCuts, WalSync sync) {
    if (!sync.periodic() || powerCuts.isEmpty()) {
      return recording;
    }
    long window = sync.interval().toNanos() * 2;
    List<ClientOp> ops = new ArrayList<>();
    for (ClientOp op : recording.ops()) {
      boolean exposed =
          op.isAcknowledgedWrite()
              && powerCuts.stream().anyMatch(cut -> Math.abs(cut - op.ret()) < window);
      ops.add(exposed ? oneCopyFewer(op) : op);
    }
    return new Recording(
        ops,
        recording.applied(),
        recording.accepted(),
        recording.end(),
        recording.settledAt(),
        recording.endMillis());
  }

  private static ClientOp oneCopyFewer(ClientOp op) {
    boolean single = op.quorum().ack() == 1;
    return new ClientOp(
        op.client(),
        op.node(),
        op.kind(),
        op.key(),
        op.end(),
        single ? op.quorum() : new Quorum(op.quorum().ack() - 1, op.quorum().from()),
        op.call(),
        op.ret(),
        single ? Outcome.UNKNOWN : op.outcome(),
        op.expected(),
        op.value(),
        single ? null : op.version(),
        List.of());
  }

  /**
   * What one run gave.
   *
   * @param violations what the checkers found; empty for a good run
   * @param log the faults, in order
   * @param traceHash a hash of the run's every event: equal for two runs of one seed
   * @param failure what the run threw, if it did not end (a node that would not start, a bug)
   * @param recording what the checkers were given
   * @param faults how many faults the nemesis drew, struck or left out
   */
  record Result(
      long seed,
      Scenario.Draw draw,
      List<Violation> violations,
      List<String> log,
      long traceHash,
      long events,
      long virtualNanos,
      Throwable failure,
      Recording recording,
      int faults) {
    boolean passed() {
      return violations.isEmpty();
    }

    /**
     * The run in a line: its events, their hash, and the hash of what every node held of every key
     * at the end; equal for two runs of one seed.
     */
    String fingerprint() {
      return events
          + " events, trace "
          + Long.toHexString(traceHash)
          + ", end state "
          + Integer.toHexString(recording.end().toString().hashCode());
    }
  }
}
