package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.FaultyStorageEngine;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.Futures;
import io.kvorum.node.testing.MemoryCeilingStore;
import io.kvorum.node.testing.NodeParts;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.ScriptedPeerTransport.Outcome;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a coordinator reports when a quorum cannot be reached: the replicas' shared typed failure (a
 * full disk everywhere is 507, overload everywhere 503), or which replicas failed and why and which
 * had not answered (504).
 */
class CoordinatorFailureReportTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.UTF_8));
  private static final byte[] VALUE = {1};

  private final List<NodeParts> nodes = new ArrayList<>();
  private final FaultyStorageEngine local = new FaultyStorageEngine(new InMemoryStorageEngine());
  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final Coordinator coordinator = coordinator(Duration.ofMillis(300));

  private Coordinator coordinator(Duration requestTimeout) {
    Topology topology =
        new Topology(
            N1,
            List.of(
                new Member(N1, "n1.test", 9090),
                new Member(N2, "n2.test", 9090),
                new Member(N3, "n3.test", 9090)));
    NodeParts node =
        NodeParts.build(
            TestConfig.in(Path.of("unused"))
                .topology(topology)
                .requestTimeout(requestTimeout)
                .replicationFactor(3)
                .build(),
            new LocalStorage(local, new InMemoryHintStore(), new InMemoryAcceptorStore()),
            HybridLogicalClock.start(new MemoryCeilingStore()),
            peers);
    nodes.add(node);
    return node.coordinator();
  }

  @AfterEach
  void stop() {
    nodes.forEach(NodeParts::close);
  }

  @Test
  void aDiskFullOnEveryReplicaThatFailedIsReportedAsADiskFull() {
    local.failWith(noSpace());
    peers.script(
        call -> {
          throw noSpace();
        });

    Throwable failure = failure(coordinator.put(KEY, VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure).isInstanceOf(StorageException.class);
    assertThat(((StorageException) failure).kind()).isEqualTo(StorageException.Kind.NO_SPACE);
  }

  @Test
  void peersOverloadedWhileThisReplicaAnsweredAreReportedAsOverload() {
    peers.script(
        call -> {
          throw new OverloadedException("storage of " + call.peer());
        });

    Throwable failure = failure(coordinator.put(KEY, VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure).isInstanceOf(OverloadedException.class);
  }

  @Test
  void replicasFailingDifferentlyAreNamedWithTheirReasons() {
    peers.script(
        call -> {
          if (call.peer().equals(N2)) {
            throw new PeerUnavailableException(N2, "its circuit breaker is open", null);
          }
          throw noSpace();
        });
    local.delay(Duration.ofSeconds(1));

    Throwable failure = failure(coordinator.put(KEY, VALUE, Duration.ZERO, new Quorum(2, 3)));

    assertThat(failure).isInstanceOf(NotEnoughReplicasException.class);
    NotEnoughReplicasException report = (NotEnoughReplicasException) failure;
    assertThat(report.required()).isEqualTo(2);
    assertThat(report.answered()).isZero();
    assertThat(report.failed()).containsOnlyKeys(N2, N3);
    assertThat(report.failed().get(N2)).isEqualTo("not available: its circuit breaker is open");
    assertThat(report.failed().get(N3)).startsWith("disk full: ");
    assertThat(report.pending()).as("this node's slow replica").containsExactly(N1);
  }

  @Test
  void atTheRequestTimeoutTheReportSaysWhoAnsweredAndWhoDidNot() {
    peers.answer(N2, Outcome.HANG).answer(N3, Outcome.FAIL);

    Throwable failure = failure(coordinator.get(KEY, new Quorum(2, 3)));

    NotEnoughReplicasException report = (NotEnoughReplicasException) failure;
    assertThat(report.answered()).isEqualTo(1);
    assertThat(report.failed()).containsOnlyKeys(N3);
    assertThat(report.pending()).containsExactly(N2);
    assertThat(report).hasMessageContaining("no answer yet from n2");
    peers.releaseAll();
  }

  private static StorageException noSpace() {
    return new StorageException(StorageException.Kind.NO_SPACE, "put", KEY, null);
  }

  private static Throwable failure(CompletableFuture<?> request) {
    return Futures.failure(request, WAIT);
  }
}
