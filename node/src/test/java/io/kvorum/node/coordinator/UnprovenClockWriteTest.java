package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kvorum.node.clock.HybridLogicalClock;
import io.kvorum.node.consensus.InMemoryAcceptorStore;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.server.LocalStorage;
import io.kvorum.node.storage.memory.InMemoryHintStore;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
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
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that has not measured every peer's clock yet cannot know whether its own is the one
 * far ahead: its own copy of a write waits until a peer replica has taken the version, so a version
 * its peers refuse as from the future is kept nowhere
 * (docs/decisions/writes-refused-beyond-the-max-clock-offset.md). CI once saw such a version, kept
 * by the coordinator alone, beat a later write.
 */
class UnprovenClockWriteTest {
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.UTF_8));
  private static final byte[] VALUE = {1};
  private static final Quorum ONE_OF_THREE = new Quorum(1, 3);

  private final InMemoryStorageEngine local = new InMemoryStorageEngine();
  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final NodeParts node =
      NodeParts.build(
          TestConfig.in(Path.of("unused"))
              .topology(
                  new Topology(
                      N1,
                      List.of(
                          new Member(N1, "n1.test", 9090),
                          new Member(N2, "n2.test", 9090),
                          new Member(N3, "n3.test", 9090))))
              .requestTimeout(Duration.ofMillis(400))
              .replicationFactor(3)
              .build(),
          new LocalStorage(local, new InMemoryHintStore(), new InMemoryAcceptorStore()),
          HybridLogicalClock.start(new MemoryCeilingStore()),
          peers);

  @AfterEach
  void stop() {
    peers.releaseAll();
    node.close();
  }

  @Test
  void aVersionThePeersRefuseAsFromTheFutureIsNotKeptHereEither() {
    refuseWritesAsTooFarAhead();

    Throwable failure = catchThrowable(() -> put(ONE_OF_THREE));

    assertThat(failure).isInstanceOf(CompletionException.class);
    assertThat(failure.getCause()).isInstanceOf(ClockOffsetException.class);
    assertThat(local.get(KEY).join()).as("this node's own copy").isEmpty();
  }

  @Test
  void theCopyHereIsWrittenOnceAPeerTookTheVersion() {
    put(ONE_OF_THREE);

    assertThat(local.get(KEY).join()).isPresent();
    assertThat(peers.calls("write")).hasSize(2);
  }

  @Test
  void withEveryPeerDownTheCopyHereIsWrittenAndTheWriteSucceeds() {
    peers.answer(N2, Outcome.FAIL).answer(N3, Outcome.FAIL);

    put(ONE_OF_THREE);

    assertThat(local.get(KEY).join()).isPresent();
  }

  @Test
  void peersThatAnswerNothingHoldTheCopyHereBackForHalfTheRequestTimeoutNotPastIt() {
    peers.answer(N2, Outcome.HANG).answer(N3, Outcome.HANG);

    put(ONE_OF_THREE);

    assertThat(local.get(KEY).join()).isPresent();
    assertThat(peers.hanging()).isEqualTo(2);
  }

  @Test
  void onceEveryPeerIsMeasuredTheCopyHereGoesAtOnce() {
    node.cluster().offsets().measureAll().join();
    assertThat(node.cluster().offsets().unmeasured()).isFalse();
    peers.answer(N2, Outcome.HANG).answer(N3, Outcome.HANG);

    node.coordinator()
        .put(KEY, VALUE, Duration.ZERO, ONE_OF_THREE)
        .orTimeout(100, TimeUnit.MILLISECONDS)
        .join();

    assertThat(local.get(KEY).join()).isPresent();
  }

  private void refuseWritesAsTooFarAhead() {
    peers
        .script(call -> call.operation().equals("write") ? Outcome.FAIL : null)
        .failWith(
            call ->
                new ClockOffsetException(
                    call.peer() + " refuses a version 3600000 ms ahead of its clock",
                    3_600_000,
                    500));
  }

  private void put(Quorum quorum) {
    node.coordinator().put(KEY, VALUE, Duration.ZERO, quorum).orTimeout(5, TimeUnit.SECONDS).join();
  }
}
