package io.kvorum.node.clock;

import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Record;
import java.time.Duration;
import java.util.Optional;

/**
 * A replica's refusal of versions from the future: a record whose version is further ahead of this
 * node's wall clock than the max clock offset comes from a coordinator whose clock is ahead, and
 * would win over every write the others make until their clocks catch up. Hints and read repair
 * carry versions from the past and pass. Shared by every protocol that stores a record a peer
 * versioned (replica writes, Paxos acceptances).
 */
public final class FutureVersions {
  private final Clock clock;
  private final long maxOffsetMillis;

  /**
   * @param clock this node's clock, whose wall clock versions are checked against
   * @param maxClockOffset how far ahead of it a version may be
   */
  public FutureVersions(Clock clock, Duration maxClockOffset) {
    this.clock = clock;
    this.maxOffsetMillis = maxClockOffset.toMillis();
  }

  /** Why {@code record} is refused, if it is too far ahead of the wall clock now. */
  public Optional<ClockOffsetException> refusal(Record record) {
    return refusal(record, clock.wallMillis());
  }

  /** As {@link #refusal(Record)}, against the wall clock {@code wall} read once for many. */
  public Optional<ClockOffsetException> refusal(Record record, long wall) {
    long ahead = record.version().physicalMillis() - wall;
    if (ahead <= maxOffsetMillis) {
      return Optional.empty();
    }
    return Optional.of(
        new ClockOffsetException(
            "the write's version is "
                + ahead
                + " ms ahead of this replica's wall clock, more than the max clock offset of "
                + maxOffsetMillis
                + " ms: the coordinator's clock is ahead",
            ahead,
            maxOffsetMillis));
  }

  /** This node's wall clock now. */
  public long wallMillis() {
    return clock.wallMillis();
  }
}
