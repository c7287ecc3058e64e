package io.kvorum.node.testing;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (or a Grafana {@code label_values(...)} query) selects, so
 * that a test can check them against a node's {@code /metrics}. Not a parser: it drops what is not
 * a metric name (strings, label matchers, ranges, grouping clauses, functions, keywords) and keeps
 * the identifiers left, which is exact for the expressions dashboards and alerts are made of.
 */
public final class PromQl {
  private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
  private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][\\w:]*+)\\s*(?:,[^)]*)?\\)");
  // An identifier not inside a word or a $variable, and not the name of a function being called.
  private static final Pattern IDENTIFIER =
      Pattern.compile("(?<![\\w:$.])([a-zA-Z_:][\\w:]*+)(?!\\s*\\()");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "inf", "nan");

  private PromQl() {}

  /** The metric names {@code expression} selects, e.g. {@code kvorum_hints_pending}. */
  public static Set<String> metricNames(String expression) {
    String rest = STRING.matcher(expression).replaceAll("\"\"");
    rest = MATCHERS.matcher(rest).replaceAll(" ");
    rest = LABEL_VALUES.matcher(rest).replaceAll("$1");
    rest = RANGE.matcher(rest).replaceAll(" ");
    rest = GROUPING.matcher(rest).replaceAll(" ");
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(rest);
    while (m.find()) {
      if (!KEYWORDS.contains(m.group(1).toLowerCase(Locale.ROOT))) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  /**
   * The metric names that {@code histogram_quantile} reads in {@code expression}: each must be the
   * {@code _bucket} series of a histogram.
   */
  public static Set<String> quantileInputs(String expression) {
    Set<String> names = new TreeSet<>();
    int at = expression.indexOf("histogram_quantile(");
    while (at >= 0) {
      int depth = 0;
      int end = at + "histogram_quantile".length();
      do {
        char c = expression.charAt(end++);
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      } while (depth > 0);
      names.addAll(metricNames(expression.substring(at + "histogram_quantile".length(), end)));
      at = expression.indexOf("histogram_quantile(", end);
    }
    return names;
  }
}
