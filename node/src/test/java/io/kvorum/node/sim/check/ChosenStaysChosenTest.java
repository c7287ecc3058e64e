package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.K;
import static io.kvorum.node.sim.check.Fixtures.N1;
import static io.kvorum.node.sim.check.Fixtures.N2;
import static io.kvorum.node.sim.check.Fixtures.N3;
import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.ms;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.tombstone;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The schedule of {@code AcceptorStateTest.aValueProposedAgainIsKeptUntilANewerRecordIsStored}, as
 * the acceptors record it: {@code w} (version 10) is chosen again at ballot 30 by a refused write,
 * while a stray {@code u} (ballot and version 20) sits on n2 alone.
 */
class ChosenStaysChosenTest {
  private static final Record W = value("w", 10);
  private static final Record U = value("u", 20);

  @Test
  void roundsThatGoOnFromTheChosenValueAreFine() {
    Recording recording =
        strayThenWChosenAgain()
            // A refusal chooses w once more, then a write goes on from it.
            .accepted(K, proposal(40, W, 10), N2, ms(4))
            .accepted(K, proposal(40, W, 10), N3, ms(4))
            .accepted(K, proposal(50, value("x", 50), 10), N1, ms(5))
            .accepted(K, proposal(50, value("x", 50), 10), N2, ms(5))
            .build();

    assertThat(new ChosenStaysChosen(2).check(recording)).isEmpty();
  }

  @Test
  void aRoundThatFinishesTheStrayProposalBringsBackWhatTheChosenOneSuperseded() {
    Recording recording =
        strayThenWChosenAgain().accepted(K, proposal(50, U, 10), N2, ms(5)).build();

    assertThat(new ChosenStaysChosen(2).check(recording))
        .extracting(Violation::message)
        .singleElement()
        .asString()
        .contains("@10.0 'w' at ballot 30.0@n1 was chosen")
        .contains("then n2 accepted @20.0 'u' at ballot 50.0@n1");
  }

  @Test
  void aKeyAbsentAgainAfterAChosenTombstoneIsItsSuccessor() {
    Recording recording =
        Recording.recorder()
            .accepted(K, proposal(30, tombstone(30), 10), N1, ms(3))
            .accepted(K, proposal(30, tombstone(30), 10), N3, ms(3))
            // Both the state and the tombstone purged: the key is absent, and proposed so again.
            .accepted(K, new Proposal(ballot(50), Optional.empty(), Optional.empty()), N1, ms(5))
            .build();

    assertThat(new ChosenStaysChosen(2).check(recording)).isEmpty();
  }

  @Test
  void aKeyAlsoWrittenPlainlyIsNotChecked() {
    Recording recording =
        strayThenWChosenAgain()
            .accepted(K, proposal(50, U, 10), N2, ms(5))
            .op(put(TWO, 1, 2, "p", 15))
            .build();

    assertThat(new ChosenStaysChosen(2).check(recording)).isEmpty();
  }

  private static Recording.Recorder strayThenWChosenAgain() {
    return Recording.recorder()
        .accepted(K, proposal(10, W, 0), N1, ms(1))
        .accepted(K, proposal(10, W, 0), N3, ms(1))
        .accepted(K, proposal(20, U, 10), N2, ms(2))
        .accepted(K, proposal(30, W, 10), N1, ms(3))
        .accepted(K, proposal(30, W, 10), N3, ms(3));
  }

  private static Proposal proposal(long ballot, Record value, long parent) {
    return new Proposal(ballot(ballot), Optional.of(value), Optional.of(v(parent)));
  }

  private static Ballot ballot(long millis) {
    return new Ballot(v(millis), NodeId.of("n1"));
  }
}
