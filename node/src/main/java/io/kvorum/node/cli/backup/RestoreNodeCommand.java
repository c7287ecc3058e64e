package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.core.DurableFiles;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.server.RecordSources;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
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
 * {@code kvorum-node restore-node --from s3://BUCKET/PREFIX/NAME --node-id ID --data-dir DIR}: the
 * restore in place of docs/operations.md from object storage, on one stopped node (Medusa's {@code
 * restore-node}): member ID's snapshot fetched next to the node's {@code db/}, every file checked,
 * then put in its place; the rest of the data directory (the membership, the clock's ceiling) kept.
 */
@Command(
    name = "restore-node",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Restores one stopped node's data in place from a backup in object storage.",
    description = {
      "",
      "Fetches member --node-id's snapshot of backup --from (s3://BUCKET/PREFIX/NAME) into"
          + " --data-dir, the stopped node's data directory, checks every file's SHA-256, and only"
          + " then replaces the node's database (--data-dir/db) with it, keeping the rest of the"
          + " directory: the membership and the clock's ceiling, so that writes after the restore"
          + " win over everything restored.",
      "",
      "Run it on every member of the cluster, each stopped, then start them all with the same ids"
          + " and flags: the cluster answers exactly what the backup held. A node left with its"
          + " newer data would give it back to the others (docs/operations.md, Restoring in"
          + " place). Cut off midway, run it again: the database is replaced only once the whole"
          + " snapshot is there.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 restored, 1 object storage failed or a running node has the directory open,"
          + " 2 bad options or no such member in the backup, 5 the bucket does not exist, 6 the"
          + " credentials were refused, 7 the backup is damaged (the object named; the database"
          + " left as it was), 8 a newer release wrote it."
    })
public final class RestoreNodeCommand implements Callable<Integer> {
  /** Where the snapshot is fetched, in the data directory, so that it moves in by a rename. */
  static final String FETCHING = "db.restoring";

  /** Where the replaced database goes until the new one is in place. */
  static final String REPLACED = "db.replaced";

  /** The snapshot's own manifest, which a node's database does not hold. */
  private static final String SNAPSHOT_MANIFEST = "manifest.json";

  @Spec CommandSpec spec;

  @Mixin StorageOptions storage = new StorageOptions();

  @Mixin BackupSource source = new BackupSource();

  @Option(
      names = "--node-id",
      required = true,
      paramLabel = "ID",
      description = "The member whose snapshot to restore: the node's own --node-id.")
  String nodeId;

  @Option(
      names = "--data-dir",
      required = true,
      paramLabel = "DIR",
      description = "The stopped node's data directory (its --data-dir).")
  Path dataDir;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      StorageLocation backup = source.location();
      Path db = dataDir.resolve("db");
      refuseIfRunning(db);
      try (ObjectStore store = ObjectStore.open(storage, backup.parent())) {
        BackupManifest manifest = new Backups(store).read(backup.last());
        BackupManifest.Member member = member(manifest);
        Transfers transfers = new Transfers(err, "fetched");
        transfers.expect(member.bytes());
        Path fetched = fetch(new Fetch(store, transfers), manifest, member);
        replace(db, fetched);
        out.println(
            "restored "
                + member.id()
                + "'s snapshot of backup "
                + manifest.name()
                + " into "
                + db
                + ": "
                + member.files().size()
                + " files, "
                + Transfers.megabytes(member.bytes())
                + "; start the node with --node-id "
                + member.id());
        return ExitCodes.OK;
      }
    } catch (BackupFailure e) {
      err.println("kvorum-node restore-node: " + e.getMessage());
      return e.exitCode();
    } finally {
      out.flush();
      err.flush();
    }
  }

  private static void refuseIfRunning(Path db) {
    try {
      RecordSources.refuseIfOpen(db);
    } catch (StorageException e) {
      throw new BackupFailure(ExitCodes.FAILURE, db + ": " + Failures.rootMessage(e));
    }
  }

  private BackupManifest.Member member(BackupManifest manifest) {
    List<String> ids = new ArrayList<>();
    for (BackupManifest.Member member : manifest.members()) {
      if (member.id().equals(nodeId)) {
        return member;
      }
      ids.add(member.id());
    }
    throw new BackupFailure(
        ExitCodes.CONFIG,
        "backup "
            + manifest.name()
            + " has no member "
            + nodeId
            + " (its members: "
            + String.join(", ", ids)
            + ")");
  }

  /**
   * Fetches {@code member}'s files into {@link #FETCHING} (emptied first: a former run cut off
   * midway), checks them, and syncs them to disk.
   */
  private Path fetch(Fetch fetch, BackupManifest manifest, BackupManifest.Member member) {
    List<String> missing = fetch.missing(List.of(member));
    if (!missing.isEmpty()) {
      throw Fetch.damaged(manifest.name(), missing);
    }
    Path target = dataDir.resolve(FETCHING);
    try {
      DurableFiles.DISK.createDirectories(dataDir);
      BackupVerifyCommand.removeQuietly(target);
      Files.createDirectory(target);
      try {
        fetch.whole(manifest, member, target);
      } catch (BackupFailure damaged) {
        BackupVerifyCommand.removeQuietly(target);
        throw damaged;
      }
      Files.deleteIfExists(target.resolve(SNAPSHOT_MANIFEST));
      DurableFiles.DISK.syncTree(target);
      return target;
    } catch (IOException e) {
      throw new BackupFailure(ExitCodes.FAILURE, "cannot write " + target + ": " + e.getMessage());
    }
  }

  /**
   * Puts {@code fetched} in place of {@code db}: the old database renamed aside, the new one
   * renamed in, the old one deleted. Cut off between the renames, {@code db} is missing and the
   * next run puts it in place.
   */
  static void replace(Path db, Path fetched) {
    Path replaced = db.resolveSibling(REPLACED);
    try {
      BackupVerifyCommand.removeQuietly(replaced);
      if (Files.exists(db)) {
        DurableFiles.DISK.rename(db, replaced);
      }
      DurableFiles.DISK.rename(fetched, db);
      BackupVerifyCommand.removeQuietly(replaced);
    } catch (IOException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE, "cannot put the snapshot in place of " + db + ": " + e.getMessage());
    }
  }
}
