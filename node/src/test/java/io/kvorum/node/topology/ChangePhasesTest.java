package io.kvorum.node.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.core.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A change's phases in the cluster state: started, reads moved, completed, each in an epoch of its
 * own; and how the phase travels so that a release before phases refuses a state it cannot act on.
 */
class ChangePhasesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "host" + i, 9090);
  }

  private static ClusterState joining() {
    return ClusterState.seed(List.of(member(1), member(2), member(3))).withJoining(member(4), 7);
  }

  @Test
  void aChangeStartsThenMovesItsReadsThenCompletesEachInANewEpoch() {
    ClusterState started = joining();
    assertThat(started.change().orElseThrow().phase()).isEqualTo(ClusterState.Phase.STARTED);

    ClusterState moved = started.readsMoved();
    assertThat(moved.epoch()).isEqualTo(started.epoch() + 1);
    assertThat(moved.nodes()).isEqualTo(started.nodes());
    ClusterState.Change change = moved.change().orElseThrow();
    assertThat(change.readsMoved()).isTrue();
    assertThat(change.epoch()).as("the epoch that started it").isEqualTo(started.epoch());
    assertThat(change.describe()).containsEntry("phase", "reads-moved");
    assertThat(change).hasToString("join of n4 (epoch 2, reads moved)");

    ClusterState done = moved.completed();
    assertThat(done.epoch()).isEqualTo(moved.epoch() + 1);
    assertThat(done.change()).isEmpty();
    assertThat(done.state(NodeId.of("n4"))).contains(MemberState.NORMAL);
  }

  @Test
  void noStepIsSkippedOrTakenTwice() {
    ClusterState started = joining();
    ClusterState moved = started.readsMoved();

    assertThatThrownBy(started::completed)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("have not moved yet");
    assertThatThrownBy(moved::readsMoved).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> ClusterState.seed(List.of(member(1))).readsMoved())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aJoinAbortsOnlyBeforeItsReadsMoved() {
    ClusterState started = joining();

    assertThat(started.changeAborted().ids()).doesNotContain(NodeId.of("n4"));
    assertThatThrownBy(() -> started.readsMoved().changeAborted())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot abort");
  }

  @Test
  void bothPhasesSurviveTheEncoding() {
    ClusterState started = joining();
    ClusterState moving =
        ClusterState.seed(List.of(member(1), member(2)))
            .withMoving(NodeId.of("n2"), Zone.of("b"), 9)
            .readsMoved();

    for (ClusterState state : List.of(started, started.readsMoved(), moving)) {
      assertThat(ClusterStateCodec.decode(ClusterStateCodec.encode(state))).isEqualTo(state);
    }
  }

  @Test
  void aStartedChangeIsWrittenAsBeforePhasesAndAStateWrittenThenReadsAsStarted() throws Exception {
    JsonNode written = JSON.readTree(ClusterStateCodec.encode(joining()));
    assertThat(written.path("change").path("kind").asText()).isEqualTo("join");
    assertThat(written.path("change").has("phase")).isFalse();

    // A state as kvorum 0.2.0 writes it, in its data directory and in its gossip.
    String previous =
        "{\"epoch\":2,\"members\":["
            + "{\"id\":\"n1\",\"host\":\"host1\",\"grpcPort\":9090,\"state\":\"normal\"},"
            + "{\"id\":\"n4\",\"host\":\"host4\",\"grpcPort\":9090,\"state\":\"joining\"}],"
            + "\"change\":{\"kind\":\"join\",\"node\":\"n4\",\"epoch\":2,\"startedMillis\":7}}";
    ClusterState read = ClusterStateCodec.decode(previous.getBytes(StandardCharsets.UTF_8));
    assertThat(read.change().orElseThrow().phase()).isEqualTo(ClusterState.Phase.STARTED);
    assertThat(ClusterStateCodec.encode(read)).isEqualTo(previous.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aReleaseBeforePhasesRefusesAStateWhoseReadsMoved() throws Exception {
    JsonNode written = JSON.readTree(ClusterStateCodec.encode(joining().readsMoved()));
    String kind = written.path("change").path("kind").asText();

    assertThat(kind).isEqualTo("join:reads-moved");
    // What 0.2.0's decoder does with a change's kind (ClusterState.Kind is unchanged since): it
    // fails, so that release refuses the whole state, as it refuses a move's.
    assertThatThrownBy(() -> ClusterState.Kind.of(kind))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
