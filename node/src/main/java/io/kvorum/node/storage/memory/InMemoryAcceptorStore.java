package io.kvorum.node.storage.memory;

import io.kvorum.node.consensus.AcceptorState;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.storage.AcceptorStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An {@link AcceptorStore} on the heap, for tests: "durable" for as long as the object lives, so a
 * node restarted on the same store keeps its promises, as one restarted on the same RocksDB does.
 * Steps complete on the calling thread.
 */
public final class InMemoryAcceptorStore implements AcceptorStore {
  private final ConcurrentHashMap<Key, AcceptorState> states = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    Reply[] reply = new Reply[1];
    states.compute(
        key,
        (k, state) -> {
          AcceptorState.Transition next =
              transition.apply(state == null ? AcceptorState.EMPTY : state);
          reply[0] = next.reply();
          return next.state();
        });
    return CompletableFuture.completedFuture(reply[0]);
  }

  @Override
  public CompletableFuture<AcceptorState> state(Key key) {
    return CompletableFuture.completedFuture(states.getOrDefault(key, AcceptorState.EMPTY));
  }
}
