package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Optional;

/** How a proposer's round ended. */
public sealed interface Outcome {
  /** The condition held and {@code written} is chosen: the key's value from now on. */
  record Applied(Record written) implements Outcome {}

  /**
   * The condition did not hold against {@code current} (live or not; empty when never written),
   * which a quorum accepted again, so that the answer is as linearizable as a success.
   */
  record Refused(Optional<Record> current) implements Outcome {}

  /**
   * Another proposer holds a higher ballot, or the key holds a version at or above this round's:
   * try again with a ballot above {@code above}, after a pause.
   */
  record Contended(Version above) implements Outcome {}

  /**
   * An earlier round of the same write sent accepts, and the key has moved on since: that round may
   * have been chosen and overwritten, or not; as after a timeout, nobody can tell.
   */
  record Indeterminate() implements Outcome {}

  /** Too few acceptors answered for a quorum; whether anything was chosen is unknown. */
  record Unreachable(int answered, int required) implements Outcome {}
}
