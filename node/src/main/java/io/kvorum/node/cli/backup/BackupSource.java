package io.kvorum.node.cli.backup;

import picocli.CommandLine.Option;

/** The backup a command reads: {@code --from s3://BUCKET/PREFIX/NAME}. */
final class BackupSource {
  @Option(
      names = "--from",
      required = true,
      paramLabel = "s3://BUCKET/PREFIX/NAME",
      description = "The backup: its series and its name.")
  String from;

  /** Where it is, parsed; fails with {@link BackupFailure} (exit 2) when malformed. */
  StorageLocation location() {
    return StorageLocation.parse("--from", from);
  }
}
