package io.kvorum.node.consensus.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A round's decision when its write was tried before (issue 41: found by the simulator). */
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
