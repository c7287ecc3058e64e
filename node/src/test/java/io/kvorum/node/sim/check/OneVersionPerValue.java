package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A value is never written at two versions. The simulator's clients write every value once, so a
 * value's one version is the one its coordinator gave it (a conditional write's value proposed
 * again keeps it, as does a loaded record); the same value applied anywhere at another version
 * means a node forged a write: a repair, a hint or a round that re-versioned what it carried, which
 * last- writer-wins then lets win over newer writes. Tombstones carry no value and are not checked.
 */
public final class OneVersionPerValue implements Checker {
  @Override
  public List<Violation> check(Recording recording) {
    List<Violation> violations = new ArrayList<>();
    recording
        .appliedByKey()
        .forEach(
            (key, applied) -> {
              Map<ByteBuffer, AppliedRecord> first = new TreeMap<>();
              for (AppliedRecord a : applied) {
                if (a.record().tombstone()) {
                  continue;
                }
                AppliedRecord earlier = first.putIfAbsent(ByteBuffer.wrap(a.record().value()), a);
                if (earlier != null && !earlier.record().version().equals(a.record().version())) {
                  violations.add(violation(key, earlier, a));
                  first.put(ByteBuffer.wrap(a.record().value()), a);
                }
              }
            });
    return violations;
  }

  private Violation violation(Key key, AppliedRecord first, AppliedRecord again) {
    Version was = first.record().version();
    return new Violation(
        name(),
        key.toString(),
        "the value "
            + Describe.value(again.record().value())
            + " was applied at "
            + was
            + " on "
            + first.node()
            + " at "
            + Describe.time(first.at())
            + ", then at "
            + again.record().version()
            + " on "
            + again.node()
            + " at "
            + Describe.time(again.at())
            + ": a node wrote it again under another version");
  }
}
