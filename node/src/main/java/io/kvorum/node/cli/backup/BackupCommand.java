package io.kvorum.node.cli.backup;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Snapshot;
import io.kvorum.node.cli.admin.MemberAddresses;
import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.cli.client.NodeAddress;
import io.kvorum.node.cli.client.NodeConnection;
import io.kvorum.node.cli.client.Unreachable;
import io.kvorum.node.core.Release;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvorum-node backup --to s3://BUCKET/PREFIX}: a snapshot on every member, then each
 * member's snapshot copied to object storage by this command (docs/decisions/
 * backups-are-copied-by-the-command-not-the-nodes.md), only the files not stored yet, then the
 * backup's manifest, then the snapshots deleted on the members and, with {@code --keep K}, the
 * older backups but the newest K.
 */
@Command(
    name = "backup",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {BackupListCommand.class, BackupVerifyCommand.class},
    header = "Copies a snapshot of every member to object storage (S3 or S3-compatible).",
    description = {
      "",
      "Takes snapshot --name on every member (as 'kvorum-node snapshot'), copies each member's"
          + " snapshot to --to (s3://BUCKET/PREFIX) through this command, sending only the files"
          + " not stored there yet (a data file a former backup sent is not sent again), writes"
          + " the backup's manifest (PREFIX/backups/NAME/manifest.json) last, then deletes the"
          + " snapshots on the members. A backup cut off midway is no backup (it has no"
          + " manifest): run the same command with the same --name to go on where it stopped.",
      ""
    },
    footer = {
      "",
      "Exit codes: 0 backed up, 1 a member or the transfer failed (named; run it again to go on),"
          + " 2 bad options or a backup of that name exists, 5 the bucket does not exist, 6 the"
          + " credentials were refused."
    })
