package io.kvorum.node.consensus.round;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Record;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A counter register under compare-and-set, checked on a {@link History}: the values the register
 * took form one chain from the first write to the last, each computed from the one before it; every
 * value a quorum accepted and every success answered is in that chain, no operation is in it twice,
 * a refusal answered a value of the chain, and the chain respects real time (an operation answered
 * before another began comes first).
 */
final class RegisterSpecification {
  private RegisterSpecification() {}

  static void check(History history, Optional<Record> last, String seed) {
    List<Record> chain = chain(history, last, seed);
    Map<Record, Integer> position = new HashMap<>();
    for (int i = 0; i < chain.size(); i++) {
      position.put(chain.get(i), i);
      assertThat(PaxosSimulation.counter(chain.get(i))).as(seed).isEqualTo(i + 1L);
    }
    Set<Long> seen = new HashSet<>();
    for (Record r : chain) {
      assertThat(seen.add(PaxosSimulation.operation(r)))
          .as("%s: operation %d applied twice", seed, PaxosSimulation.operation(r))
          .isTrue();
    }
    int previous = -1;
    for (Proposal chosen : history.chosen) {
      int at = chosen.value().map(v -> position.getOrDefault(v, -2)).orElse(-1);
      assertThat(at)
          .as("%s: chosen %s is lost or out of order", seed, chosen)
          .isGreaterThanOrEqualTo(previous);
      previous = at;
    }
    int applied = 0;
    int unknown = 0;
    for (History.Operation op : history.operations) {
      switch (op.result) {
        case APPLIED -> {
          applied++;
          assertThat(position).as("%s: %s lost", seed, op).containsKey(op.written);
        }
        case REFUSED ->
            assertThat(op.current.map(c -> position.containsKey(c)).orElse(true))
                .as("%s: %s refused on a value never taken", seed, op)
                .isTrue();
        default -> unknown++;
      }
    }
    assertThat(chain.size()).as(seed).isBetween(applied, applied + unknown);
    realTime(history, position, seed);
  }

  private static List<Record> chain(History history, Optional<Record> last, String seed) {
    List<Record> chain = new ArrayList<>();
    Record at = last.orElse(null);
    while (at != null) {
      chain.add(0, at);
      long parent = PaxosSimulation.parent(at);
      if (parent < 0) {
        break;
      }
      at = history.proposed.get(parent);
      assertThat(at)
          .as("%s: the parent %d of a value was never proposed", seed, parent)
          .isNotNull();
    }
    return chain;
  }

  private static void realTime(History history, Map<Record, Integer> position, String seed) {
    for (History.Operation a : history.operations) {
      if (a.result != History.Result.APPLIED) {
        continue;
      }
      int ia = position.get(a.written);
      for (History.Operation b : history.operations) {
        if (b.start <= a.end) {
          continue;
        }
        if (b.result == History.Result.APPLIED) {
          assertThat(position.get(b.written)).as("%s: %s before %s", seed, a, b).isGreaterThan(ia);
        } else if (b.result == History.Result.REFUSED) {
          int ib = b.current.map(position::get).orElse(-1);
          assertThat(ib)
              .as("%s: %s saw a value older than %s", seed, b, a)
              .isGreaterThanOrEqualTo(ia);
        }
      }
    }
  }
}
