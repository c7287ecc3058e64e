package io.kvorum.node.sim.check;

import io.kvorum.node.core.Version;
import java.util.Objects;
import java.util.Set;

/**
 * The state of one register under compare-and-set, in the model of the Go checker ({@code
 * node/src/test/go/linearizability/main.go}): the version of its current value, or absent, or the
 * unknown version of a write that timed out and applied.
 *
 * <p>An unknown write that applied leaves a version nobody saw answered, newer than the one it
 * replaced: any expected version that no OK answered matches it if newer than the replaced one.
 * Once a refusal names the current version, the register is at that version. (Without those two
 * rules the model let an unknown state match the version of an earlier unknown write, and rejected
 * the linearizable history of CI run 18.) One rule the Go model never needed: a delete that applies
 * leaves the register absent, as a deleted key is to {@code If-None-Match: *} (SPEC §10), whatever
 * its tombstone's version.
 *
 * @param tag the current version; null when absent or unknown
 * @param unknownOp the index of the timed-out write that made an unknown state; -1 when known
 * @param replaced for an unknown state, the version that write replaced (null: absent)
 */
record Register(Version tag, int unknownOp, Version replaced) {
  static final Register ABSENT = new Register(null, -1, null);

  static Register at(Version tag) {
    return tag == null ? ABSENT : new Register(tag, -1, null);
  }

  /**
   * The state after operation {@code id} takes effect here, or null if its answer cannot be
   * explained from this state.
   *
   * @param answered every version some write was answered OK with
   */
  Register step(int id, CasOp op, Set<Version> answered) {
    boolean holds = !op.read() && isAt(op.expect(), answered);
    return switch (op.result()) {
      case OK -> holds ? (op.delete() ? ABSENT : at(op.tag())) : null;
      case REFUSED -> !holds && isAt(op.tag(), answered) ? at(op.tag()) : null;
      case UNKNOWN -> {
        if (!holds) {
          yield this;
        }
        yield op.delete() ? ABSENT : new Register(null, id, replacedTag());
      }
    };
  }

  private boolean isAt(Version version, Set<Version> answered) {
    if (unknownOp < 0) {
      return Objects.equals(tag, version);
    }
    return version != null
        && !answered.contains(version)
        && (replaced == null || version.compareTo(replaced) > 0);
  }

  private Version replacedTag() {
    return unknownOp < 0 ? tag : replaced;
  }

  @Override
  public String toString() {
    if (unknownOp >= 0) {
      return "an unknown version above " + Describe.version(replaced);
    }
    return Describe.version(tag);
  }
}
