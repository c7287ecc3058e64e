package io.kvorum.node.storage;

import io.kvorum.node.consensus.AcceptorState;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.Key;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What this node's Paxos acceptors keep for its keys (conditional writes, SPEC §10): per key, the
 * highest ballot promised and the last proposal accepted; a key never touched is in {@link
 * AcceptorState#EMPTY}.
 *
 * <p>Contract: {@link #step} applies one transition to a key's state, atomically with respect to
 * every other step of the same key, and completes only once the new state is durable: it survives a
 * crash of the process and of the machine (the write-ahead log is synced before the future
 * completes), so the reply it returns may be sent. A step that leaves the state as it was (a
 * refusal) writes nothing. Futures complete on the engine's executor, as for {@link StorageEngine}.
 */
public interface AcceptorStore {
  /** Moves {@code key}'s state by {@code transition}, stores it, and returns the reply to send. */
  CompletableFuture<Reply> step(
      Key key, Function<AcceptorState, AcceptorState.Transition> transition);

  /** {@code key}'s state now. */
  CompletableFuture<AcceptorState> state(Key key);
}
