package io.kvorum.node.membership;

import io.kvorum.node.topology.ClusterState;
import java.util.concurrent.CompletableFuture;

/**
 * What a membership change must carry to the new owners besides the records it streams, done by the
 * change's driver once every coordinator knows the change and the requests begun before it ended,
 * before the records stream and the reads move: the Paxos repair of conditional writes
 * (docs/decisions/paxos-repair-before-a-change-moves-reads.md).
 */
@FunctionalInterface
public interface ChangeRepair {
  /** Nothing to carry (a node without conditional writes: the tests of membership alone). */
  ChangeRepair NONE = (state, change) -> CompletableFuture.completedFuture(null);

  /**
   * Carries what {@code change}, started in {@code state}, must carry; fails if it could not, and
   * the drive is then resumed later, as a failed stream is.
   */
  CompletableFuture<Void> repair(ClusterState state, ClusterState.Change change);
}
