package io.kvorum.node.sim.check;

import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Paxos's own safety property, seen from the acceptors: once a quorum accepted a proposal at a
 * ballot (the key's value was chosen there), every proposal accepted at a higher ballot carries
 * that value or one written at a ballot above it. A round computes its value from what its quorum
 * holds, and that quorum meets the one that chose, so it can only go on from the chosen value (or
 * from a value a round above it wrote). A round that finishes an older proposal instead brings back
 * a value the chosen one superseded, which no client answer may show (the older proposal's writer
 * got a {@code 504}, and a {@code 504} may take effect late): the unsafe purge rule of issue 26
 * ({@link io.kvorum.node.core.PlantedBug#UNSAFE_PAXOS_PURGE}) does exactly that.
 *
 * <p>Checked on the keys written only conditionally: a plain write versioned below a ballot may win
 * over a chosen value by last-writer-wins, as it is allowed to. A chosen tombstone or value with a
 * time to live may be purged once dead, so a key absent again is its successor. Chosen means
 * accepted by {@code quorum} acceptors at the same ballot: the simulator's keys have three replicas
 * and no membership change (a run whose membership changed records no acceptances).
 */
public final class ChosenStaysChosen implements Checker {
  private final int quorum;

  /** Chosen means accepted by {@code quorum} acceptors at one ballot. */
  public ChosenStaysChosen(int quorum) {
    this.quorum = quorum;
  }

  @Override
  public List<Violation> check(Recording recording) {
    Set<Key> plain = new HashSet<>();
    for (ClientOp op : recording.ops()) {
      if (op.kind().isWrite() && !op.kind().isConditional()) {
        plain.add(op.key());
      }
    }
    Map<Key, List<Acceptance>> byKey = new TreeMap<>();
    for (Acceptance a : recording.accepted()) {
      if (!plain.contains(a.key())) {
        byKey.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(a);
      }
    }
    List<Violation> violations = new ArrayList<>();
    byKey.forEach((key, accepted) -> check(key, accepted, violations));
    return violations;
  }

  private void check(Key key, List<Acceptance> accepted, List<Violation> violations) {
    Map<Ballot, Set<NodeId>> acceptors = new HashMap<>();
    TreeMap<Ballot, Acceptance> chosen = new TreeMap<>();
    for (Acceptance a : accepted) {
      Ballot ballot = a.proposal().ballot();
      Set<NodeId> nodes = acceptors.computeIfAbsent(ballot, b -> new HashSet<>());
      if (nodes.add(a.node()) && nodes.size() == quorum) {
        chosen.put(ballot, a);
      }
    }
    for (Acceptance a : accepted) {
      Map.Entry<Ballot, Acceptance> below = chosen.lowerEntry(a.proposal().ballot());
      if (below != null && !goesOnFrom(a.proposal(), below.getValue().proposal())) {
        violations.add(violation(key, a, below.getValue()));
        return;
      }
    }
  }

  /** Whether {@code later}, accepted above {@code chosen}'s ballot, goes on from its value. */
  private static boolean goesOnFrom(Proposal later, Proposal chosen) {
    if (version(later).equals(version(chosen))
        || version(later).compareTo(chosen.ballot().version()) > 0) {
      return true;
    }
    return later.value().isEmpty()
        && chosen.value().map(r -> r.tombstone() || r.hasExpiry()).orElse(true);
  }

  private static Version version(Proposal proposal) {
    return proposal.value().map(Record::version).orElse(Version.ZERO);
  }

  private Violation violation(Key key, Acceptance later, Acceptance chosen) {
    return new Violation(
        name(),
        key.toString(),
        "the proposal "
            + describe(chosen.proposal())
            + " was chosen (a quorum accepted it by "
            + Describe.time(chosen.at())
            + "), then "
            + later.node()
            + " accepted "
            + describe(later.proposal())
            + " at "
            + Describe.time(later.at())
            + ": a higher ballot went on from a value older than the chosen one");
  }

  private static String describe(Proposal proposal) {
    return proposal.value().map(Describe::record).orElse("absent")
        + " at ballot "
        + proposal.ballot();
  }
}
