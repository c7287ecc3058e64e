package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.RepositoryScripts;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code docs/configuration.md} cannot go stale (issue 27): its option tables list exactly the
 * options of {@code kvorum-node} as picocli knows them, each with its environment variable and its
 * default.
 */
class ConfigurationDocTest {
  /** A row of an option table: flag, variable, default, meaning. */
  private static final Pattern ROW =
      Pattern.compile(
          "^\\| `(--[a-z-]+)` \\| `(KVORUM_[A-Z_]+)` \\| ([^|]*) \\|", Pattern.MULTILINE);

  /** {@code ${env:KVORUM_X:-default}}, or without a default. */
  private static final Pattern ENV_DEFAULT =
      Pattern.compile("^\\$\\{env:(KVORUM_[A-Z_]+)(?::-(.*))?}$");

  private record Documented(String variable, String defaultColumn) {}

  @Test
  void everyOptionOfTheNodeIsDocumentedWithItsVariableAndDefaultAndNothingElseIs()
      throws Exception {
    String doc = Files.readString(RepositoryScripts.repository().resolve("docs/configuration.md"));
    Map<String, Documented> documented = new TreeMap<>();
    Matcher row = ROW.matcher(doc);
    while (row.find()) {
      documented.put(row.group(1), new Documented(row.group(2), row.group(3).trim()));
    }
    Map<String, OptionSpec> options = new TreeMap<>();
    // Uninterpolated, the defaults say their variables: ${env:KVORUM_X:-default}.
    CommandLine.Model.CommandSpec spec =
        new CommandLine(new KvorumNode()).getCommandSpec().interpolateVariables(false);
    for (OptionSpec option : spec.options()) {
      if (!option.usageHelp() && !option.versionHelp()) {
        options.put(option.longestName(), option);
      }
    }

    assertThat(documented.keySet())
        .as("options in docs/configuration.md")
        .isEqualTo(options.keySet());
    List<String> wrong = new ArrayList<>();
    options.forEach(
        (name, option) -> {
          Documented entry = documented.get(name);
          Matcher env = ENV_DEFAULT.matcher(String.valueOf(option.defaultValue()));
          if (!env.matches()) {
            wrong.add(name + ": no KVORUM_ variable in picocli (" + option.defaultValue() + ")");
            return;
          }
          if (!env.group(1).equals(entry.variable())) {
            wrong.add(name + ": documented as " + entry.variable() + ", is " + env.group(1));
          }
          String byDefault = env.group(2);
          if (byDefault != null && !entry.defaultColumn().contains("`" + byDefault + "`")) {
            wrong.add(name + ": default `" + byDefault + "`, documented " + entry.defaultColumn());
          }
        });
    assertThat(wrong).as("rows of docs/configuration.md that disagree with the flags").isEmpty();
  }
}
