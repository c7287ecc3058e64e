package io.kvorum.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.ScriptedPeerTransport.Outcome;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CatchUpTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final NodeId N1 = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final Topology TOPOLOGY =
      new Topology(
          N1,
          List.of(
              new Member(N1, "n1.test", 9090),
              new Member(N2, "n2.test", 9090),
              new Member(N3, "n3.test", 9090)));

  private final ScriptedPeerTransport transport = new ScriptedPeerTransport();
  private final List<NodeId> greeted = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  @Test
  void isOverOnlyOnceEveryPeerAnsweredItsHello() {
    transport.answer(N3, Outcome.HANG);

    CompletableFuture<Void> caughtUp = CatchUp.run(TOPOLOGY, transport, WAIT, greeted::add, timer);

    assertThat(caughtUp).as("n3 is still delivering the hints it holds").isNotDone();
    assertThat(transport.calls("hello")).extracting(c -> c.peer()).containsExactly(N2, N3);
    transport.releaseAll();
    assertThat(caughtUp).succeedsWithin(WAIT);
    assertThat(greeted).as("peers that answered get this node's hints").containsExactly(N2, N3);
  }

  @Test
  void aPeerWhoseHelloFailsIsSkippedAndNotGreeted() {
    transport.answer(N2, Outcome.FAIL);

    assertThat(CatchUp.run(TOPOLOGY, transport, WAIT, greeted::add, timer)).succeedsWithin(WAIT);

    assertThat(greeted).containsExactly(N3);
  }

  @Test
  void aPeerThatNeverAnswersHoldsReadinessBackOnlyUntilTheLimit() {
    transport.answer(N2, Outcome.HANG);

    assertThat(CatchUp.run(TOPOLOGY, transport, Duration.ofMillis(200), greeted::add, timer))
        .succeedsWithin(WAIT);

    assertThat(greeted).containsExactly(N3);
  }
}
