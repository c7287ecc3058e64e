package io.kvorum.node.consensus.round;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Version;
import java.util.Comparator;

/**
 * A Paxos ballot: a proposer's hybrid-clock timestamp, made unique by the proposer's id. Ballots
 * order by timestamp, then by id; a value a round creates is versioned with its ballot's timestamp,
 * so that a later ballot's value also wins last-writer-wins.
 */
public record Ballot(Version version, NodeId proposer) implements Comparable<Ballot> {
  private static final Comparator<Ballot> ORDER =
      Comparator.comparing(Ballot::version).thenComparing(Ballot::proposer);

  /** Below every ballot a proposer issues: the promise of an acceptor that promised nothing. */
  public static final Ballot NONE = new Ballot(Version.ZERO, NodeId.of("-"));

  @Override
  public int compareTo(Ballot other) {
    return ORDER.compare(this, other);
  }

  public boolean isAbove(Ballot other) {
    return compareTo(other) > 0;
  }

  @Override
  public String toString() {
    return version + "@" + proposer;
  }
}
