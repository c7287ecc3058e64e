package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A conditional write whose client got no answer takes effect, if ever, before the first
 * conditional write of its key called after the client gave up that decided without it (SPEC §10,
 * CASPaxos). That one's round chose a value on a quorum at a ballot above every ballot of the
 * unanswered write, so from then on every round's quorum holds a higher accepted proposal, or a
 * record at least as new, than the stray one, which can never be the highest again: the stray value
 * must not appear afterwards. {@link Linearizability} cannot tell, as it lets an unanswered write
 * take effect at any time after its call; this is what an acceptor state forgotten too early brings
 * back (issue 26's rejected purge rule, {@code PlantedBug.UNSAFE_PAXOS_PURGE}).
 *
 * <p>"Decided without it": answered OK with an expected version (or none, for a create) other than
 * the stray value's, or refused by a 412 naming another current version. The stray value is seen
 * through what replicas applied: every value is unique, so its first record names it. Keys as
 * {@link Linearizability} checks them: written conditionally only.
 */
public final class StrayProposals implements Checker {
  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    Map<Key, List<AppliedRecord>> applied = recording.appliedByKey();
    recording
        .opsByKey()
        .forEach(
            (key, ops) -> {
              List<AppliedRecord> records = applied.getOrDefault(key, List.of());
              if (Linearizability.conditionalOnly(ops, records)) {
                check(key, ops, records, violations);
              }
            });
    return violations;
  }

  private void check(
      Key key, List<ClientOp> ops, List<AppliedRecord> records, List<Violation> violations) {
    Map<ByteBuffer, AppliedRecord> firstApplied = new HashMap<>();
    for (AppliedRecord a : records) {
      if (!a.record().tombstone()) {
        firstApplied.putIfAbsent(ByteBuffer.wrap(a.record().value()), a);
      }
    }
    for (ClientOp stray : ops) {
      AppliedRecord late =
          stray.kind().isConditional()
                  && stray.outcome() == Outcome.UNKNOWN
                  && stray.value() != null
              ? firstApplied.get(ByteBuffer.wrap(stray.value()))
              : null;
      if (late == null) {
        continue;
      }
      ops.stream()
          .filter(
              decided ->
                  decided.call() > stray.ret()
                      && decided.ret() < late.at()
                      && decidedWithout(decided, late.record().version()))
          .findFirst()
          .ifPresent(
              decided ->
                  violations.add(
                      new Violation(
                          name(),
                          key.toString(),
                          Describe.op(stray)
                              + " took effect at "
                              + Describe.time(late.at())
                              + " ("
                              + Describe.record(late.record())
                              + " first applied on "
                              + late.node()
                              + "), after "
                              + Describe.op(decided)
                              + " had decided without it")));
    }
  }

  /** Whether {@code op} is a conditional write answered definitely, seeing another version. */
  private static boolean decidedWithout(ClientOp op, Version stray) {
    if (!op.kind().isConditional()) {
      return false;
    }
    return switch (op.outcome()) {
      case OK -> !Objects.equals(op.expected(), stray);
      // A 412 names the current version; a refusal naming none may be an invalid request.
      case REFUSED -> op.version() != null && !op.version().equals(stray);
      case UNKNOWN -> false;
    };
  }
}
