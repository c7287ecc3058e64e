package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Replicas converge (SPEC §3): at the end, after healing and repair, every owner of a key (the
 * replicas of its newest record) holds that record, and no node holds a record outside that
 * record's own replicas (the first {@code from} of the ranking it was written with). A difference
 * the {@link Tolerance} allows is not reported.
 *
 * <p>Assumes {@link Recording#end} holds every key some node holds, with its owners at the end.
 */
public final class Convergence implements Checker {
  private final Tolerance tolerance;

  /** Reports every difference but those {@code tolerance} allows. */
  public Convergence(Tolerance tolerance) {
    this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
  }

  /** Reports every difference. */
  public Convergence() {
    this(Tolerance.NONE);
  }

  /**
   * A node's record of a key that is not what it should be at the end.
   *
   * @param held what the node holds, null for nothing
   * @param expected what it should hold: the newest record among the owners; null for a node that
   *     does not own the key, or when no owner holds it
   * @param endMillis the wall clock at the end ({@link Recording#endMillis})
   */
  public record Difference(Key key, NodeId node, Record held, Record expected, long endMillis) {
    /** Whether both records (a null one too) read as absent at the end. */
    public boolean bothReadAbsent() {
      return (held == null || !held.isLive(endMillis))
          && (expected == null || !expected.isLive(endMillis));
    }
  }

  /** Which differences at the end a run accepts. */
  @FunctionalInterface
  public interface Tolerance {
    /** Allows nothing. */
    Tolerance NONE = difference -> false;

    /**
     * Differences in records that all read as absent at the end: tombstones and expired values,
     * which storage purges after a grace period, on some nodes before others.
     */
    Tolerance DEAD_RECORDS = Difference::bothReadAbsent;

    boolean allows(Difference difference);

    /** This tolerance or {@code other}. */
    default Tolerance or(Tolerance other) {
      return difference -> allows(difference) || other.allows(difference);
    }
  }

  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    for (ReplicaState state : recording.end().values()) {
      Record expected = state.newestOfOwners().orElse(null);
      boolean diverged = false;
      for (NodeId owner : state.owners()) {
        Record held = state.heldBy(owner);
        if (!Objects.equals(held, expected)
            && !tolerance.allows(
                new Difference(state.key(), owner, held, expected, recording.endMillis()))) {
          diverged = true;
        }
      }
      String key = state.key().toString();
      if (diverged) {
        violations.add(
            new Violation(name(), key, "the owners diverge at the end: " + state.describeOwners()));
      }
      List<String> strays = new ArrayList<>();
      for (Map.Entry<NodeId, Record> held : state.held().entrySet()) {
        if (!state.belongs(held.getKey(), held.getValue())
            && !tolerance.allows(
                new Difference(
                    state.key(), held.getKey(), held.getValue(), null, recording.endMillis()))) {
          strays.add(held.getKey() + " " + Describe.record(held.getValue()));
        }
      }
      if (!strays.isEmpty()) {
        violations.add(
            new Violation(
                name(),
                key,
                "nodes outside a record's own replicas hold it at the end: "
                    + String.join(", ", strays)
                    + " (ranking "
                    + state.ranking()
                    + ")"));
      }
    }
    return violations;
  }
}
