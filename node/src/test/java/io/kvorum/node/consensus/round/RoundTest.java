package io.kvorum.node.consensus.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A round's decision when its write was tried before (issue 41: found by the simulator), and when
 * the current value is settled (issue 42).
 */
class RoundTest {
  private static final NodeId A = NodeId.of("a");
  private static final NodeId B = NodeId.of("b");
  private static final ConditionalWrite IF_ABSENT =
      ConditionalWrite.put(new Condition.IfAbsent(), "w".getBytes(), 0, 3);

  /**
   * CONDITIONAL seed 139: a PUT_IF_ABSENT's first round was chosen and committed, its proposer
   * never heard so; another client wrote over it and a third deleted the key; the retry found the
   * key absent again. Writing again would apply the one request twice.
   */
  @Test
  void aRetryThatFindsTheKeyChangedSinceItsEarlierRoundCannotTell() {
    Proposal earlier = new Proposal(ballot(10), Optional.of(value(10)), Optional.of(Version.ZERO));
    Record deleted = Record.tombstone(Version.of(30, 0), 3);

    Round.Step step =
        promisedBoth(new Round(ballot(40), IF_ABSENT, 3, 2, 0, List.of(earlier)), deleted);

    assertThat(step).isEqualTo(new Round.Step.Done(new Outcome.Indeterminate()));
  }

  @Test
  void aRetryThatFindsTheKeyAsItsEarlierRoundDidWritesAgain() {
    Proposal earlier = new Proposal(ballot(10), Optional.of(value(10)), Optional.of(Version.ZERO));

    Round.Step step =
        promisedBoth(new Round(ballot(40), IF_ABSENT, 3, 2, 0, List.of(earlier)), null);

    assertThat(step).isInstanceOf(Round.Step.SendAccept.class);
  }

  @Test
  void aFirstRoundWritesWhenTheConditionHolds() {
    Record deleted = Record.tombstone(Version.of(30, 0), 3);

    Round.Step step = promisedBoth(new Round(ballot(40), IF_ABSENT, 3, 2, 0, List.of()), deleted);

    assertThat(step).isInstanceOf(Round.Step.SendAccept.class);
  }

  /**
   * A create that lost the race: both acceptors refuse its prepare (another proposer's ballot is
   * higher) but hold the winner's value committed and nothing newer accepted, so the refusal is
   * answered from those answers, with no round of its own (issue 42).
   */
  @Test
  void aLoserLearnsASettledValueFromTheRefusalsOfItsPrepare() {
    Record winner = value(20);
    Proposal chosen = new Proposal(ballot(20), Optional.of(winner), Optional.of(Version.ZERO));
    Reply.Held held = new Reply.Held(Optional.of(chosen), Optional.of(winner));
    Round round = new Round(ballot(15), IF_ABSENT, 3, 2, 0, List.of());

    round.onReply(A, new Reply.Rejected(round.ballot(), ballot(30), Optional.of(held)));
    Round.Step step =
        round.onReply(B, new Reply.Rejected(round.ballot(), ballot(30), Optional.of(held)));

    assertThat(step).isEqualTo(new Round.Step.Done(new Outcome.Refused(Optional.of(winner))));
  }

  /** Promises that all hold the current value committed: 412 after the prepare alone. */
  @Test
  void aRefusalOnASettledValueSendsNoAccepts() {
    Round.Step step = promisedBoth(new Round(ballot(40), IF_ABSENT, 3, 2, 0, List.of()), value(20));

    assertThat(step).isEqualTo(new Round.Step.Done(new Outcome.Refused(Optional.of(value(20)))));
  }

  /**
   * A value accepted but not yet committed everywhere may be chosen or not: the round proposes it
   * again (finishing the other proposer's round) before it refuses, as before.
   */
  @Test
  void aValueAcceptedButNotCommittedIsProposedAgainBeforeARefusal() {
    Record winner = value(20);
    Proposal accepted = new Proposal(ballot(20), Optional.of(winner), Optional.of(Version.ZERO));
    Round round = new Round(ballot(40), IF_ABSENT, 3, 2, 0, List.of());

    round.onReply(A, new Reply.Promise(round.ballot(), Optional.of(accepted), Optional.empty()));
    Round.Step step =
        round.onReply(B, new Reply.Promise(round.ballot(), Optional.empty(), Optional.empty()));

    assertThat(step)
        .isEqualTo(
            new Round.Step.SendAccept(
                new Proposal(round.ballot(), Optional.of(winner), Optional.of(Version.ZERO))));
  }

  /** Refusals that do not agree on a settled value leave the round contended, to be retried. */
  @Test
  void refusalsThatDoNotShowASettledValueAreContention() {
    Record winner = value(20);
    Proposal accepted = new Proposal(ballot(20), Optional.of(winner), Optional.of(Version.ZERO));
    Round round = new Round(ballot(15), IF_ABSENT, 3, 2, 0, List.of());

    round.onReply(
        A,
        new Reply.Rejected(
            round.ballot(),
            ballot(30),
            Optional.of(new Reply.Held(Optional.of(accepted), Optional.empty()))));
    Round.Step step =
        round.onReply(
            B,
            new Reply.Rejected(
                round.ballot(),
                ballot(30),
                Optional.of(new Reply.Held(Optional.empty(), Optional.empty()))));

    assertThat(step).isEqualTo(new Round.Step.Done(new Outcome.Contended(Version.of(30, 0))));
  }

  /**
   * A linearizable read that finds a value accepted but not committed (a writer died between its
   * accepts and its commit) finishes that round: proposes the value again, and once a quorum
   * accepted it answers it; on a settled value it answers after the prepare alone.
   */
  @Test
  void aLinearizableReadFinishesARoundInProgressBeforeItAnswers() {
    Record pending = value(20);
    Proposal accepted = new Proposal(ballot(20), Optional.of(pending), Optional.of(Version.ZERO));
    Round read = new Round(ballot(40), ConditionalWrite.read(), 3, 2, 0, List.of());

    read.onReply(A, new Reply.Promise(read.ballot(), Optional.of(accepted), Optional.empty()));
    Round.Step step =
        read.onReply(B, new Reply.Promise(read.ballot(), Optional.empty(), Optional.empty()));
    assertThat(step)
        .isEqualTo(
            new Round.Step.SendAccept(
                new Proposal(read.ballot(), Optional.of(pending), Optional.of(Version.ZERO))));
    read.onReply(A, new Reply.Accepted(read.ballot()));
    assertThat(read.onReply(B, new Reply.Accepted(read.ballot())))
        .isEqualTo(new Round.Step.Done(new Outcome.Refused(Optional.of(pending))));

    Round settled = new Round(ballot(50), ConditionalWrite.read(), 3, 2, 0, List.of());
    assertThat(promisedBoth(settled, pending))
        .isEqualTo(new Round.Step.Done(new Outcome.Refused(Optional.of(pending))));
  }

  private static Round.Step promisedBoth(Round round, Record stored) {
    Optional<Record> held = Optional.ofNullable(stored);
    round.onReply(A, new Reply.Promise(round.ballot(), Optional.empty(), held));
    return round.onReply(B, new Reply.Promise(round.ballot(), Optional.empty(), held));
  }

  private static Ballot ballot(long millis) {
    return new Ballot(Version.of(millis, 0), A);
  }

  private static Record value(long millis) {
    return Record.value(Version.of(millis, 0), "w".getBytes(), Record.NO_EXPIRY, 3);
  }
}
