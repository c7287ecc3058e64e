package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.consensus.AcceptorState;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

    assertThat(prepare(ballot(9, N2))).isEqualTo(new Reply.Rejected(ballot(9, N2), first));
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
