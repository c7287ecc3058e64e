package io.kvorum.node.cli;

import io.kvorum.node.cli.admin.DecommissionCommand;
import io.kvorum.node.cli.admin.RemoveCommand;
import io.kvorum.node.cli.admin.RepairCommand;
import io.kvorum.node.cli.admin.SnapshotCommand;
import io.kvorum.node.cli.admin.StatusCommand;
import io.kvorum.node.cli.backup.BackupCommand;
import io.kvorum.node.cli.backup.RestoreCommand;
import io.kvorum.node.cli.backup.RestoreNodeCommand;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.data.BatchCommand;
import io.kvorum.node.cli.data.DeleteCommand;
import io.kvorum.node.cli.data.GetCommand;
import io.kvorum.node.cli.data.PutCommand;
import io.kvorum.node.cli.data.ScanCommand;
import io.kvorum.node.cli.data.WatchCommand;
import io.kvorum.node.cli.load.LoadCommand;
import io.kvorum.node.config.ConfigException;
import io.kvorum.node.config.LogFormat;
import io.kvorum.node.config.NodeConfig;
import io.kvorum.node.config.NodeOptions;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Release;
import io.kvorum.node.server.KvorumServer;
import java.security.Security;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import sun.misc.Signal;

/**
 * {@code kvorum-node}: runs one node of a kvorum cluster until SIGTERM or SIGINT, then shuts down
 * gracefully and exits 0. Invalid configuration exits 2 with one line on stderr.
 */
@Command(
    name = "kvorum-node",
    mixinStandardHelpOptions = true,
    versionProvider = KvorumNode.Version.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    header = "Runs a node of kvorum, a Dynamo-style distributed key-value store.",
    description = {
      "",
      "Clients use the HTTP API on --http-port (GET/PUT/DELETE /v0/entity?id=KEY);"
          + " nodes talk to each other on --grpc-port.",
      "Every flag can also be set by an environment variable: --http-port is KVORUM_HTTP_PORT,"
          + " and so on. A flag wins over its variable.",
      ""
    },
    footer = {
      "",
      "Example, one node:",
      "  kvorum-node --node-id n1 --http-port 8080 --grpc-port 9090 --data-dir /var/lib/kvorum",
      "  curl -X PUT --data-binary 'hello' 'http://localhost:8080/v0/entity?id=greeting'",
      "  curl 'http://localhost:8080/v0/entity?id=greeting'",
      "",
      "Example, a cluster of three (every node gets the same --peers, itself included):",
      "  kvorum-node --node-id n1 --peers n1=10.0.0.1:9090,n2=10.0.0.2:9090,n3=10.0.0.3:9090",
      "",
      "A three-node cluster on this machine, for a first try:",
      "  kvorum-node local --nodes 3",
      "",
      "The cluster as a node sees it, a node leaving it, a dead node removed, a repair (they ask"
          + " the node at localhost:8080 by default; --wait follows the work to its end):",
      "  kvorum-node status --host 10.0.0.1",
      "  kvorum-node decommission --host 10.0.0.3 --wait",
      "  kvorum-node remove --host 10.0.0.1 n2",
      "  kvorum-node repair --host 10.0.0.1 --wait",
      "",
      "Exit codes: 0 stopped normally, 2 invalid configuration, 1 unexpected failure."
    })
public final class KvorumNode implements Callable<Integer> {
  /** The sub-commands, in the order {@code --help} lists them. */
  private static final List<Class<?>> SUBCOMMANDS =
      List.of(
          LocalClusterCommand.class,
          TrainCommand.class,
          StatusCommand.class,
          DecommissionCommand.class,
          RemoveCommand.class,
          RepairCommand.class,
          SnapshotCommand.class,
          LoadCommand.class,
          BackupCommand.class,
          RestoreCommand.class,
          RestoreNodeCommand.class,
          NodeZoneCommand.class,
          HealthCheckCommand.class,
          GetCommand.class,
          PutCommand.class,
          DeleteCommand.class,
          ScanCommand.class,
          BatchCommand.class,
          WatchCommand.class);

  private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

  @Mixin private NodeOptions options = new NodeOptions();

