package io.kvorum.node.sim.check;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A short text report of a failing seed: counts per checker, then the first violations. */
public final class Report {
  private Report() {}

  /**
   * Renders {@code violations} of the run of {@code seed}: a first line with the counts per
   * checker, then at most {@code limit} violations, one a line, and how many more there are.
   */
  public static String render(long seed, List<Violation> violations, int limit) {
    if (violations.isEmpty()) {
      return "seed " + seed + ": no violations";
    }
    Map<String, Integer> counts = new TreeMap<>();
    violations.forEach(v -> counts.merge(v.checker(), 1, Integer::sum));
    StringBuilder text =
        new StringBuilder("seed ")
            .append(seed)
            .append(": ")
            .append(violations.size())
            .append(violations.size() == 1 ? " violation (" : " violations (");
    String separator = "";
    for (Map.Entry<String, Integer> count : counts.entrySet()) {
      text.append(separator).append(count.getKey()).append(' ').append(count.getValue());
      separator = ", ";
    }
    text.append(')');
    violations.stream().limit(limit).forEach(v -> text.append("\n  ").append(v));
    if (violations.size() > limit) {
      text.append("\n  … and ").append(violations.size() - limit).append(" more");
    }
    return text.toString();
  }
}
