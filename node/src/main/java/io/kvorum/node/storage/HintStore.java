package io.kvorum.node.storage;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Hints: writes that a replica did not take, kept durably by the coordinator until they can be
 * delivered (hinted handoff).
 *
 * <p>Contract: a hint whose {@link #add} completed survives a crash of the process; {@link #oldest}
 * returns a target's hints oldest first; {@link #remove} of a hint removed already is a no-op.
 * Futures complete on the engine's executor, as for {@link StorageEngine}.
 */
public interface HintStore {
  /** Stores a hint for {@code target}. */
  CompletableFuture<Void> add(NodeId target, Key key, Record record, long createdAtMillis);

  /** Up to {@code limit} of {@code target}'s hints, oldest first. */
  CompletableFuture<List<Hint>> oldest(NodeId target, int limit);

  /** Forgets delivered (or expired) hints. */
  CompletableFuture<Void> remove(List<Hint> hints);

  /** How many hints are pending for {@code target}; cheap, from a count kept in memory. */
  long pending(NodeId target);

  /**
   * The targets with at least one pending hint, in id order: a replay goes through them in the same
   * order every time (a simulated run of one seed replays the same events).
   */
  Set<NodeId> targets();

  /**
   * One hint.
   *
   * @param id the store's identity of the hint, for {@link #remove}
   * @param target the replica the write is for
   * @param key the key written
   * @param record the record to deliver
   * @param createdAtMillis when the hint was made, for the hint window
   */
  record Hint(byte[] id, NodeId target, Key key, Record record, long createdAtMillis) {}
}
