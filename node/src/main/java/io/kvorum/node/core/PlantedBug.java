package io.kvorum.node.core;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Bugs planted on purpose, each a one-line change of behaviour behind this switch, so that a test
 * can show the simulator finds them (issue 41). Nothing but a test plants one: a node never does,
 * and an unplanted bug costs its code path one read of a field.
 */
public enum PlantedBug {
  /** Hinted handoff delivers nothing: a replica that missed a write never gets it from a hint. */
  HINT_REPLAY_SKIPPED,
  /** A write is acknowledged one confirmation early: at {@code ack - 1} replicas (at least one). */
  ACK_ONE_SHORT,
  /** Read repair writes the oldest answer's value over the newer ones, versioned above them. */
  READ_REPAIR_OLDER,
  /**
   * Paxos state is purged once its accepted value is superseded here by last-writer-wins alone,
   * without the record's version at or above the ballot: the rule issue 26 rejected. What it brings
   * back is a proposal whose client got no answer (a 504), which a client may see take effect late,
   * so no history of answers shows it; the simulator's check of what the acceptors accepted ({@code
   * ChosenStaysChosen}) does, in about one {@code PAXOS_PURGE} seed of 10,000 (a hunt's find, too
   * rare for {@code PlantedBugsTest}); {@code AcceptorStateTest} builds the schedule by hand.
   */
  UNSAFE_PAXOS_PURGE,
  /** A dead record is purged once past the grace, without waiting for two full repair rounds. */
  PURGE_BEFORE_REPAIR,
  /**
   * A change feed's watermark passes the members left out of it (unreachable, or failing past their
   * grace) whatever of the keys' replicas they are: a feed cut off from the others runs on its own
   * node's log alone, and the writes it did not see, shown late, lose to newer versions.
   */
  FEED_PAST_A_MAJORITY;

  private static volatile Set<PlantedBug> planted = Set.of();

  /** Whether this bug is planted now. */
  public boolean planted() {
    Set<PlantedBug> now = planted;
    return !now.isEmpty() && now.contains(this);
  }

  /** Plants {@code bug} until the returned handle is closed. For tests alone. */
  public static Planting plant(PlantedBug bug) {
    synchronized (PlantedBug.class) {
      Set<PlantedBug> next = EnumSet.noneOf(PlantedBug.class);
      next.addAll(planted);
      next.add(bug);
      planted = Set.copyOf(next);
    }
    return () -> {
      synchronized (PlantedBug.class) {
        Set<PlantedBug> next = EnumSet.noneOf(PlantedBug.class);
        next.addAll(planted);
        next.remove(bug);
        planted = Set.copyOf(next);
      }
    };
  }

  /**
   * What {@link #READ_REPAIR_OLDER} writes: the oldest answer's value, versioned just above the
   * newest so that it overwrites it.
   */
  public static Record olderOverNewer(Collection<Optional<Record>> answers, Record newest) {
    Record oldest =
        answers.stream().flatMap(Optional::stream).min(Record.LAST_WRITER_WINS).orElse(newest);
    return new Record(
        new Version(newest.version().value() + 1),
        oldest.tombstone(),
        oldest.expiresAtMillis(),
        oldest.value(),
        newest.replicas());
  }

  /** A planted bug, removed when closed. */
  @FunctionalInterface
  public interface Planting extends AutoCloseable {
    @Override
    void close();
  }
}