public final class BackupCommand implements Callable<Integer> {
  private static final DateTimeFormatter DEFAULT_NAME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);
  private static final Duration TAKE_TIMEOUT = Duration.ofMinutes(5);

  @Spec CommandSpec spec;

  @Mixin NodeAddress node = new NodeAddress();

  @Mixin MemberAddresses addresses = new MemberAddresses();

  @Mixin StorageOptions storage = new StorageOptions();

  @Option(
      names = "--to",
      paramLabel = "s3://BUCKET/PREFIX",
      description = "Where the series of backups is kept.")
  String to;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description =
          "The backup's name, and its snapshot's on every member. Default: the time now in UTC,"
              + " e.g. 20261129-021500. An unfinished backup of that name goes on.")
  String name;

  @Option(
      names = "--keep",
      paramLabel = "K",
      description =
          "Once the backup is whole, deletes the backups of the series but the newest K and the"
              + " files none of them needs.")
  Integer keep;

  @Option(
      names = "--max-rate",
      defaultValue = "0",
      paramLabel = "BYTES/S",
      description =
          "At most this many bytes a second to object storage, e.g. 50MB/s; 0 for no limit."
              + " Default: ${DEFAULT-VALUE}.")
  String maxRate;

  @Option(
      names = "--keep-snapshots",
      description = "Leave the backup's snapshot on every member (deleted by default).")
  boolean keepSnapshots;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return backup(out, err);
    } catch (BackupFailure e) {
      err.println("kvorum-node backup: " + e.getMessage());
      return e.exitCode();
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int backup(PrintWriter out, PrintWriter err) {
    long rate = options();
    StorageLocation location = StorageLocation.parse("--to", to);
    String backup = name != null ? name : DEFAULT_NAME.format(ZonedDateTime.now(ZoneOffset.UTC));
    List<Member> members = members();
    Instant started = Instant.now();
    try (ObjectStore store = ObjectStore.open(storage, location)) {
      store.checkBucket();
      Backups backups = new Backups(store);
      if (store.get(backups.manifestKey(backup)).isPresent()) {
        throw new BackupFailure(
            ExitCodes.CONFIG, "backup " + backup + " exists already in " + location);
      }
      List<Snapshot> snapshots = snapshots(members, backup, err);
      Transfers transfers = new Transfers(err, "sent");
      MemberUpload upload = new MemberUpload(store, new Throttle(rate), transfers);
      List<BackupManifest.Member> stored = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        Member m = members.get(i);
        Snapshot s = snapshots.get(i);
        try (NodeConnection member = node.connect(m.url(), NodeAddress.TIMEOUT)) {
          stored.add(
              new BackupManifest.Member(
                  m.id(),
                  m.zone(),
                  s.records(),
                  s.versionsUpTo(),
                  s.format(),
                  s.release(),
                  upload.upload(member, m.id(), backup)));
        }
      }
      transfers.finish();
      BackupManifest manifest =
          new BackupManifest(
              BackupManifest.FORMAT,
              backup,
              Release.version(),
              started.toString(),
              Instant.now().toString(),
              stored.stream().mapToLong(BackupManifest.Member::versionsUpTo).max().orElse(0),
              stored);
      store.put(backups.manifestKey(backup), manifest.encode());
      out.println(summary(manifest, location, transfers));
      if (!keepSnapshots) {
        deleteSnapshots(members, backup, err);
      }
      if (keep != null) {
        backups.retain(keep, started, out);
      }
      return ExitCodes.OK;
    }
  }

  /** Checks the options; {@code --max-rate} in bytes a second. */
  private long options() {
    if (to == null) {
      throw new BackupFailure(ExitCodes.CONFIG, "--to s3://BUCKET/PREFIX is required");
    }
    if (name != null && !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
      throw new BackupFailure(
          ExitCodes.CONFIG, "--name '" + name + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    if (keep != null && keep < 1) {
      throw new BackupFailure(
          ExitCodes.CONFIG, "--keep " + keep + " must be at least 1 (it keeps this backup)");
    }
    try {
      return Throttle.parse(maxRate);
    } catch (IllegalArgumentException e) {
      throw new BackupFailure(
          ExitCodes.CONFIG, "--max-rate '" + maxRate + "' is no rate such as 50MB/s or 0");
    }
  }

  /** A member: its id, zone and HTTP base URL. */
  private record Member(String id, String zone, String url) {}

  private List<Member> members() {
    try (NodeConnection connection = node.connect(NodeAddress.TIMEOUT)) {
      JsonNode cluster = connection.cluster();
      List<Member> members = new ArrayList<>();
      List<String[]> urls = addresses.of(cluster, node);
      for (int i = 0; i < urls.size(); i++) {
        JsonNode view = cluster.path("nodes").path(i);
        members.add(new Member(urls.get(i)[0], view.path("zone").asText(""), urls.get(i)[1]));
      }
      return members;
    } catch (Unreachable e) {
      throw new BackupFailure(ExitCodes.FAILURE, e.getMessage());
    } catch (KvorumClientException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE, node.baseUrl() + " answered " + NodeConnection.describe(e));
    }
  }

  /** Takes snapshot {@code backup} on every member; one that exists (a backup going on) is used. */
  private List<Snapshot> snapshots(List<Member> members, String backup, PrintWriter err) {
    List<Snapshot> snapshots = new ArrayList<>();
    for (Member m : members) {
      try (NodeConnection member = node.connect(m.url(), TAKE_TIMEOUT)) {
        snapshots.add(
            MemberUpload.ask(
                member,
                m.id(),
                admin -> {
                  try {
                    return admin.takeSnapshot(backup);
                  } catch (KvorumClientException e) {
                    if (e.status() != 409) {
                      throw e;
                    }
                    err.println(m.id() + ": snapshot " + backup + " exists: going on with it");
                    return admin.snapshots().snapshots().stream()
                        .filter(s -> backup.equals(s.name()))
                        .findFirst()
                        .orElseThrow(() -> e);
                  }
                }));
      }
    }
    return snapshots;
  }

  private void deleteSnapshots(List<Member> members, String backup, PrintWriter err) {
    for (Member m : members) {
      try (NodeConnection member = node.connect(m.url(), NodeAddress.TIMEOUT)) {
        MemberUpload.ask(member, m.id(), admin -> admin.deleteSnapshot(backup));
      } catch (BackupFailure e) {
        err.println(
            "kvorum-node backup: snapshot "
                + backup
                + " is left on "
                + m.id()
                + " ("
                + e.getMessage()
                + "): delete it with DELETE /v0/snapshots/"
                + backup);
      }
    }
  }

  private static String summary(
      BackupManifest manifest, StorageLocation location, Transfers transfers) {
    return String.format(
        Locale.ROOT,
        "backup %s in %s: %d members, %,d files, %s; %s",
        manifest.name(),
        location,
        manifest.members().size(),
        manifest.files(),
        Transfers.megabytes(manifest.bytes()),
        transfers.summary("already stored"));
  }
}
