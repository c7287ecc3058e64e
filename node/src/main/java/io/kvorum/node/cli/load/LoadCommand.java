package io.kvorum.node.cli.load;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.kvorum.node.cli.admin.ProgressLine;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.server.RecordSources;
import io.kvorum.node.storage.RecordSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node load}: streams the records of a snapshot directory, or of a stopped node's
 * data directory, into a running cluster of any size through one node's {@code /v0/load}, each
 * record with its version, tombstone and expiry (SPEC §11, as Cassandra's {@code sstableloader}).
 * Loading twice changes nothing, and a record the cluster holds in a newer version stays.
 */
@Command(
    name = "load",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Streams the records of a snapshot or a stopped node's data into a running cluster.",
    description = {
      "",
      "Reads the records of --from (a snapshot, <data-dir>/snapshots/NAME, or the data directory"
          + " of a stopped node) without changing it, and sends them in batches to the node at"
          + " --host and --port, which writes each one to a majority of its replicas in this"
          + " cluster, whatever its size, with the version, tombstone and expiry it had. A record"
          + " the cluster holds in a newer version stays (last writer wins), so loading twice, or"
          + " again after a failure, changes nothing. To restore a cluster, load the snapshots of"
          + " all its nodes, one after the other.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 every record loaded, 1 a batch was refused or the cluster could not be"
          + " reached (named; run the same command again), or --from cannot be read or is in use"
          + " by a running node, 2 bad options."
    })
public final class LoadCommand implements Callable<Integer> {
  private static final int ATTEMPTS = 6;
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);

  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Option(
      names = "--from",
      required = true,
      paramLabel = "DIR",
      description = "A snapshot directory, or the data directory of a stopped node.")
  Path from;

  @Option(
      names = "--rate",
      defaultValue = "0",
      paramLabel = "RECORDS",
      description =
          "At most this many records a second; 0 for as fast as the cluster takes them."
              + " Default: ${DEFAULT-VALUE}.")
  int rate;

  @Option(
      names = "--batch",
      defaultValue = "500",
      paramLabel = "RECORDS",
      description =
          "Records in one request (fewer when they pass 1 MiB). Default: ${DEFAULT-VALUE}.")
  int batch;

  @Option(
      names = "--parallel",
      defaultValue = "4",
      paramLabel = "N",
      description = "Batches in flight at once. Default: ${DEFAULT-VALUE}.")
  int parallel;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "A file whose first line is an admin token, for a cluster run with --auth-tokens"
              + " (instead of --token or KVORUM_TOKEN).")
  Path tokenFile;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String invalid = invalidOption();
    if (invalid != null) {
      err.println("kvorum-node load: " + invalid);
      return ExitCodes.CONFIG;
    }
    Path database = RecordSources.databaseIn(from);
    if (database == null) {
      err.println(
          "kvorum-node load: --from "
              + from
              + " holds no database: give a snapshot (<data-dir>/snapshots/NAME) or a node's"
              + " data directory");
      return ExitCodes.CONFIG;
    }
    NodeConnection connection;
    try {
      String token = tokenFile == null ? node.token() : token(tokenFile);
      connection = node.connect(node.baseUrl(), token, BatchSender.TIMEOUT);
    } catch (IOException e) {
      err.println("kvorum-node load: --token-file " + tokenFile + " cannot be read: " + e);
      return ExitCodes.CONFIG;
    } catch (Unreachable e) {
      err.println("kvorum-node load: " + e.getMessage());
      return ExitCodes.CONFIG;
    }
    try (BatchSender sender = new BatchSender(connection, ATTEMPTS, FIRST_BACKOFF);
        RecordSource reader = RecordSources.open(database)) {
      LoadProgress progress =
          new LoadProgress(
              err, ProgressLine.terminal(), reader.estimatedRecords(), System::nanoTime);
      Loader loader = new Loader(sender, limiter(), progress, batch, parallel);
      Loader.Result result = loader.load(reader);
      progress.finish();
      if (result.failure() != null) {
        err.println(
            "kvorum-node load: stopped after "
                + String.format(Locale.ROOT, "%,d", progress.records())
                + " records: "
                + result.failure()
                + ". Loading again is safe: records already loaded change nothing.");
        return ExitCodes.FAILURE;
      }
      out.println(summary(database, result, progress));
      out.flush();
      return ExitCodes.OK;
    } catch (KvorumException e) {
      err.println("kvorum-node load: " + e.getMessage());
      return ExitCodes.FAILURE;
    }
  }

  private String invalidOption() {
    if (rate < 0) {
      return "--rate must be 0 (no limit) or more records a second, not " + rate;
    }
    if (batch < 1 || batch > 10_000) {
      return "--batch must be 1..10000 records, not " + batch;
    }
    if (parallel < 1 || parallel > 64) {
      return "--parallel must be 1..64, not " + parallel;
    }
    return null;
  }

  private String summary(Path database, Loader.Result result, LoadProgress progress) {
    double seconds = progress.seconds();
    return String.format(
        Locale.ROOT,
        "loaded %,d records (%,d values, %,d of them expiring; %,d tombstones) from %s into %s"
            + " in %.1f s: %,.0f records/s, %.1f MB/s",
        progress.records(),
        result.values(),
        result.expiring(),
        result.tombstones(),
        database,
        node.baseUrl(),
        seconds,
        progress.records() / seconds,
        progress.bytes() / 1e6 / seconds);
  }

  /**
   * A limiter of {@code --rate} records a second, in small steps rather than one burst a second.
   */
  private RateLimiter limiter() {
    if (rate == 0) {
      return null;
    }
    int step = Math.max(1, rate / 20);
    return RateLimiter.of(
        "load",
        RateLimiterConfig.custom()
            .limitForPeriod(step)
            .limitRefreshPeriod(Duration.ofNanos(1_000_000_000L * step / rate))
            .timeoutDuration(Duration.ofMinutes(1))
            .build());
  }

  private static String token(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || lines.get(0).isBlank()) {
      throw new IOException("its first line is empty");
    }
    return lines.get(0).strip();
  }
}
