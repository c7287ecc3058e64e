package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.core.Directories;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node backup verify --from s3://BUCKET/PREFIX/NAME}: every file of the backup is
 * there, of its size, and of its checksum (each is fetched and hashed, one at a time).
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Checks that a backup is whole: every file present and of its checksum.",
    description = {
      "",
      "Reads the manifest of backup --from (s3://BUCKET/PREFIX/NAME), checks that every object it"
          + " names is there with its size, then fetches each one and checks its SHA-256. Names"
          + " every object that is missing or damaged.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 whole, 1 object storage failed, 2 bad options, 5 the bucket does not exist,"
          + " 6 the credentials were refused, 7 the backup is damaged (named), 8 a newer release"
          + " wrote it."
    })
public final class BackupVerifyCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin StorageOptions storage = new StorageOptions();

  @Mixin BackupSource source = new BackupSource();

  @Option(
      names = "--work-dir",
      paramLabel = "DIR",
      description = "Where each file is fetched to be hashed. Default: the temporary directory.")
  Path workDir;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    StorageLocation backup;
    try {
      backup = source.location();
    } catch (BackupFailure e) {
      err.println("kvorum-node backup verify: " + e.getMessage());
      return e.exitCode();
    }
    try (ObjectStore store = ObjectStore.open(storage, backup.parent())) {
      BackupManifest manifest = new Backups(store).read(backup.last());
      Transfers transfers = new Transfers(err, "checked");
      transfers.expect(manifest.bytes());
      Fetch fetch = new Fetch(store, transfers);
      List<String> problems = new ArrayList<>(fetch.missing(manifest));
      Path dir = Fetch.workDirectory(workDir, "kvorum-verify-");
      try {
        for (BackupManifest.Member member : manifest.members()) {
          for (BackupManifest.File file : member.files()) {
            if (problems.stream().noneMatch(p -> p.startsWith(file.key() + " "))) {
              String problem = fetch.fetch(member, file, dir);
              if (problem != null) {
                problems.add(problem);
              }
              java.nio.file.Files.deleteIfExists(dir.resolve(file.name()));
            }
          }
        }
      } finally {
        removeQuietly(dir);
      }
      transfers.finish();
      if (!problems.isEmpty()) {
        throw Fetch.damaged(manifest.name(), problems);
      }
      out.println(
          "backup "
              + manifest.name()
              + " is whole: "
              + manifest.files()
              + " files, "
              + Transfers.megabytes(manifest.bytes())
              + ", every checksum right");
      return ExitCodes.OK;
    } catch (BackupFailure e) {
      err.println("kvorum-node backup verify: " + e.getMessage());
      return e.exitCode();
    } catch (IOException e) {
      err.println("kvorum-node backup verify: " + e.getMessage());
      return ExitCodes.FAILURE;
    } finally {
      out.flush();
      err.flush();
    }
  }

  static void removeQuietly(Path dir) {
    try {
      Directories.removeTree(dir);
    } catch (IOException e) {
      // a temporary directory: the system's to clean
    }
  }
}
