package io.kvorum.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.InMemoryNetwork;
import io.kvorum.node.testing.LinkChaos;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.PeerTransport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
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
 * <p>The nodes here are what catch-up involves, built by the server's bootstraps ({@link
 * NodeParts}: hinted handoff, the replica service) on the in-memory transport and storage, without
 * HTTP or RocksDB, so that a restart costs microseconds and hundreds of rounds run in seconds.
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
  private final Random random = new Random(11);
  private final List<Incarnation> running = new ArrayList<>();

  @AfterEach
  void stop() {
    running.forEach(Incarnation::stop);
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
        stop(back);
      }
      if (missing > 0) {
        failures.add("round " + round + ": " + missing + " of " + HINTS + " missing at ready");
      }
      stop(restartedCoordinator);
    }
    assertThat(failures).isEmpty();
  }

  private void stop(Incarnation incarnation) {
    incarnation.stop();
    running.remove(incarnation);
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
    final InMemoryAcceptorStore acceptors = new InMemoryAcceptorStore();
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

  /**
   * One run of a node: its parts as the server's bootstraps build them on the node's "disk", served
   * to the network, taking hints when its peer comes back, and catching up. Anti-entropy is never
   * started: this test is about hints alone.
   */
  private Incarnation start(Disk disk) {
    HybridLogicalClock clock = HybridLogicalClock.start(new MemoryCeilingStore(disk.ceiling));
    PeerTransport transport = network.connect(disk.config, clock);
    NodeParts parts =
        NodeParts.build(
            disk.config,
            new LocalStorage(disk.records, disk.hints, disk.acceptors),
            clock,
            transport);
    HintedHandoff handoff = parts.replication().handoff();
    AutoCloseable served = network.serve(disk.config, clock, parts.served());
    transport.onPeerReachable(handoff::welcome);
    Incarnation incarnation =
        new Incarnation(
            transport,
            served,
            parts,
            CatchUp.run(
                disk.config.topology(),
                transport,
                disk.config.replication().catchUpTimeout(),
                handoff::welcome,
                parts.resources().timers()));
    running.add(incarnation);
    return incarnation;
  }

  private record Incarnation(
      PeerTransport transport,
      AutoCloseable served,
      NodeParts parts,
      CompletableFuture<Void> caughtUp) {
    void stop() {
      try {
        served.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      parts.close();
      transport.close();
    }
  }
}
