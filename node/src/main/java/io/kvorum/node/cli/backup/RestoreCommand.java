package io.kvorum.node.cli.backup;

import io.kvorum.api.KvorumClientException;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import io.kvorum.node.cli.load.LoadCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node restore --from s3://BUCKET/PREFIX/NAME}: loads a backup into a running cluster
 * of any size, one member's snapshot after the other: fetched into a working directory, every file
 * checked against the manifest, then streamed in by {@code kvorum-node load} (versions, tombstones
 * and expiries kept; loading again changes nothing) and the directory deleted.
 */
@Command(
    name = "restore",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Loads a backup from object storage into a running cluster of any size.",
    description = {
      "",
      "Checks that every object of backup --from (s3://BUCKET/PREFIX/NAME) is there, then for"
          + " each member of the backed-up cluster fetches its snapshot into --work-dir, checks"
          + " every file's SHA-256, and loads it through the node at --host and --port as"
          + " 'kvorum-node load' does: each record with its version, tombstone and expiry, so"
          + " restoring twice, or into a cluster with newer writes, changes nothing newer.",
      "",
      "Into a cluster that serves clients, limit it with --rate: unlimited, its writes go"
          + " through one node as fast as the cluster takes them, and the clients' requests wait"
          + " behind them.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 restored, 1 the cluster or object storage failed (run it again: what was"
          + " loaded changes nothing), 2 bad options, 5 the bucket does not exist, 6 the"
          + " credentials were refused, 7 the backup is damaged (the object named; nothing of that"
          + " member was loaded), 8 a newer release wrote it."
    })
public final class RestoreCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Mixin StorageOptions storage = new StorageOptions();

  @Mixin BackupSource source = new BackupSource();

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description =
          "Where a member's snapshot is fetched before it is loaded (room for the largest one)."
              + " Default: the temporary directory.")
  Path workDir;

  @Option(
      names = "--rate",
      defaultValue = "0",
      paramLabel = "RECORDS",
      description =
          "At most this many records a second, as 'kvorum-node load --rate': the restore's"
              + " writes share the cluster with its clients, and as fast as it goes they can"
              + " wait seconds behind it; 0 for no limit. Default: ${DEFAULT-VALUE}.")
  int rate;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rate < 0) {
      err.println(
          "kvorum-node restore: --rate must be 0 (no limit) or more records a second, not " + rate);
      err.flush();
      return ExitCodes.CONFIG;
    }
    try {
      StorageLocation backup = source.location();
      checkNode();
      try (ObjectStore store = ObjectStore.open(storage, backup.parent())) {
        BackupManifest manifest = new Backups(store).read(backup.last());
        Transfers transfers = new Transfers(err, "fetched");
        transfers.expect(manifest.bytes());
        Fetch fetch = new Fetch(store, transfers);
        List<String> missing = fetch.missing(manifest);
        if (!missing.isEmpty()) {
          throw Fetch.damaged(manifest.name(), missing);
        }
        for (BackupManifest.Member member : manifest.members()) {
          int loaded = restore(member, manifest, fetch, out, err);
          if (loaded != ExitCodes.OK) {
            return loaded;
          }
        }
        out.println(
            "restored backup "
                + manifest.name()
                + " ("
                + manifest.members().size()
                + " members' snapshots) into "
                + node.baseUrl());
        return ExitCodes.OK;
      }
    } catch (BackupFailure e) {
      err.println("kvorum-node restore: " + e.getMessage());
      return e.exitCode();
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** Checks that the node to load through answers, before anything is fetched. */
  private void checkNode() {
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      connection.cluster();
    } catch (Unreachable e) {
      throw new BackupFailure(ExitCodes.FAILURE, e.getMessage());
    } catch (KvorumClientException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE, node.baseUrl() + " answered " + NodeConnection.describe(e));
    }
  }

  /** Fetches, checks and loads one member's snapshot; the exit code. */
  private int restore(
      BackupManifest.Member member,
      BackupManifest manifest,
      Fetch fetch,
      PrintWriter out,
      PrintWriter err) {
    Path dir = Fetch.workDirectory(workDir, "kvorum-restore-" + member.id() + "-");
    try {
      fetch.whole(manifest, member, dir);
      err.println("kvorum-node restore: loading " + member.id() + "'s snapshot");
      CommandLine load = new CommandLine(new LoadCommand());
      load.setOut(out);
      load.setErr(err);
      return load.execute(loadArguments(dir));
    } finally {
      BackupVerifyCommand.removeQuietly(dir);
    }
  }

  private String[] loadArguments(Path dir) {
    List<String> args =
        new ArrayList<>(List.of("--from", dir.toString(), "--rate", String.valueOf(rate)));
    args.addAll(List.of("--host", node.host(), "--port", String.valueOf(node.port())));
    if (node.tlsCa() != null) {
      args.addAll(List.of("--tls-ca", node.tlsCa().toString()));
    }
    if (node.token() != null) {
      args.addAll(List.of("--token", node.token()));
    }
    return args.toArray(String[]::new);
  }
}
