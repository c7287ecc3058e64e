package io.kvorum.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.antientropy.HashTrees;
import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.RendezvousPlacement;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.InMemoryNetwork;
import io.kvorum.node.testing.LinkChaos;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.node.transport.ReplicaService;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, part 4, repeated until a race would show: a coordinator holding hints for a node is
 * restarted (fresh in-memory state, hints from its store), then the node returns and catches up,
 * while the links between them slow down at random, now and then past the request timeout. At the
 * moment the returning node reports ready it must hold every hinted write, whichever of the hello,
 * the connection coming up or a timeout ran the deliveries.
 *
 * <p>The nodes here are what catch-up involves, wired as {@code KvorumServer} wires them (hinted
 * handoff, the replica service, the in-memory transport, catch-up), without HTTP or RocksDB, so
 * that a restart costs microseconds and hundreds of rounds run in seconds.
 */
class CatchUpRaceTest {
  private static final int ROUNDS = 200;
  private static final int HINTS = 50;
  private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(20);
  private static final Duration SPIKE = REQUEST_TIMEOUT.plusMillis(10);
  private static final NodeId RETURNING = NodeId.of("n1");
  private static final NodeId COORDINATOR = NodeId.of("n2");
  private static final List<Member> MEMBERS =
      List.of(new Member(RETURNING, "n1.test", 9090), new Member(COORDINATOR, "n2.test", 9090));

  private final InMemoryNetwork network = new InMemoryNetwork();
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final Random random = new Random(11);
  private final List<Incarnation> running = new ArrayList<>();

  @AfterEach
  void stop() {
    running.forEach(Incarnation::stop);
    timers.shutdownNow();
  }

  @Test
  @Timeout(120)
  void aReturningNodeIsReadyOnlyOnceItHoldsEveryHintOfARestartedCoordinator() {
    Disk returning = new Disk(RETURNING);
    Disk coordinator = new Disk(COORDINATOR);
    List<String> failures = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      List<Key> hinted = hint(coordinator, RETURNING, round);
      Incarnation restartedCoordinator = start(coordinator);
      long missing;
      try (LinkChaos chaos =
          LinkChaos.start(network, RETURNING, COORDINATOR, SPIKE, random.nextLong())) {
        Incarnation back = start(returning);
        back.caughtUp.join();
        missing =
            hinted.stream().filter(key -> returning.records.get(key).join().isEmpty()).count();
        back.stop();
      }
      if (missing > 0) {
        failures.add("round " + round + ": " + missing + " of " + HINTS + " missing at ready");
      }
      restartedCoordinator.stop();
    }
    assertThat(failures).isEmpty();
  }

  /** Hints as a coordinator keeps them for a replica that missed writes while it was down. */
  private static List<Key> hint(Disk coordinator, NodeId target, int round) {
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < HINTS; i++) {
      Key key = Key.of(("round" + round + "/" + i).getBytes(StandardCharsets.UTF_8));
      Record record = Record.value(Version.of(System.currentTimeMillis(), i), new byte[] {1}, 0, 2);
      coordinator.hints.add(target, key, record, System.currentTimeMillis()).join();
      keys.add(key);
    }
    return keys;
  }

  /** What survives a restart: a node's records and the hints it holds. */
  private static final class Disk {
    final NodeConfig config;
    final InMemoryStorageEngine records = new InMemoryStorageEngine();
    final InMemoryHintStore hints = new InMemoryHintStore();
    final AtomicLong ceiling = new AtomicLong();

    Disk(NodeId id) {
      this.config =
          TestConfig.in(Path.of("unused"))
              .topology(new Topology(id, MEMBERS))
              .requestTimeout(REQUEST_TIMEOUT)
              .catchUpTimeout(Duration.ofSeconds(5))
              .build();
    }
  }

  /** Anti-entropy that is never started: this test is about hints alone. */
  private AntiEntropy repair(NodeConfig config, PeerTransport transport) {
    List<NodeId> ids = config.topology().ids();
    HashTrees trees = new HashTrees(config.nodeId(), ids, new RendezvousPlacement(ids));
    return new AntiEntropy(
        trees,
        new InMemoryStorageEngine(),
        transport,
        new AntiEntropy.Settings(8 << 20, Duration.ofHours(1), Duration.ofHours(1)),
        timers,
        System::currentTimeMillis,
        new SimpleMeterRegistry());
  }

  /** One run of a node, wired as the server wires the pieces catch-up involves. */
  private Incarnation start(Disk disk) {
    HybridLogicalClock clock = HybridLogicalClock.start(new MemoryCeilingStore(disk.ceiling));
    PeerTransport transport = network.connect(disk.config, clock);
    NodeConfig.Replication replication = disk.config.replication();
    HintedHandoff handoff =
        new HintedHandoff(
            disk.hints,
            transport,
            clock::wallMillis,
            new HintedHandoff.Settings(
                replication.hintWindow(),
                replication.maxHintsPerPeer(),
                replication.catchUpTimeout()),
            disk.config.topology().peers().stream().map(Member::id).toList(),
            new SimpleMeterRegistry());
    AutoCloseable served =
        network.serve(
            disk.config,
            clock,
            new LocalReplicaService(
                disk.records,
                handoff,
                clock,
                disk.config.maxClockOffset(),
                repair(disk.config, transport),
                ReplicaService.Membership.NONE));
    transport.onPeerReachable(handoff::welcome);
    Incarnation incarnation =
        new Incarnation(
            transport,
            served,
            CatchUp.run(
                disk.config.topology(), transport, replication.catchUpTimeout(), handoff::welcome));
    running.add(incarnation);
    return incarnation;
  }

  private record Incarnation(
      PeerTransport transport, AutoCloseable served, CompletableFuture<Void> caughtUp) {
    void stop() {
      try {
        served.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      transport.close();
    }
  }
}
