package io.kvorum.bench.report;

import io.kvorum.bench.measure.PoolUsage;
import io.kvorum.bench.measure.Usage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the nodes' CPU went, by thread pool ({@link io.kvorum.bench.measure.ThreadPools}): one row
 * per pool, one column per measured interval, the account whose rows add up to the nodes' CPU (less
 * what threads that exited during the interval used).
 */
public final class PoolTable {
  /** How to read a per-request table. */
  public static final String PER_REQUEST =
      "CPU µs per request (context switches per request), summed over the nodes; pools under 1%"
          + " of every column's total are summed as \"other\".";

  /** How to read an idle table. */
  public static final String CORE_SHARE =
      "CPU in % of one core (context switches a second), summed over the nodes; pools under 1%"
          + " of every column's total are summed as \"other\".";

  private static final double SMALL = 0.01;

  private PoolTable() {}

  /**
   * One interval of the table.
   *
   * @param label the column's heading
   * @param requests the requests answered in it, or 0 for an interval without load (the table then
   *     shows shares of a core and switches a second)
   */
  public record Column(String label, Usage usage, double requests) {
    double cpu(PoolUsage pool) {
      return requests > 0
          ? pool.cpuNanos() / 1e3 / requests
          : 100.0 * pool.cpuNanos() / usage.elapsed().toNanos();
    }

    double switches(PoolUsage pool) {
      return requests > 0
          ? pool.switches() / requests
          : pool.switches() / (usage.elapsed().toNanos() / 1e9);
    }
  }

  /** The long runs of a phase, per request. */
  public static String perRequest(List<Run> runs) {
    List<Column> columns = new ArrayList<>();
    for (Run run : runs) {
      columns.add(new Column(Table.rate(run.load()) + "/s", run.usage(), run.load().answered()));
    }
    return table(columns);
  }

  /** The table of these columns. */
  public static String table(List<Column> columns) {
    Map<String, List<PoolUsage>> rows = rows(columns);
    StringBuilder md =
        new StringBuilder(
            Table.header("pool", columns.stream().map(Column::label).toList(), "---:"));
    for (Map.Entry<String, List<PoolUsage>> row : rows.entrySet()) {
      md.append("| ").append(row.getKey()).append(" |");
      for (int i = 0; i < columns.size(); i++) {
        md.append(' ').append(cell(columns.get(i), row.getValue().get(i))).append(" |");
      }
      md.append('\n');
    }
    md.append("| **all live threads** |");
    for (Column column : columns) {
      PoolUsage all =
          column.usage().pools().values().stream().reduce(PoolUsage.NONE, PoolUsage::plus);
      md.append(" **").append(cell(column, all)).append("** |");
    }
    return md.append('\n').toString();
  }

  /**
   * The rows: every pool that took at least 1% of some column's CPU, the largest first (by its
   * largest share of a column), then "other" for the rest.
   */
  static Map<String, List<PoolUsage>> rows(List<Column> columns) {
    Map<String, Double> largestShare = new LinkedHashMap<>();
    for (Column column : columns) {
      long total = column.usage().pools().values().stream().mapToLong(PoolUsage::cpuNanos).sum();
      for (Map.Entry<String, PoolUsage> pool : column.usage().sortedPools().entrySet()) {
        double share = total > 0 ? (double) pool.getValue().cpuNanos() / total : 0;
        largestShare.merge(pool.getKey(), share, Math::max);
      }
    }
    List<String> shown =
        largestShare.entrySet().stream()
            .filter(e -> e.getValue() >= SMALL)
            .sorted(
                Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder())
                    .thenComparing(Map.Entry.comparingByKey()))
            .map(Map.Entry::getKey)
            .toList();
    Map<String, List<PoolUsage>> rows = new LinkedHashMap<>();
    for (String pool : shown) {
      rows.put(pool, columns.stream().map(c -> c.usage().pool(pool)).toList());
    }
    if (shown.size() < largestShare.size()) {
      List<PoolUsage> other = new ArrayList<>();
      for (Column column : columns) {
        other.add(
            column.usage().pools().entrySet().stream()
                .filter(e -> !shown.contains(e.getKey()))
                .map(Map.Entry::getValue)
                .reduce(PoolUsage.NONE, PoolUsage::plus));
      }
      rows.put("other", other);
    }
    return rows;
  }

  private static String cell(Column column, PoolUsage pool) {
    return String.format(
        Locale.ROOT,
        "%s (%s)",
        Table.number(column.cpu(pool)),
        Table.number(column.switches(pool)));
  }
}
