package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.N2;
import static io.kvorum.node.sim.check.Fixtures.N4;
import static io.kvorum.node.sim.check.Fixtures.OWNERS;
import static io.kvorum.node.sim.check.Fixtures.converged;
import static io.kvorum.node.sim.check.Fixtures.end;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConvergenceTest {
  private static Recording ending(ReplicaState... states) {
    Recording.Recorder recorder = Recording.recorder().endMillis(5_000);
    for (ReplicaState state : states) {
      recorder.end(state);
    }
    return recorder.build();
  }

  @Test
  void acceptsOwnersThatAgree() {
    Recording recording =
        ending(converged(value("a", 10)), ReplicaState.of(Key.utf8("l"), OWNERS, Map.of()));

    assertThat(new Convergence().check(recording)).isEmpty();
  }

  @Test
  void reportsDivergedOwners() {
    Recording recording = ending(end(value("a", 10), value("b", 9), null));

    assertThat(new Convergence().check(recording))
        .singleElement()
        .satisfies(
            violation -> {
              assertThat(violation.checker()).isEqualTo("Convergence");
              assertThat(violation.message())
                  .isEqualTo("the owners diverge at the end: n1 @10.0 'a', n2 @9.0 'b', n3 none");
            });
  }

  @Test
  void reportsANodeThatHoldsAKeyItDoesNotOwn() {
    Record a = value("a", 10);
    Recording recording = ending(ReplicaState.of(K, OWNERS, Map.of(N1, a, N2, a, N4, a)));

    assertThat(new Convergence().check(recording))
        .extracting(Violation::message)
        .containsExactly(
            "the owners diverge at the end: n1 @10.0 'a', n2 @10.0 'a', n3 none",
            "nodes outside a record's own replicas hold it at the end: n4 @10.0 'a' (ranking [n1, n2, n3])");
  }

  @Test
  void toleratesPurgedDeadRecordsOnlyWhenAsked() {
    Record expired = Record.value(Fixtures.v(8), Fixtures.bytes("e"), 1_000, 3);
    Recording recording =
        ending(
            ReplicaState.of(K, OWNERS, Map.of(N1, tombstone(12), N2, expired, N4, tombstone(12))),
            ReplicaState.of(Key.utf8("l"), OWNERS, Map.of(N1, value("a", 10))));
    Convergence tolerant = new Convergence(Convergence.Tolerance.DEAD_RECORDS);

    assertThat(new Convergence().check(recording)).hasSize(3);
    assertThat(tolerant.check(recording))
        .as("a live value missing from two owners is still a divergence")
        .singleElement()
        .satisfies(violation -> assertThat(violation.key()).isEqualTo("l"));
  }
}
