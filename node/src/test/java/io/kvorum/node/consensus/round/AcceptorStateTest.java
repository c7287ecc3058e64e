package io.kvorum.node.consensus.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AcceptorStateTest {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final Optional<Reply.Held> NOTHING_HELD =
      Optional.of(new Reply.Held(Optional.empty(), Optional.empty()));

  private static Ballot ballot(long millis, NodeId proposer) {
    return new Ballot(Version.of(millis, 0), proposer);
  }

  @Test
  void aPromiseRefusesEveryLowerOrEqualBallotAfterIt() {
    AcceptorState state = AcceptorState.EMPTY.prepare(ballot(10, B), Optional.empty()).state();
    assertThat(state.prepare(ballot(10, A), Optional.empty()).reply())
        .isEqualTo(new Reply.Rejected(ballot(10, A), ballot(10, B), NOTHING_HELD));
    assertThat(state.prepare(ballot(10, B), Optional.empty()).reply())
        .isInstanceOf(Reply.Rejected.class);
    assertThat(state.accept(new Proposal(ballot(9, B), Optional.empty(), Optional.empty())).reply())
        .isInstanceOf(Reply.Rejected.class);
    assertThat(state.prepare(ballot(11, A), Optional.empty()).reply())
        .isInstanceOf(Reply.Promise.class);
  }

  /**
   * Two proposers whose clocks gave the same stamp: only the first gets this acceptor's promise.
   */
  @Test
  void aBallotOfATimestampPromisedAlreadyIsRefusedWhateverItsProposer() {
    AcceptorState state = AcceptorState.EMPTY.prepare(ballot(10, A), Optional.empty()).state();
    assertThat(state.prepare(ballot(10, B), Optional.empty()).reply())
        .isEqualTo(new Reply.Rejected(ballot(10, B), ballot(10, A), NOTHING_HELD));
    assertThat(state.prepare(ballot(11, B), Optional.empty()).reply())
        .isInstanceOf(Reply.Promise.class);
  }

  @Test
  void aPromiseCarriesTheAcceptedProposalAndTheStoredRecord() {
    Record value = Record.value(Version.of(10, 0), new byte[] {1});
    Proposal proposal = new Proposal(ballot(10, A), Optional.of(value), Optional.empty());
    AcceptorState state = AcceptorState.EMPTY.accept(proposal).state();
    Record stored = Record.value(Version.of(5, 0), new byte[] {2});

    assertThat(state.prepare(ballot(12, B), Optional.of(stored)).reply())
        .isEqualTo(new Reply.Promise(ballot(12, B), Optional.of(proposal), Optional.of(stored)));
  }

  @Test
  void aDuplicatedAcceptIsAcceptedAgainButAnOlderOneIsNot() {
    Proposal proposal = new Proposal(ballot(10, A), Optional.empty(), Optional.empty());
    AcceptorState state = AcceptorState.EMPTY.accept(proposal).state();
    assertThat(state.accept(proposal).reply()).isEqualTo(new Reply.Accepted(ballot(10, A)));
    assertThat(state.accept(new Proposal(ballot(9, A), Optional.empty(), Optional.empty())).reply())
        .isEqualTo(new Reply.Rejected(ballot(9, A), ballot(10, A)));
  }

  @Test
  void aBallotNotAboveTheFloorIsRefusedAsBelowAPromise() {
    AcceptorState floored = AcceptorState.EMPTY.floored(Version.of(10, 0));
    Ballot floor = new Ballot(Version.of(10, 0), Ballot.NONE.proposer());
    assertThat(floored.prepare(ballot(10, A), Optional.empty()).reply())
        .isEqualTo(new Reply.Rejected(ballot(10, A), floor, NOTHING_HELD));
    assertThat(floored.prepare(ballot(9, A), Optional.empty()).state()).isEqualTo(floored);
    assertThat(
            floored.accept(new Proposal(ballot(10, A), Optional.empty(), Optional.empty())).reply())
        .isInstanceOf(Reply.Rejected.class);
    assertThat(floored.prepare(ballot(11, A), Optional.empty()).reply())
        .isInstanceOf(Reply.Promise.class);
  }

  @Test
  void aPromiseAboveTheFloorIsNotLowered() {
    AcceptorState state = AcceptorState.EMPTY.prepare(ballot(20, A), Optional.empty()).state();
    assertThat(state.floored(Version.of(10, 0))).isEqualTo(state);
  }

  @Test
  void aStateIsPurgeableOnlyWhenBelowTheFloorAndSupersededByTheStoredRecord() {
    Version floor = Version.of(100, 0);
    AcceptorState promised = AcceptorState.EMPTY.prepare(ballot(50, A), Optional.empty()).state();
    assertThat(promised.purgeable(floor, Optional.empty())).isTrue();
    assertThat(promised.purgeable(Version.of(49, 0), Optional.empty())).isFalse();

    Record written = Record.value(Version.of(50, 0), new byte[] {1});
    AcceptorState accepted =
        promised
            .accept(new Proposal(ballot(50, A), Optional.of(written), Optional.empty()))
            .state();
    assertThat(accepted.purgeable(floor, Optional.of(written))).as("applied here").isTrue();
    assertThat(accepted.purgeable(floor, Optional.empty())).as("not applied here").isFalse();
    Record older = Record.value(Version.of(40, 0), new byte[] {2});
    assertThat(accepted.purgeable(floor, Optional.of(older))).as("not applied here").isFalse();
    assertThat(accepted.purgeable(Version.of(49, 0), Optional.of(written))).isFalse();
  }

  /**
   * A value proposed again after a refusal is versioned below its ballot. Its state masks an older,
   * never chosen proposal another acceptor still holds; forgotten, it would let that proposal back
   * as the key's current value, though the stored record is the re-proposed value itself. So it is
   * kept until a record at or above its ballot is stored here.
   */
  @Test
  void aValueProposedAgainIsKeptUntilANewerRecordIsStored() {
    Record chosen = Record.value(Version.of(10, 0), "w".getBytes());
    Proposal stray = new Proposal(ballot(20, B), Optional.of(v(20, "u")), Optional.empty());
    Proposal again = new Proposal(ballot(30, A), Optional.of(chosen), Optional.empty());
    AcceptorState a1 = AcceptorState.EMPTY.accept(again).state();
    AcceptorState a2 = AcceptorState.EMPTY.accept(stray).state();
    ConditionalWrite increment =
        ConditionalWrite.put(new Condition.IfMatch(chosen.version()), "x".getBytes(), 0, 3);

    assertThat(proposedBy(a1, a2, chosen, increment).value())
        .as("kept")
        .isNotEqualTo(stray.value());
    assertThat(proposedBy(AcceptorState.EMPTY, a2, chosen, increment).value())
        .as("forgotten, the stray proposal comes back")
        .isEqualTo(stray.value());

    Version floor = Version.of(100, 0);
    assertThat(a1.purgeable(floor, Optional.of(chosen))).isFalse();
    assertThat(a1.purgeable(floor, Optional.of(v(40, "y")))).isTrue();
  }

  private static Proposal proposedBy(
      AcceptorState a1, AcceptorState a2, Record stored, ConditionalWrite write) {
    Ballot next = ballot(50, A);
    Round round = new Round(next, write, 3, 2, 0, List.of());
    round.onReply(A, a1.prepare(next, Optional.of(stored)).reply());
    Round.Step step = round.onReply(B, a2.prepare(next, Optional.of(stored)).reply());
    return ((Round.Step.SendAccept) step).proposal();
  }

  private static Record v(long millis, String value) {
    return Record.value(Version.of(millis, 0), value.getBytes());
  }
}
