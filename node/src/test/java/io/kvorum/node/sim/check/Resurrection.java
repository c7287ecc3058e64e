package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * No deleted value comes back. A value is resurrected when it is live and older (by version) than a
 * delete that was acknowledged:
 *
 * <ul>
 *   <li>at the end: the newest record among a key's owners is a live value older than an
 *       acknowledged delete of the key;
 *   <li>in a {@code GET} answered OK: it returned a value older than a delete acknowledged before
 *       the {@code GET} was called, when the two quorums must overlap (same {@code from}, R + W
 *       &gt; F), or when the {@code GET} was called after the run {@linkplain Recording#settledAt
 *       settled} (then whatever the quorums);
 *   <li>in a range read called after the run settled: an entry older than an acknowledged delete.
 * </ul>
 *
 * <p>A quorum read that misses an acknowledged delete is reported here, not by {@link
 * ReadYourQuorum} (which checks quorum reads against acknowledged values).
 */
public final class Resurrection implements Checker {
  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    Map<Key, AckedBefore> deletes = new TreeMap<>();
    recording
        .opsByKey()
        .forEach(
            (key, ops) -> {
              List<ClientOp> acked =
                  ops.stream()
                      .filter(op -> op.isAcknowledgedWrite() && op.kind().deletes())
                      .toList();
              if (acked.isEmpty()) {
                return;
              }
              AckedBefore index = new AckedBefore(acked);
              deletes.put(key, index);
              atTheEnd(recording, key, index).ifPresent(violations::add);
              for (ClientOp op : ops) {
                if (op.kind() == OpKind.GET && op.outcome() == Outcome.OK && op.value() != null) {
                  read(recording, op, index).ifPresent(violations::add);
                }
              }
            });
    for (ClientOp range : recording.ranges()) {
      if (range.call() < recording.settledAt()) {
        continue;
      }
      for (RangeEntry entry : range.entries()) {
        AckedBefore index = deletes.get(entry.key());
        Optional<ClientOp> delete = index == null ? Optional.empty() : index.newest(range.call());
        if (delete.isPresent() && entry.version().compareTo(delete.get().version()) < 0) {
          violations.add(
              new Violation(
                  name(),
                  entry.key().toString(),
                  "the "
                      + range
                      + ", called after the run settled at "
                      + Describe.time(recording.settledAt())
                      + ", returned "
                      + entry
                      + " although "
                      + delete.get()
                      + " had been acknowledged"));
        }
      }
    }
    return violations;
  }

  private Optional<Violation> atTheEnd(Recording recording, Key key, AckedBefore deletes) {
    Optional<ReplicaState> end = recording.endOf(key);
    Record newest = end.flatMap(ReplicaState::newestOfOwners).orElse(null);
    Optional<ClientOp> delete = deletes.newest(Long.MAX_VALUE);
    if (newest == null
        || !newest.isLive(recording.endMillis())
        || delete.isEmpty()
        || newest.version().compareTo(delete.get().version()) >= 0) {
      return Optional.empty();
    }
    return Optional.of(
        new Violation(
            name(),
            key.toString(),
            "the value "
                + Describe.record(newest)
                + " is live at the end although "
                + delete.get()
                + " was acknowledged; the owners hold "
                + end.get().describeOwners()));
  }

  private Optional<Violation> read(Recording recording, ClientOp get, AckedBefore deletes) {
    boolean settled = get.call() >= recording.settledAt();
    Optional<ClientOp> delete =
        settled ? deletes.newest(get.call()) : deletes.newestOverlapping(get.call(), get.quorum());
    Version read = get.version();
    if (delete.isEmpty() || read.compareTo(delete.get().version()) >= 0) {
      return Optional.empty();
    }
    String why =
        AckedBefore.overlap(get.quorum(), delete.get().quorum())
            ? "their quorums must overlap"
            : "the run had settled at " + Describe.time(recording.settledAt());
    return Optional.of(
        new Violation(
            name(),
            get.key().toString(),
            "the "
                + get
                + " returned a value older than the acknowledged "
                + delete.get()
                + ", which returned before the GET was called ("
                + why
                + ")"));
  }
}
