package io.kvorum.bench.report;

import io.kvorum.bench.measure.Usage;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The nodes' CPU over a window without requests.
 *
 * @param when {@code just after start} or {@code once warm}
 * @param percentByNode each node's CPU in percent of one core
 * @param usage what the nodes used in the window, by pool too
 */
public record IdleCpu(String when, List<Double> percentByNode, Usage usage) {
  public static final String JUST_STARTED = "just after start";
  public static final String ONCE_WARM = "once warm";

  public IdleCpu {
    percentByNode = List.copyOf(percentByNode);
  }

  /** The nodes' CPU together, in percent of one core. */
  public double sum() {
    return percentByNode.stream().mapToDouble(Double::doubleValue).sum();
  }

  /** The mean node's CPU, in percent of one core. */
  public double mean() {
    return percentByNode.isEmpty() ? Double.NaN : sum() / percentByNode.size();
  }

  /** E.g. {@code 4.5% of a core per node (4.1, 4.6, 4.8; 13.5% together)}. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s%% of a core per node (%s; %s%% together)",
        Table.number(mean()),
        percentByNode.stream().map(Table::number).collect(Collectors.joining(", ")),
        Table.number(sum()));
  }
}
