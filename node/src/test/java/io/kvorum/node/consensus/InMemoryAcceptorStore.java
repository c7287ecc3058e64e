package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An {@link AcceptorStore} on the heap, for tests: "durable" for as long as the object lives, so a
 * node restarted on the same store keeps its promises and its floor, as one restarted on the same
 * RocksDB does. Steps complete on the calling thread.
 */
public final class InMemoryAcceptorStore implements AcceptorStore {
  private final ConcurrentHashMap<Key, AcceptorState> states = new ConcurrentHashMap<>();
  private volatile Version floor = Version.ZERO;

  @Override
  public CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    Reply[] reply = new Reply[1];
    states.compute(
        key,
        (k, state) -> {
          // Read under the key's entry: a purge of the key, after raising the floor, is serialised
          // with this step, which then sees the new floor.
          AcceptorState seen = (state == null ? AcceptorState.EMPTY : state).floored(floor);
          AcceptorState.Transition next = transition.apply(seen);
          reply[0] = next.reply();
          return next.state().equals(seen) ? state : next.state();
        });
    return CompletableFuture.completedFuture(reply[0]);
  }

  @Override
  public CompletableFuture<AcceptorState> state(Key key) {
    return CompletableFuture.completedFuture(states.getOrDefault(key, AcceptorState.EMPTY));
  }

  @Override
  public Version floor() {
    return floor;
  }

  @Override
  public synchronized CompletableFuture<Version> raiseFloor(Version floor) {
    if (floor.compareTo(this.floor) > 0) {
      this.floor = floor;
    }
    return CompletableFuture.completedFuture(this.floor);
  }

  @Override
  public CompletableFuture<List<Key>> keys(Optional<Key> after, int limit) {
    return CompletableFuture.completedFuture(
        states.keySet().stream()
            .filter(k -> after.map(a -> k.compareTo(a) > 0).orElse(true))
            .sorted()
            .limit(limit)
            .toList());
  }

  @Override
  public CompletableFuture<Integer> purge(Map<Key, Optional<Record>> stored) {
    AtomicInteger removed = new AtomicInteger();
    Version now = floor;
    stored.forEach(
        (key, record) ->
            states.computeIfPresent(
                key,
                (k, state) -> {
                  if (state.purgeable(now, record)) {
                    removed.incrementAndGet();
                    return null;
                  }
                  return state;
                }));
    return CompletableFuture.completedFuture(removed.get());
  }
}
