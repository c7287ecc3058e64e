package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The backups of one series ({@code s3://BUCKET/PREFIX}): their manifests, and the retention that
 * keeps the newest K. Retention deletes the manifests of the others first, then the data files no
 * kept manifest names; so a retention cut off midway leaves files no backup needs, never a backup
 * without its files. Files written since {@code notBefore} are spared, so that a backup running at
 * the same time keeps the files its manifest will name.
 */
final class Backups {
  private static final String MANIFEST = "/manifest.json";

  private final ObjectStore store;

  Backups(ObjectStore store) {
    this.store = store;
  }

  /** The key of backup {@code name}'s manifest. */
  String manifestKey(String name) {
    return store.location().key("backups/" + name + MANIFEST);
  }

  /** Backup {@code name}'s manifest; exit 7 when there is none, 8 when it is a newer format's. */
  BackupManifest read(String name) {
    String key = manifestKey(name);
    byte[] bytes =
        store
            .get(key)
            .orElseThrow(
                () ->
                    new BackupFailure(
                        ExitCodes.DAMAGED,
                        "no backup '"
                            + name
                            + "' under "
                            + store.location()
                            + " (no "
                            + key
                            + "; kvorum-node backup list shows the backups there)"));
    return BackupManifest.decode(bytes, "s3://" + store.location().bucket() + "/" + key);
  }

  /** The names of the backups whose manifests are there, in key order. */
  List<String> names() {
    String prefix = store.location().key("backups/");
    List<String> names = new ArrayList<>();
    for (String key : store.list(prefix).keySet()) {
      String rest = key.substring(prefix.length());
      if (rest.endsWith(MANIFEST) && rest.indexOf('/') == rest.length() - MANIFEST.length()) {
        names.add(rest.substring(0, rest.length() - MANIFEST.length()));
      }
    }
    return names;
  }

  /** Every readable manifest, oldest first. */
  List<BackupManifest> all() {
    List<BackupManifest> manifests = new ArrayList<>();
    for (String name : names()) {
      manifests.add(read(name));
    }
    manifests.sort(Comparator.comparing(BackupManifest::finishedAt));
    return manifests;
  }

  /**
   * Keeps the newest {@code keep} backups: deletes the others' manifests, then the data files no
   * kept backup names and that were written before {@code notBefore}.
   */
  void retain(int keep, Instant notBefore, PrintWriter out) {
    List<BackupManifest> manifests = all();
    List<BackupManifest> dropped = manifests.subList(0, Math.max(0, manifests.size() - keep));
    if (dropped.isEmpty()) {
      return;
    }
    store.delete(dropped.stream().map(m -> manifestKey(m.name())).toList());
    dropped.forEach(m -> out.println("deleted backup " + m.name() + " (--keep " + keep + ")"));
    Set<String> needed = new HashSet<>();
    for (BackupManifest kept : manifests.subList(dropped.size(), manifests.size())) {
      kept.members().forEach(m -> m.files().forEach(f -> needed.add(f.key())));
    }
    List<String> unneeded = new ArrayList<>();
    long bytes = 0;
    for (Map.Entry<String, ObjectStore.Stored> object :
        store.list(store.location().key("data/")).entrySet()) {
      if (!needed.contains(object.getKey())
          && object.getValue().lastModified().isBefore(notBefore)) {
        unneeded.add(object.getKey());
        bytes += object.getValue().size();
      }
    }
    store.delete(unneeded);
    out.println(
        "deleted "
            + unneeded.size()
            + " files ("
            + Transfers.megabytes(bytes)
            + ") no kept backup needs");
  }
}
