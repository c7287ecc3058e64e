package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Quorum reads see quorum writes, and reads return only what was written (SPEC §3).
 *
 * <ul>
 *   <li>A {@code GET} answered OK, called after a write of a value on the same key had been
 *       answered OK, with quorums that must overlap (same {@code from}, R + W &gt; F), returns a
 *       version at least the write's. It may read absent only if some replica had applied, by the
 *       time the {@code GET} returned, a tombstone or an expiring value at least as new as the
 *       write (a later delete, or a TTL).
 *   <li>No phantoms: every value a {@code GET} or a range read returns was written by some client
 *       to that key, and some replica had applied it at that version by the time the read returned.
 * </ul>
 *
 * <p>Writes are values here ({@code PUT}, {@code PUT_IF_ABSENT}, {@code PUT_IF_MATCH}; a
 * conditional write commits to at least its {@code ack} replicas); a quorum read that misses an
 * acknowledged delete is {@link Resurrection}'s to report. Expiry is not compared with the time of
 * the read: virtual time and the nodes' wall clocks are not the same clock.
 */
public final class ReadYourQuorum implements Checker {
  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    Map<Key, List<AppliedRecord>> applied = recording.appliedByKey();
    Map<Key, List<ClientOp>> opsByKey = recording.opsByKey();
    Map<Key, Observations> observations = Observations.byKey(opsByKey, applied);
    opsByKey.forEach(
        (key, ops) -> {
          Observations seen = observations.get(key);
          AckedBefore values =
              new AckedBefore(
                  ops.stream()
                      .filter(op -> op.isAcknowledgedWrite() && op.kind().writesValue())
                      .toList());
          for (ClientOp op : ops) {
            if (op.kind() == OpKind.GET && op.outcome() == Outcome.OK) {
              missedWrite(op, values, seen).ifPresent(violations::add);
              if (op.value() != null) {
                phantom(op, key, op.version(), op.value(), seen, null).ifPresent(violations::add);
              }
            }
          }
        });
    for (ClientOp range : recording.ranges()) {
      for (RangeEntry entry : range.entries()) {
        Observations seen = observations.getOrDefault(entry.key(), Observations.NONE);
        phantom(range, entry.key(), entry.version(), entry.value(), seen, entry)
            .ifPresent(violations::add);
      }
    }
    return violations;
  }

  private Optional<Violation> missedWrite(ClientOp get, AckedBefore values, Observations seen) {
    Optional<ClientOp> write = values.newestOverlapping(get.call(), get.quorum());
    if (write.isEmpty()) {
      return Optional.empty();
    }
    Version written = write.get().version();
    String missed;
    if (get.version() != null) {
      if (get.version().compareTo(written) >= 0) {
        return Optional.empty();
      }
      missed = "returned the older @" + get.version();
    } else {
      Version dead = seen.newestDeadBy(get.ret());
      if (dead != null && dead.compareTo(written) >= 0) {
        return Optional.empty();
      }
      missed =
          "read absent though no replica had applied a tombstone or an expiring value at or"
              + " above "
              + written;
    }
    return Optional.of(
        new Violation(
            name(),
            get.key().toString(),
            "the "
                + get
                + " "
                + missed
                + ": the acknowledged "
                + write.get()
                + " returned before it was called, and their quorums must overlap"));
  }

  private Optional<Violation> phantom(
      ClientOp read, Key key, Version version, byte[] value, Observations seen, RangeEntry entry) {
    String problem;
    if (!seen.wasWritten(value)) {
      problem = "a value no client wrote to " + key;
    } else {
      long appliedAt = seen.firstApplied(version, value);
      if (appliedAt == Long.MAX_VALUE) {
        problem =
            "a value no replica ever applied at that version (" + seen.versionsOf(value) + ")";
      } else if (appliedAt > read.ret()) {
        problem =
            "a value no replica had applied yet (the first did at "
                + Describe.time(appliedAt)
                + ")";
      } else {
        return Optional.empty();
      }
    }
    String what = entry == null ? "@" + version + " " + Describe.value(value) : entry.toString();
    return Optional.of(
        new Violation(
            name(), key.toString(), "the " + read + " returned " + what + ", " + problem));
  }
}
