package io.kvorum.node.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AcceptorStateTest {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");

  private static Ballot ballot(long millis, NodeId proposer) {
    return new Ballot(Version.of(millis, 0), proposer);
  }

  @Test
  void aPromiseRefusesEveryLowerOrEqualBallotAfterIt() {
    AcceptorState state = AcceptorState.EMPTY.prepare(ballot(10, B), Optional.empty()).state();
    assertThat(state.prepare(ballot(10, A), Optional.empty()).reply())
        .isEqualTo(new Reply.Rejected(ballot(10, A), ballot(10, B)));
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
        .isEqualTo(new Reply.Rejected(ballot(10, B), ballot(10, A)));
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
}
