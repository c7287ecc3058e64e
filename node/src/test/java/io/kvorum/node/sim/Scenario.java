package io.kvorum.node.sim;

import io.kvorum.node.sim.SimNemesis.Fault;
import io.kvorum.node.storage.WalSync;
import io.kvorum.node.testing.TestConfig;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * What a family of seeded runs may do: each seed draws from it the cluster's size and settings, the
 * clients and their mix, the faults and how often they strike ({@link Draw}). {@link #EVERYTHING}
 * is the simulator's default; the others narrow it to where one kind of bug shows soonest.
 */
enum Scenario {
  /** Every fault, every kind of request. */
  EVERYTHING(SimWorkload.Mix.DEFAULT, SimNemesis.ALL),
  /** Conditional writes racing on few keys, amid message loss, pauses and crashes. */
  CONDITIONAL(
      SimWorkload.Mix.CONDITIONAL,
      EnumSet.of(Fault.KILL, Fault.PAUSE, Fault.PARTITION, Fault.LOSSY_NETWORK, Fault.FLAPPING)),
  /**
   * Conditional writes on two to four keys of three nodes, amid cuts and lost messages that leave a
   * proposal accepted by its coordinator's acceptor alone, with hint windows so short that the
   * request's finisher gives up, then a quiet end long past the purge grace: the acceptors forget
   * what the purge rule lets them before the last rounds read the keys ({@link
   * io.kvorum.node.core.PlantedBug#UNSAFE_PAXOS_PURGE}).
   */
  PAXOS_PURGE(
      SimWorkload.Mix.CONDITIONAL,
      EnumSet.of(Fault.PARTITION, Fault.ONE_WAY, Fault.LOSSY_NETWORK, Fault.KILL)),
  /**
   * Nodes cut off and frozen, never crashed, disks never full: every write a replica missed is
   * hinted by a coordinator that lives on, so hints alone (anti-entropy off) mend every replica.
   */
  HANDOFF(SimWorkload.Mix.DEFAULT, EnumSet.of(Fault.PARTITION, Fault.ONE_WAY, Fault.PAUSE)),
  /**
   * Joins and decommissions, one at a time as the cluster allows, amid crashes, partitions and
   * pauses: every change must end, and the keys end on their new owners alone.
   */
  MEMBERSHIP(
      SimWorkload.Mix.DEFAULT,
      EnumSet.of(Fault.JOIN, Fault.DECOMMISSION, Fault.KILL, Fault.PARTITION, Fault.PAUSE)),
  /**
   * Deletes, short hint windows and a short tombstone grace, with nodes away for longer than both:
   * purges race anti-entropy.
   */
  PURGE(new SimWorkload.Mix(30, 30, 30, 0, 0, 0, 10, 0), EnumSet.of(Fault.KILL, Fault.PARTITION)),
  /**
   * Nodes in three zones (n1, n4 in a; n2, n5 in b; n3, n6 in c), whole zones lost and back, one at
   * a time: besides every other check, a read or write that asks fewer confirmations than its
   * {@code from} never fails for want of replicas ({@link io.kvorum.node.sim.check.Availability}),
   * as each key has one replica a zone (SPEC §3).
   */
  ZONES(SimWorkload.Mix.DEFAULT, EnumSet.of(Fault.ZONE_LOSS)),
  /**
   * A snapshot on every member amid the clients and the faults ({@link SimSnapshots}: it holds
   * every write acknowledged before it), then the cluster destroyed and the snapshots loaded into
   * another of 2 to 6 nodes amid the same faults ({@link SimRestore}: it answers exactly the
   * snapshots' newest record of each key, expiries kept). No membership change: a member that
   * leaves between two members' snapshots takes its records to one already taken.
   */
  RESTORE(
      SimWorkload.Mix.DEFAULT,
      EnumSet.complementOf(EnumSet.of(Fault.JOIN, Fault.DECOMMISSION, Fault.ZONE_LOSS)));

  /** The zones of {@link #ZONES}, node n1 in the first, n2 in the second, and so on round. */
  private static final List<String> ZONE_NAMES = List.of("a", "b", "c");

  private final SimWorkload.Mix mix;
  private final Set<Fault> faults;

  Scenario(SimWorkload.Mix mix, Set<Fault> faults) {
    this.mix = mix;
    this.faults = faults;
  }

  /**
   * Whether CI runs this scenario's seeds ({@link SimulationTest}): every scenario does. A scenario
   * whose seeds show a bug not fixed yet would answer false meanwhile, hunted but not run in CI.
   */
  boolean inCi() {
    return true;
  }

  /**
   * How many of {@code seeds} CI runs: all, but for {@link #ZONES}, whose runs cost two to three
   * times the others' (each starts with a zone move per node and lasts a minute of virtual time),
   * and {@link #RESTORE}, whose runs are two clusters' each: 100 of them, so that the simulator
   * stays within its share of CI's 15 minutes.
   */
  int seedsInCi(int seeds) {
    return this == ZONES || this == RESTORE ? Math.min(seeds, 100) : seeds;
  }

  /** Whether the run ends with anti-entropy rounds (all but {@link #HANDOFF}, which has none). */
  boolean antiEntropy() {
    return this != HANDOFF;
  }

  /** What {@code seed} draws from this scenario. */
  Draw draw(long seed) {
    Random random = new Random(seed ^ 0x5DEECE66DL);
    int nodes = this == PAXOS_PURGE ? 3 : 3 + random.nextInt(3);
    WalSync sync =
        random.nextInt(10) < 3 ? WalSync.EVERY_WRITE : WalSync.every(Duration.ofMillis(100));
    boolean handoffOnly = this == HANDOFF;
    return new Draw(
        this,
        nodes,
        switch (this) {
          case CONDITIONAL -> 4 + random.nextInt(5);
          case PAXOS_PURGE -> 2 + random.nextInt(3);
          default -> 3 + random.nextInt(8);
        },
        switch (this) {
          case CONDITIONAL -> 2 + random.nextInt(3);
          case PAXOS_PURGE -> 2 + random.nextInt(2);
          default -> 2 + random.nextInt(5);
        },
        mix,
        Duration.ofSeconds(1),
        this == PURGE || this == EVERYTHING || this == RESTORE ? random.nextDouble() * 0.2 : 0,
        faults,
        Duration.ofMillis(300 + random.nextInt(2_000)),
        handoffOnly ? WalSync.EVERY_WRITE : sync,
        // Conditional histories stay small enough for the linearizability search; zone losses
        // come every second or two, so a few seconds see several.
        Duration.ofSeconds(
            switch (this) {
              case CONDITIONAL -> 3 + random.nextInt(6);
              case PAXOS_PURGE -> 2 + random.nextInt(3);
              case ZONES, RESTORE -> 5 + random.nextInt(10);
              default -> 10 + random.nextInt(20);
            }),
        switch (this) {
          case PURGE -> Duration.ofSeconds(2);
          case PAXOS_PURGE -> Duration.ofSeconds(1);
          default -> Duration.ofHours(3);
        },
        handoffOnly ? Duration.ofHours(1) : Duration.ofSeconds(3 + random.nextInt(5)));
  }

  /**
   * One seed's draw.
   *
   * @param nodes the cluster's size (replication factor 3)
   * @param keys how many keys the clients share
   * @param clients how many clients run at once
   * @param ttlChance the chance of a value written with a time to live
   * @param faultGap the mean time between two faults
   * @param sync {@code --sync-writes}
   * @param duration how long the clients and faults run
   * @param hintWindow {@code --hint-window}
   * @param repairInterval how often anti-entropy starts a round by itself
   */
  record Draw(
      Scenario scenario,
      int nodes,
      int keys,
      int clients,
      SimWorkload.Mix mix,
      Duration requestTimeout,
      double ttlChance,
      Set<Fault> faults,
      Duration faultGap,
      WalSync sync,
      Duration duration,
      Duration hintWindow,
      Duration repairInterval) {
    /** A node's configuration for this draw. */
    TestConfig configure(TestConfig config) {
      if (scenario == ZONES) {
        int number = Integer.parseInt(config.nodeId().value().substring(1));
        config.zone(ZONE_NAMES.get((number - 1) % ZONE_NAMES.size()));
      }
      return config
          .requestTimeout(requestTimeout)
          .catchUpTimeout(Duration.ofSeconds(3))
          .syncWrites(sync)
          .hintWindow(hintWindow)
          .repair(64L << 20, repairInterval)
          // Purges within the run: a tombstone dead for 3 s goes once two rounds passed it.
          .purging(Duration.ofSeconds(3), Duration.ofSeconds(1))
          // Above the request timeout plus twice the clock offset, as the node requires.
          .paxosPurgeGrace(Duration.ofSeconds(3))
          .maxClockOffset(Duration.ofMillis(500));
    }

    @Override
    public String toString() {
      return scenario
          + ": "
          + nodes
          + " nodes, "
          + keys
          + " keys, "
          + clients
          + " clients, --sync-writes "
          + sync
          + ", "
          + duration.toSeconds()
          + " s of faults "
          + faults
          + " every ~"
          + faultGap.toMillis()
          + " ms";
    }
  }
}
