package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Conditional writes are linearizable per key (SPEC §10): for each key, some order of its
 * compare-and-sets, each taking effect between its call and its answer, explains every answer (in
 * the model of {@link Register}, a port of the Go checker's). Searched per key with {@link
 * LinearizationSearch}; a key with more operations than {@link Limits#maxOps}, or whose search
 * takes more than {@link Limits#maxSteps}, is reported as too large to check rather than left to
 * run for ever.
 *
 * <p>Which keys: those written conditionally only. A plain {@code PUT} or {@code DELETE} that may
 * have applied (any outcome but refused) takes a key out: mixing plain writes with conditional ones
 * has last-writer-wins semantics (SPEC §10), which {@link LostWrites} and {@link ReadYourQuorum}
 * check. So do keys with an expiring record among the applied ones: the model has no clock, and an
 * expiry makes the key absent without a write. Plain {@code GET}s are not part of the history (they
 * are not linearizable reads); a linearizable {@code GET} answered is a read of the register,
 * naming the version it read (one without an answer changes nothing and is left out), and so is a
 * conditional write whose expected version no record of the key ever carried and no answer ever
 * named, as in the Go checker.
 */
public final class Linearizability implements Checker {
  private final Limits limits;

  /**
   * How much searching a key may cost.
   *
   * @param maxOps the most conditional writes of one key to search (histories of tens to hundreds
   *     of operations per key check in milliseconds)
   * @param maxSteps the most search steps for one key
   */
  public record Limits(int maxOps, long maxSteps) {
    /**
     * A thousand operations and half a million steps a key: at most about a quarter of a second and
     * a hundred megabytes of memoized states for a key that reaches the limit.
     */
    public static final Limits DEFAULT = new Limits(1000, 500_000);

    public Limits {
      if (maxOps < 1 || maxSteps < 1) {
        throw new IllegalArgumentException("limits must be positive: " + maxOps + ", " + maxSteps);
      }
    }
  }

  /** The verdict on one register's history. */
  public enum Verdict {
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    TOO_LARGE_TO_CHECK
  }

  /** A verdict and what explains it (the operation no order can place, or the limit reached). */
  public record Result(Verdict verdict, String explanation) {}

  public Linearizability(Limits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
  }

  public Linearizability() {
    this(Limits.DEFAULT);
  }

  /** Whether one register's history is linearizable, within {@code limits}. */
  public static Result check(List<CasOp> history, Limits limits) {
    if (history.size() > limits.maxOps()) {
      return new Result(
          Verdict.TOO_LARGE_TO_CHECK,
          history.size()
              + " operations, more than the limit of "
              + limits.maxOps()
              + " (Linearizability.Limits.maxOps)");
    }
    LinearizationSearch.Result found = LinearizationSearch.search(history, limits.maxSteps());
    if (!found.finished()) {
      return new Result(
          Verdict.TOO_LARGE_TO_CHECK,
          found.explanation()
              + " over "
              + history.size()
              + " operations"
              + " (Linearizability.Limits.maxSteps)");
    }
    return new Result(
        found.linearizable() ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE,
        found.explanation());
  }

  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    Map<Key, List<AppliedRecord>> applied = recording.appliedByKey();
    recording
        .opsByKey()
        .forEach(
            (key, ops) -> {
              List<AppliedRecord> records = applied.getOrDefault(key, List.of());
              if (!conditionalOnly(ops, records)) {
                return;
              }
              List<CasOp> history = history(ops, records);
              Result result = check(history, limits);
              if (result.verdict() != Verdict.LINEARIZABLE) {
                String what =
                    result.verdict() == Verdict.NOT_LINEARIZABLE
                        ? " are not linearizable: "
                        : " are too large to check: ";
                violations.add(
                    new Violation(
                        name(),
                        key.toString(),
                        "the "
                            + history.size()
                            + " conditional writes"
                            + what
                            + result.explanation()));
              }
            });
    return violations;
  }

  private static boolean conditionalOnly(List<ClientOp> ops, List<AppliedRecord> records) {
    boolean conditional = false;
    for (ClientOp op : ops) {
      if (op.kind().isWrite() && !op.kind().isConditional() && op.outcome() != Outcome.REFUSED) {
        return false;
      }
      conditional |= op.kind().isConditional();
    }
    return conditional && records.stream().noneMatch(a -> a.record().hasExpiry());
  }

  /**
   * The key's conditional writes as compare-and-sets, telling reads by their expected version. A
   * write without an answer whose value some replica applied was chosen (a round commits only what
   * a majority accepted) at the version it was applied with, before it was first applied: it is
   * placed as a success that returned then. Every written value is unique, so its record names it.
   * One whose value no replica applied is left out: had it been chosen, a later round would have
   * found and committed it, so no answer saw it.
   */
  private static List<CasOp> history(List<ClientOp> ops, List<AppliedRecord> records) {
    Set<Version> issued = new HashSet<>();
    records.forEach(a -> issued.add(a.record().version()));
    ops.stream().map(ClientOp::version).filter(Objects::nonNull).forEach(issued::add);
    Map<ByteBuffer, AppliedRecord> firstApplied = new HashMap<>();
    for (AppliedRecord a : records) {
      if (!a.record().tombstone()) {
        firstApplied.putIfAbsent(ByteBuffer.wrap(a.record().value()), a);
      }
    }
    List<CasOp> history = new ArrayList<>();
    for (ClientOp op : ops) {
      if (op.kind() == OpKind.GET_LINEARIZABLE && op.outcome() == Outcome.OK) {
        // A read of the register: refused whatever it expects, naming the current version.
        history.add(
            new CasOp(
                op.client(),
                op.call(),
                op.ret(),
                true,
                false,
                null,
                Outcome.REFUSED,
                op.version()));
        continue;
      }
      if (op.kind().isConditional()) {
        boolean read = op.expected() != null && !issued.contains(op.expected());
        AppliedRecord chosen =
            op.outcome() == Outcome.UNKNOWN && op.value() != null
                ? firstApplied.get(ByteBuffer.wrap(op.value()))
                : null;
        if (op.outcome() == Outcome.UNKNOWN && op.value() != null && chosen == null) {
          // Never applied anywhere: not chosen, or chosen without any later round committing it,
          // so that nothing could observe it. Either way no answer depends on it.
          continue;
        }
        if (chosen != null) {
          history.add(
              new CasOp(
                  op.client(),
                  op.call(),
                  Math.max(op.call(), chosen.at()),
                  read,
                  false,
                  op.expected(),
                  Outcome.OK,
                  chosen.record().version()));
          continue;
        }
        history.add(
            new CasOp(
                op.client(),
                op.call(),
                op.ret(),
                read,
                op.kind().deletes(),
                op.expected(),
                op.outcome(),
                op.outcome() == Outcome.UNKNOWN ? null : op.version()));
      }
    }
    return history;
  }
}
