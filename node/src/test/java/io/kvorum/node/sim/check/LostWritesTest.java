package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.converged;
import static io.kvorum.node.sim.check.Fixtures.delete;
import static io.kvorum.node.sim.check.Fixtures.end;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Record;
import org.junit.jupiter.api.Test;

class LostWritesTest {
  private final LostWrites checker = new LostWrites();

  @Test
  void acceptsAcknowledgedWritesThatLastOrAreSuperseded() {
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10), value("b", 12))
            .op(put(TWO, 1, 2, "a", 10))
            .op(put(TWO, 1, 3, "b", 12))
            .op(op(OpKind.PUT, TWO, 4, 5).value(bytes("c")).unknown())
            .end(converged(value("b", 12)))
            .build();

    assertThat(checker.check(recording)).isEmpty();
  }

  @Test
  void reportsAnAcknowledgedWriteOverwrittenByAnOlderOne() {
    Recording recording =
        Recording.recorder()
            .applied(Fixtures.K, value("a", 10), N1, ms(2))
            .op(put(TWO, 1, 2, "a", 10))
            .end(end(value("z", 5), value("z", 5), null))
            .build();

    assertThat(checker.check(recording))
        .singleElement()
        .satisfies(
            violation -> {
              assertThat(violation.checker()).isEqualTo("LostWrites");
              assertThat(violation.key()).isEqualTo("k");
              assertThat(violation.message())
                  .contains("the acknowledged PUT k 2/3 by client 1 via n1")
                  .contains("value 'a' -> OK @10.0 is lost")
                  .contains("applied on n1 at 0.002000s")
                  .contains("the owners hold n1 @5.0 'z', n2 @5.0 'z', n3 none");
            });
  }

  @Test
  void reportsAnAcknowledgedWriteNoReplicaEverApplied() {
    Recording recording = Recording.recorder().op(put(TWO, 1, 2, "a", 10)).build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("no replica ever applied it; at the end no node holds the key");
  }

  @Test
  void reportsALostDeleteAndHowManyOlderWritesWentWithIt() {
    Recording recording =
        Fixtures.appliedEverywhere(2, value("a", 10), tombstone(12))
            .op(put(TWO, 1, 2, "a", 10))
            .op(delete(TWO, 3, 4, 12))
            .end(converged(value("z", 5)))
            .build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("the acknowledged DELETE k 2/3")
        .contains("(1 older acknowledged writes lost too)");
  }

  @Test
  void acceptsWritesWhoseDeadSuccessorsWerePurged() {
    Record expiring = Record.value(v(10), bytes("a"), 1_000, 3);
    Recording recording =
        Fixtures.appliedEverywhere(2, expiring, tombstone(20))
            .op(put(TWO, 1, 2, "a", 10))
            .op(op(OpKind.PUT, TWO, 3, 4).value(bytes("b")).ok(v(15)))
            .op(op(OpKind.DELETE, TWO, 5, 6).unknown())
            .endMillis(5_000)
            .build();

    assertThat(checker.check(recording))
        .as("'a' expired, 'b' lost to a delete whose tombstone was purged: all read absent")
        .isEmpty();
  }

  @Test
  void reportsAValueThatVanishedWithNothingNewerDead() {
    Recording recording =
        Fixtures.appliedEverywhere(2, tombstone(5), value("a", 10))
            .op(delete(TWO, 1, 2, 5))
            .op(put(TWO, 3, 4, "a", 10))
            .end(converged(null))
            .endMillis(5_000)
            .build();

    assertThat(checker.check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("value 'a' -> OK @10.0 is lost")
        .contains("the owners hold n1 none, n2 none, n3 none");
  }
}