  public static void main(String[] args) {
    // Peers appear in DNS only when they start (containers, Kubernetes pods) and change address
    // when they are rescheduled: the JVM's default 10 s cache of failed lookups would keep a node
    // blind to a peer for that long after it came up, so failures are remembered for 1 s and
    // answers for 5 s.
    Security.setProperty("networkaddress.cache.negative.ttl", "1");
    Security.setProperty("networkaddress.cache.ttl", "5");
    System.exit(commandLine(args).execute(args));
  }

  /** The command line of {@code kvorum-node} and its sub-commands, with their error handling. */
  public static CommandLine commandLine() {
    return commandLine(SUBCOMMANDS);
  }

  /**
   * The command line that {@code args} need: the node alone when they start one, that sub-command
   * alone when they name one first, else all of them (help; a misspelt name, which picocli then
   * suggests). picocli reads every option of every command it is given, and its classes, compiled
   * for Java 5, are verified at each start because the JDK's AOT cache cannot hold them: a node and
   * {@code local} start sooner without the commands they do not run
   * (docs/decisions/start-up-pays-only-for-what-the-node-runs.md).
   */
  static CommandLine commandLine(String[] args) {
    List<String> given = List.of(args);
    Map<String, Class<?>> byName = new LinkedHashMap<>();
    for (Class<?> command : SUBCOMMANDS) {
      byName.put(command.getAnnotation(Command.class).name(), command);
    }
    if (!given.isEmpty() && byName.containsKey(given.getFirst())) {
      return commandLine(List.of(byName.get(given.getFirst())));
    }
    boolean runsANode =
        !given.isEmpty()
            && given.getFirst().startsWith("-")
            && given.stream().noneMatch(arg -> HELP.contains(arg) || byName.containsKey(arg));
    return commandLine(runsANode ? List.of() : SUBCOMMANDS);
  }

  private static CommandLine commandLine(List<Class<?>> subcommands) {
    CommandLine cli = new CommandLine(new KvorumNode());
    subcommands.forEach(cli::addSubcommand);
    cli.setParameterExceptionHandler(
        (e, args) -> {
          e.getCommandLine()
              .getErr()
              .println("kvorum-node: " + e.getMessage() + " (see kvorum-node --help)");
          return ExitCodes.CONFIG;
        });
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof ConfigException config) {
            commandLine.getErr().println("kvorum-node: " + config.getMessage());
            return ExitCodes.CONFIG;
          }
          commandLine.getErr().println("kvorum-node: failed: " + e);
          e.printStackTrace(commandLine.getErr());
          return ExitCodes.FAILURE;
        });
    return cli;
  }

  @Override
  public Integer call() throws InterruptedException {
    LogFormat format = options.logFormat();
    NodeConfig config = options.toConfig();
    configureLogging(format, config.nodeId());
    KvorumServer node = KvorumServer.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread stopper =
        new Thread(
            () -> {
              node.shutdown();
              stopped.countDown();
            },
            "kvorum-shutdown");
    // A JVM stopped by a signal exits 128+n; handling the signals ourselves lets a graceful stop
    // exit 0, as process supervisors expect.
    Signal.handle(new Signal("TERM"), signal -> startOnce(stopper));
    Signal.handle(new Signal("INT"), signal -> startOnce(stopper));
    Runtime.getRuntime().addShutdownHook(new Thread(node::shutdown, "kvorum-shutdown-hook"));
    // A decommissioned node has handed its records over and left: it stops as on SIGTERM.
    node.left().thenRun(() -> startOnce(stopper));
    stopped.await();
    return ExitCodes.OK;
  }

  /**
   * Chooses the appender of logback.xml and puts the node id in every JSON line. Logback reads both
   * properties once, when the first logger is created: nothing may log before this.
   */
  private static void configureLogging(LogFormat format, NodeId node) {
    System.setProperty("kvorum.log.format", format.appender());
    System.setProperty("kvorum.node.id", node.value());
    routeJavaUtilLogging();
  }

  /**
   * What gRPC logs through java.util.logging goes through logback, in the node's format and at the
   * levels logback.xml gives, instead of the JDK's two-line records on stderr.
   */
  static void routeJavaUtilLogging() {
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
  }

  private static synchronized void startOnce(Thread thread) {
    if (thread.getState() == Thread.State.NEW) {
      thread.start();
    }
  }

  /** The release the build wrote into the node (the same in a jar and in a test's classes). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kvorum-node " + Release.version()};
    }
  }
}
