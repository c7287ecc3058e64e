package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import io.kvorum.node.storage.SnapshotFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Fetches the files of a backup's members from object storage and checks each against the manifest:
 * its object present with its size first (the whole backup, before anything is fetched), then each
 * file's SHA-256 as it arrives. What is wrong is named: {@code data/node-1/…-000042.sst (node-1's
 * 000042.sst): SHA-256 … not the manifest's …}.
 */
final class Fetch {
  private final ObjectStore store;
  private final Transfers transfers;

  Fetch(ObjectStore store, Transfers transfers) {
    this.store = store;
    this.transfers = transfers;
  }

  /** What is missing or of the wrong size in {@code manifest}'s objects; empty when nothing. */
  List<String> missing(BackupManifest manifest) {
    return missing(manifest.members());
  }

  /** What is missing or of the wrong size in {@code members}' objects; empty when nothing. */
  List<String> missing(List<BackupManifest.Member> members) {
    Map<String, ObjectStore.Stored> stored = store.list(store.location().key("data/"));
    List<String> problems = new ArrayList<>();
    for (BackupManifest.Member member : members) {
      for (BackupManifest.File file : member.files()) {
        ObjectStore.Stored object = stored.get(file.key());
        if (object == null) {
          problems.add(describe(member, file) + ": missing");
        } else if (object.size() != file.bytes()) {
          problems.add(
              describe(member, file)
                  + ": "
                  + object.size()
                  + " bytes, not the manifest's "
                  + file.bytes());
        }
      }
    }
    return problems;
  }

  /**
   * Fetches {@code file} of {@code member} into {@code dir} and checks its checksum.
   *
   * @return what is wrong with it, or null when it is right
   */
  String fetch(BackupManifest.Member member, BackupManifest.File file, Path dir) {
    Path target = dir.resolve(file.name());
    try {
      if (file.bytes() == 0) {
        // Nothing to fetch: a ranged download of an empty object is refused (416).
        Files.write(target, new byte[0]);
      } else {
        store.download(file.key(), target);
      }
      String sha = SnapshotFiles.sha256(target);
      transfers.moved(file.bytes());
      transfers.maybePrint(member.id());
      return sha.equals(file.sha256())
          ? null
          : describe(member, file) + ": SHA-256 " + sha + ", not the manifest's " + file.sha256();
    } catch (IOException e) {
      throw new BackupFailure(
          ExitCodes.FAILURE, "cannot read " + target + " just fetched: " + e.getMessage());
    }
  }

  /**
   * Fetches every file of {@code member} into {@code dir}, each checked, then ends the progress
   * line; fails with {@link #damaged} naming every file that is wrong.
   */
  void whole(BackupManifest manifest, BackupManifest.Member member, Path dir) {
    List<String> problems = new ArrayList<>();
    for (BackupManifest.File file : member.files()) {
      String problem = fetch(member, file, dir);
      if (problem != null) {
        problems.add(problem);
      }
    }
    transfers.finish();
    if (!problems.isEmpty()) {
      throw damaged(manifest.name(), problems);
    }
  }

  static String describe(BackupManifest.Member member, BackupManifest.File file) {
    return file.key() + " (" + member.id() + "'s " + file.name() + ")";
  }

  /** The failure of a damaged backup, naming every problem (the first few). */
  static BackupFailure damaged(String backup, List<String> problems) {
    int shown = Math.min(problems.size(), 10);
    return new BackupFailure(
        ExitCodes.DAMAGED,
        "backup "
            + backup
            + " is damaged: "
            + String.join("; ", problems.subList(0, shown))
            + (problems.size() > shown ? "; and " + (problems.size() - shown) + " more" : ""));
  }

  /** A fresh directory under {@code parent} (the system's temporary one when null). */
  static Path workDirectory(Path parent, String name) {
    try {
      return parent == null
          ? Files.createTempDirectory(name)
          : Files.createTempDirectory(Files.createDirectories(parent), name);
    } catch (IOException e) {
      throw new BackupFailure(
          ExitCodes.CONFIG, "cannot make a working directory: " + e.getMessage());
    }
  }
}
