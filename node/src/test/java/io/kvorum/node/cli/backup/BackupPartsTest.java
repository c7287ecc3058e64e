package io.kvorum.node.cli.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.cli.client.ExitCodes;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The parts of backups that need no object storage: addresses, rates, manifests, a restore's
 * options.
 */
class BackupPartsTest {
  @Test
  void anS3AddressIsABucketAndAPrefix() {
    StorageLocation series = StorageLocation.parse("--to", "s3://backups/kvorum/prod/");

    assertThat(series).isEqualTo(new StorageLocation("backups", "kvorum/prod"));
    assertThat(series.key("data/n1/x")).isEqualTo("kvorum/prod/data/n1/x");
    assertThat(StorageLocation.parse("--to", "s3://backups").key("a")).isEqualTo("a");
    StorageLocation backup = StorageLocation.parse("--from", "s3://backups/kvorum/20261129-0200");
    assertThat(backup.parent()).isEqualTo(new StorageLocation("backups", "kvorum"));
    assertThat(backup.last()).isEqualTo("20261129-0200");
    for (String bad : new String[] {"backups/x", "s3://", "http://b/x", "s3://B_ad/x"}) {
      assertThatThrownBy(() -> StorageLocation.parse("--to", bad))
          .isInstanceOfSatisfying(
              BackupFailure.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.CONFIG))
          .hasMessageContaining("--to '" + bad + "'");
    }
  }

  @Test
  void aRateTakesUnitsOfAThousand() {
    assertThat(Throttle.parse("0")).isZero();
    assertThat(Throttle.parse("50MB/s")).isEqualTo(50_000_000);
    assertThat(Throttle.parse("1.5M")).isEqualTo(1_500_000);
    assertThat(Throttle.parse("800k")).isEqualTo(800_000);
    assertThat(Throttle.parse("1234")).isEqualTo(1234);
    assertThatThrownBy(() -> Throttle.parse("fast")).isInstanceOf(NumberFormatException.class);
    assertThatThrownBy(() -> Throttle.parse("-1")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aRestoreRateBelowZeroIsRefusedBeforeAnythingIsAsked() {
    StringWriter err = new StringWriter();
    CommandLine restore = new CommandLine(new RestoreCommand());
    restore.setErr(new PrintWriter(err));

    int exit = restore.execute("--from", "s3://backups/kvorum/b1", "--rate", "-1");

    assertThat(exit).isEqualTo(ExitCodes.CONFIG);
    assertThat(err.toString())
        .contains("kvorum-node restore: --rate must be 0 (no limit) or more records a second");
  }

  @Test
  void aManifestReadsBackAndANewerFormatIsRefusedByName() {
    BackupManifest manifest =
        new BackupManifest(
            BackupManifest.FORMAT,
            "b1",
            "0.3.0",
            "2026-11-29T02:00:00Z",
            "2026-11-29T02:01:00Z",
            42,
            List.of(
                new BackupManifest.Member(
                    "n1",
                    "",
                    10,
                    42,
                    "kvorum-records-3",
                    "0.3.0",
                    List.of(
                        new BackupManifest.File(
                            "000001.sst", 7, "ab", "p/data/n1/ab-000001.sst")))));

    assertThat(BackupManifest.decode(manifest.encode(), "m")).isEqualTo(manifest);
    byte[] newer =
        new String(manifest.encode(), StandardCharsets.UTF_8)
            .replace(BackupManifest.FORMAT, "kvorum-backup-2")
            .replace(
                "\"release\" : \"0.3.0\",\n  \"startedAt\"",
                "\"release\" : \"0.9.0\",\n  \"startedAt\"")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> BackupManifest.decode(newer, "s3://b/p/backups/b1/manifest.json"))
        .isInstanceOfSatisfying(
            BackupFailure.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.NEWER))
        .hasMessageContaining("format 'kvorum-backup-2' written by kvorum 0.9.0")
        .hasMessageContaining("use kvorum 0.9.0 or later");
    assertThatThrownBy(() -> BackupManifest.decode("{}".getBytes(StandardCharsets.UTF_8), "m"))
        .isInstanceOfSatisfying(
            BackupFailure.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.DAMAGED));
  }
}
