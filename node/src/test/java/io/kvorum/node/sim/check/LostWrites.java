package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * No acknowledged write is lost: at the end, the newest record of each key among its owners is, by
 * last-writer-wins, at least the record of every write answered OK (a delete's record is a
 * tombstone at its version). A newer write may have superseded an acknowledged one; nothing older
 * may be what remains.
 *
 * <p>One allowance: when what remains of a key reads as absent (its owners hold nothing, or only
 * tombstones and expired values), an acknowledged write is not lost if some replica applied a
 * record at least as new that is dead at {@link Recording#endMillis} (a tombstone, an expired
 * value, the write's own): storage purges dead records after a grace period.
 *
 * <p>Assumes every acknowledged write carries the version it was answered, and {@link
 * Recording#end} holds every key some node holds.
 */
public final class LostWrites implements Checker {
  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    Map<Key, List<AppliedRecord>> applied = recording.appliedByKey();
    recording
        .opsByKey()
        .forEach(
            (key, ops) -> {
              List<AppliedRecord> records = applied.getOrDefault(key, List.of());
              Optional<ReplicaState> end = recording.endOf(key);
              Record newest = end.flatMap(ReplicaState::newestOfOwners).orElse(null);
              List<ClientOp> lost =
                  ops.stream()
                      .filter(ClientOp::isAcknowledgedWrite)
                      .filter(op -> !op.isCoveredBy(newest))
                      .filter(op -> !purged(op, newest, records, recording.endMillis()))
                      .sorted(Comparator.comparing(ClientOp::version).reversed())
                      .toList();
              if (!lost.isEmpty()) {
                violations.add(new Violation(name(), key.toString(), message(lost, records, end)));
              }
            });
    return violations;
  }

  /**
   * Whether what remains reads as absent and a dead record at least as new as the write was applied
   * somewhere: it superseded the write and may have been purged since.
   */
  private static boolean purged(
      ClientOp write, Record newest, List<AppliedRecord> records, long endMillis) {
    if (newest != null && newest.isLive(endMillis)) {
      return false;
    }
    return records.stream()
        .map(AppliedRecord::record)
        .filter(r -> !r.isLive(endMillis))
        .anyMatch(write::isCoveredBy);
  }

  private static String message(
      List<ClientOp> lost, List<AppliedRecord> records, Optional<ReplicaState> end) {
    ClientOp newestLost = lost.get(0);
    List<String> appliedOn =
        records.stream()
            .filter(a -> newestLost.isWrittenAs(a.record()))
            .map(a -> a.node() + " at " + Describe.time(a.at()))
            .toList();
    StringBuilder text =
        new StringBuilder("the acknowledged ")
            .append(newestLost)
            .append(" is lost: ")
            .append(
                appliedOn.isEmpty()
                    ? "no replica ever applied it"
                    : "applied on " + String.join(", ", appliedOn))
            .append("; at the end ")
            .append(
                end.map(s -> "the owners hold " + s.describeOwners())
                    .orElse("no node holds the key"));
    if (lost.size() > 1) {
      text.append(" (").append(lost.size() - 1).append(" older acknowledged writes lost too)");
    }
    return text.toString();
  }
}
