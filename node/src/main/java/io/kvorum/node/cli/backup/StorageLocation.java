package io.kvorum.node.cli.backup;

import io.kvorum.node.cli.client.ExitCodes;

/**
 * An {@code s3://BUCKET/PREFIX} address: the bucket, and the prefix under which a series of backups
 * is kept ({@code PREFIX/backups/NAME/manifest.json}, {@code PREFIX/data/NODE/…}); the prefix may
 * be empty.
 */
record StorageLocation(String bucket, String prefix) {
  private static final String SCHEME = "s3://";

  /**
   * @throws BackupFailure (exit 2) if {@code text} is no {@code s3://BUCKET[/PREFIX]}
   */
  static StorageLocation parse(String option, String text) {
    if (text == null || !text.startsWith(SCHEME) || text.length() == SCHEME.length()) {
      throw new BackupFailure(
          ExitCodes.CONFIG, option + " '" + text + "' is no s3://BUCKET/PREFIX address");
    }
    String rest = text.substring(SCHEME.length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,62}")) {
      throw new BackupFailure(
          ExitCodes.CONFIG, option + " '" + text + "': '" + bucket + "' is no bucket name");
    }
    return new StorageLocation(bucket, prefix);
  }

  /** The key of {@code path} under the prefix. */
  String key(String path) {
    return prefix.isEmpty() ? path : prefix + "/" + path;
  }

  /** The last segment of the prefix, and the location of its parent: a backup's name and series. */
  StorageLocation parent() {
    int slash = prefix.lastIndexOf('/');
    return new StorageLocation(bucket, slash < 0 ? "" : prefix.substring(0, slash));
  }

  /** The last segment of the prefix. */
  String last() {
    return prefix.substring(prefix.lastIndexOf('/') + 1);
  }

  @Override
  public String toString() {
    return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }
}
