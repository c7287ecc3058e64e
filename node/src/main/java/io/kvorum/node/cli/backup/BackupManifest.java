package io.kvorum.node.cli.backup;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.kvorum.node.cli.client.ExitCodes;
import java.io.IOException;
import java.util.List;

/**
 * What one backup holds, written last ({@code PREFIX/backups/NAME/manifest.json}): a backup is
 * listed, verified and restored only once its manifest is there, so one cut off midway is never
 * taken for whole. Fields are only ever added; {@link #format} changes when a release could not
 * restore what an older one reads.
 *
 * @param format {@value #FORMAT}
 * @param name the backup's name, also its snapshot's on every member
 * @param release the kvorum release of the command that wrote it
 * @param startedAt when the backup started, ISO-8601
 * @param finishedAt when its manifest was written, ISO-8601
 * @param versionsUpTo the highest of the members' clock bounds: every record in it has a version at
 *     most this
 * @param members each member's snapshot and files
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record BackupManifest(
    String format,
    String name,
    String release,
    String startedAt,
    String finishedAt,
    long versionsUpTo,
    List<Member> members) {
  static final String FORMAT = "kvorum-backup-1";
  private static final String FORMAT_PREFIX = "kvorum-backup-";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /**
   * One member's snapshot.
   *
   * @param id its node id
   * @param zone its zone ({@code --zone}), empty for none
   * @param records its snapshot's estimated records
   * @param versionsUpTo its clock when the snapshot was taken
   * @param recordFormat the on-disk record format of its snapshot
   * @param release the release of the node that took it
   * @param files every file of its snapshot
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Member(
      String id,
      String zone,
      long records,
      long versionsUpTo,
      String recordFormat,
      String release,
      List<File> files) {
    long bytes() {
      return files.stream().mapToLong(File::bytes).sum();
    }
  }

  /**
   * A file of a member's snapshot and the object that holds it.
   *
   * @param name its name in the snapshot
   * @param bytes its size
   * @param sha256 its SHA-256, hex
   * @param key the object's key in the bucket
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record File(String name, long bytes, String sha256, String key) {}

  long bytes() {
    return members.stream().mapToLong(Member::bytes).sum();
  }

  long files() {
    return members.stream().mapToLong(m -> m.files().size()).sum();
  }

  byte[] encode() {
    try {
      return JSON.writeValueAsBytes(this);
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a manifest", e);
    }
  }

  /**
   * The manifest in {@code bytes}, read from {@code where}.
   *
   * @throws BackupFailure exit 8 for a format this release does not know (a newer one), exit 7 for
   *     bytes that are no manifest
   */
  static BackupManifest decode(byte[] bytes, String where) {
    BackupManifest manifest;
    try {
      manifest = JSON.readValue(bytes, BackupManifest.class);
    } catch (IOException e) {
      throw new BackupFailure(
          ExitCodes.DAMAGED, where + " is no backup manifest: " + e.getMessage());
    }
    if (manifest.format() == null
        || !manifest.format().startsWith(FORMAT_PREFIX)
        || manifest.members() == null) {
      throw new BackupFailure(ExitCodes.DAMAGED, where + " is no backup manifest");
    }
    if (!manifest.format().equals(FORMAT)) {
      throw new BackupFailure(
          ExitCodes.NEWER,
          where
              + " is a backup in format '"
              + manifest.format()
              + "' written by kvorum "
              + manifest.release()
              + ", newer than this release reads ("
              + FORMAT
              + "): use kvorum "
              + manifest.release()
              + " or later");
    }
    return manifest;
  }
}
