package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KvorumNodeTest {
  private static final String[] NODE = {"--node-id", "n1", "--http-port", "8080"};

  @Test
  void aNodeIsStartedWithoutTheSubcommandsItDoesNotRun() {
    assertThat(KvorumNode.commandLine(NODE).getSubcommands()).isEmpty();
    assertThat(KvorumNode.commandLine(new String[] {"local", "--nodes", "3"}).getSubcommands())
        .containsOnlyKeys("local");
  }

  @Test
  void helpAnErrorOrANameAnywhereGetEverySubcommand() {
    var all = KvorumNode.commandLine().getSubcommands().keySet();
    assertThat(all).hasSize(19).contains("local", "get", "backup", "restore-node");

    assertThat(KvorumNode.commandLine(new String[0]).getSubcommands()).containsOnlyKeys(all);
    assertThat(KvorumNode.commandLine(new String[] {"--help"}).getSubcommands())
        .containsOnlyKeys(all);
    assertThat(KvorumNode.commandLine(new String[] {"lcoal"}).getSubcommands())
        .containsOnlyKeys(all);
    assertThat(
            KvorumNode.commandLine(new String[] {"--log-format", "json", "local"}).getSubcommands())
        .containsOnlyKeys(all);
  }

  @Test
  void aBadFlagOfANodeIsStillAConfigurationError() {
    CommandLine cli = KvorumNode.commandLine(new String[] {"--node-id", "n1", "--bogus"});
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));

    assertThat(cli.execute("--node-id", "n1", "--bogus")).isEqualTo(ExitCodes.CONFIG);
    assertThat(err.toString()).contains("--bogus").contains("(see kvorum-node --help)");
  }
}
