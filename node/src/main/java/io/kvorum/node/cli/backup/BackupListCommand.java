package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvorum-node backup list --from s3://BUCKET/PREFIX}: the whole backups of a series. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Lists the backups in object storage, oldest first.",
    description = {
      "",
      "Prints one line per whole backup under --from (one with its manifest): its name, when it"
          + " finished, its members, files and size.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 listed, 1 object storage failed, 2 bad options, 5 the bucket does not exist,"
          + " 6 the credentials were refused, 7 a manifest cannot be read, 8 a manifest is of a"
          + " newer release."
    })
public final class BackupListCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin StorageOptions storage = new StorageOptions();

  @Option(
      names = "--from",
      required = true,
      paramLabel = "s3://BUCKET/PREFIX",
      description = "The series of backups (the --to of kvorum-node backup).")
  String from;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (ObjectStore store = ObjectStore.open(storage, StorageLocation.parse("--from", from))) {
      List<BackupManifest> all = new Backups(store).all();
      for (BackupManifest m : all) {
        out.println(
            String.format(
                Locale.ROOT,
                "%s  finished %s  %d members  %,d files  %s  kvorum %s",
                m.name(),
                m.finishedAt(),
                m.members().size(),
                m.files(),
                Transfers.megabytes(m.bytes()),
                m.release()));
      }
      err.println("kvorum-node backup list: " + all.size() + " backups in " + store.location());
      return ExitCodes.OK;
    } catch (BackupFailure e) {
      err.println("kvorum-node backup list: " + e.getMessage());
      return e.exitCode();
    } finally {
      out.flush();
      err.flush();
    }
  }
}
