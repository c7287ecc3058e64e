package io.kvorum.node.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link AcceptorStore} contract, written once and bound to every implementation by a subclass
 * that opens a fresh, empty store.
 */
public abstract class AcceptorStoreContract {
  protected static final Key KEY = Key.utf8("counter");
  protected static final NodeId N1 = NodeId.of("n1");
  protected static final NodeId N2 = NodeId.of("n2");

  protected AcceptorStore store;

  protected abstract AcceptorStore newStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @Test
  void anUntouchedKeyIsEmpty() {
    assertThat(await(store.state(KEY))).isEqualTo(AcceptorState.EMPTY);
  }

  @Test
  void aPromiseAndAnAcceptanceAreKeptAndALowerBallotIsRefused() {
    Ballot first = ballot(10, N1);
    assertThat(prepare(first)).isInstanceOf(Reply.Promise.class);
    Proposal proposal =
        new Proposal(first, Optional.of(value(10, "one")), Optional.of(Version.ZERO));
    assertThat(await(store.step(KEY, s -> s.accept(proposal))))
        .isEqualTo(new Reply.Accepted(first));

    assertThat(prepare(ballot(9, N2)))
        .isEqualTo(
            new Reply.Rejected(
                ballot(9, N2),
                first,
                Optional.of(new Reply.Held(Optional.of(proposal), Optional.empty()))));
    assertThat(await(store.state(KEY))).isEqualTo(new AcceptorState(first, Optional.of(proposal)));
    Reply later = prepare(ballot(11, N2));
    assertThat(later)
        .isEqualTo(new Reply.Promise(ballot(11, N2), Optional.of(proposal), Optional.empty()));
  }

  @Test
  void keysAreIndependent() {
    prepare(ballot(10, N1));
    assertThat(
            await(store.step(Key.utf8("other"), s -> s.prepare(ballot(5, N2), Optional.empty()))))
        .isInstanceOf(Reply.Promise.class);
  }

  /** Steps of one key never interleave: of many prepares at distinct ballots, the highest wins. */
  @Test
  void concurrentStepsOfOneKeyAreAtomic() {
    List<CompletableFuture<Reply>> replies = new ArrayList<>();
    for (int i = 1; i <= 200; i++) {
      Ballot ballot = ballot(i, N1);
      replies.add(store.step(KEY, s -> s.prepare(ballot, Optional.empty())));
    }
    replies.forEach(AcceptorStoreContract::await);
    assertThat(await(store.state(KEY)).promised()).isEqualTo(ballot(200, N1));
    long promised = replies.stream().filter(r -> await(r) instanceof Reply.Promise).count();
    assertThat(promised).isBetween(1L, 200L);
  }

  @Test
  void theFloorRefusesBallotsNotAboveItAndIsNeverLowered() {
    assertThat(store.floor()).isEqualTo(Version.ZERO);
    assertThat(await(store.raiseFloor(Version.of(10, 0)))).isEqualTo(Version.of(10, 0));
    assertThat(await(store.raiseFloor(Version.of(5, 0)))).isEqualTo(Version.of(10, 0));
    assertThat(store.floor()).isEqualTo(Version.of(10, 0));

    assertThat(prepare(ballot(10, N1))).isInstanceOf(Reply.Rejected.class);
    assertThat(await(store.state(KEY)))
        .as("a refusal writes nothing")
        .isEqualTo(AcceptorState.EMPTY);
    assertThat(await(store.keys(Optional.empty(), 10))).isEmpty();
    assertThat(prepare(ballot(11, N1))).isInstanceOf(Reply.Promise.class);
  }

  @Test
  void aPurgeForgetsOnlyStatesBelowTheFloorThatTheStoredRecordSupersedes() {
    Ballot ballot = ballot(10, N1);
    Record written = value(10, "one");
    prepare(ballot);
    await(
        store.step(
            KEY, s -> s.accept(new Proposal(ballot, Optional.of(written), Optional.empty()))));
    Key promisedOnly = Key.utf8("promised-only");
    await(store.step(promisedOnly, s -> s.prepare(ballot(30, N2), Optional.empty())));

    Map<Key, Optional<Record>> notApplied =
        Map.of(KEY, Optional.empty(), promisedOnly, Optional.empty());
    assertThat(await(store.purge(notApplied))).as("below no floor yet").isZero();
    await(store.raiseFloor(Version.of(20, 0)));
    assertThat(await(store.purge(notApplied))).as("not applied here; promised above").isZero();

    assertThat(await(store.purge(Map.of(KEY, Optional.of(written))))).isEqualTo(1);
    assertThat(await(store.state(KEY))).isEqualTo(AcceptorState.EMPTY);
    assertThat(await(store.keys(Optional.empty(), 10))).containsExactly(promisedOnly);
    assertThat(prepare(ballot(15, N2)))
        .as("the forgotten promise still refuses, through the floor")
        .isInstanceOf(Reply.Rejected.class);
    assertThat(prepare(ballot(21, N2))).isInstanceOf(Reply.Promise.class);
  }

  @Test
  void keysComeInKeyOrderAPageAtATime() {
    for (String k : new String[] {"c", "a", "d", "b"}) {
      await(store.step(Key.utf8(k), s -> s.prepare(ballot(10, N1), Optional.empty())));
    }
    assertThat(await(store.keys(Optional.empty(), 2)))
        .containsExactly(Key.utf8("a"), Key.utf8("b"));
    assertThat(await(store.keys(Optional.of(Key.utf8("b")), 10)))
        .containsExactly(Key.utf8("c"), Key.utf8("d"));
  }

  protected Reply prepare(Ballot ballot) {
    return await(store.step(KEY, s -> s.prepare(ballot, Optional.empty())));
  }

  protected static Ballot ballot(long millis, NodeId proposer) {
    return new Ballot(Version.of(millis, 0), proposer);
  }

  protected static Record value(long millis, String value) {
    return Record.value(Version.of(millis, 0), value.getBytes(StandardCharsets.UTF_8));
  }

  protected static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
