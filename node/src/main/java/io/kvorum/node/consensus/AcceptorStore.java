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
import java.util.function.Function;

/**
 * What this node's Paxos acceptors keep for its keys (conditional writes, SPEC §10): per key, the
 * highest ballot promised and the last proposal accepted; a key never touched (or whose state was
 * purged) is in {@link AcceptorState#EMPTY}. One ballot floor for all keys, durable and never
 * lowered, stands in for the promises of the states purged below it.
 *
 * <p>Contract: {@link #step} applies one transition to a key's state as the floor shows it ({@link
 * AcceptorState#floored}), atomically with respect to every other step and purge of the same key,
 * and completes only once the new state is durable: it survives a crash of the process and of the
 * machine (the write-ahead log is synced before the future completes), so the reply it returns may
 * be sent. A step that leaves the state as it was (a refusal) writes nothing. The floor is durable
 * before {@link #raiseFloor} completes. Futures complete on the engine's executor, as for {@link
 * StorageEngine}.
 */
public interface AcceptorStore {
  /** Moves {@code key}'s state by {@code transition}, stores it, and returns the reply to send. */
  CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition);

  /**
   * As {@link #step}, except that the returned future may complete before the new state is durable:
   * it is then in the write-ahead log ahead of every write made after it, and durable once the log
   * is next synced: by a write of the records that is durable when it completes ({@code
   * --sync-writes true}), or by {@link #sync}. For a step whose reply waits for such a write
   * anyway, so that both cost one sync. A store that writes every step durably may take it as a
   * step.
   */
  default CompletableFuture<Reply> stepBeforeSync(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition) {
    return step(key, transition);
  }

  /** Makes every step so far durable ({@link #stepBeforeSync}). */
  default CompletableFuture<Void> sync() {
    return CompletableFuture.completedFuture(null);
  }

  /** {@code key}'s state now, as stored (not raised to the floor). */
  CompletableFuture<AcceptorState> state(Key key);

  /** The ballot floor now ({@link Version#ZERO} until first raised). */
  Version floor();

  /**
   * Raises the floor to {@code floor} unless it is there already; completes, with the floor now,
   * once that is durable. Never lowers it (a wall clock stepped back changes nothing).
   */
  CompletableFuture<Version> raiseFloor(Version floor);

  /** Up to {@code limit} keys that hold a state, in key order, after {@code after} if present. */
  CompletableFuture<List<Key>> keys(Optional<Key> after, int limit);

  /**
   * Forgets the state of each key of {@code stored} that is {@link AcceptorState#purgeable} under
   * the floor, given the key's ordinary record there (read before this call: a record only gets
   * newer while the key holds a state, see {@link StorageEngine#purge}).
   *
   * @return how many states were forgotten
   */
  CompletableFuture<Integer> purge(Map<Key, Optional<Record>> stored);
}
