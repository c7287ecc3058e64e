package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.Versioned;
import io.kvorum.node.cli.KvorumNode;
import io.kvorum.node.testing.NodeProcess;
import io.kvorum.node.testing.ProcessCluster;
import io.kvorum.node.testing.SeaweedFs;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Backups to a real S3-compatible server (SeaweedFS; SPEC §11): a 3-node cluster backed up under
 * writes, destroyed, and restored into 5 nodes with every key at its backed-up version and the
 * expiries kept; a second backup sends only the files that changed; wrong credentials and a
 * corrupted object are refused with their exit codes, naming what is wrong; a backup killed mid-way
 * is finished by the next run.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class BackupProcessIT {
  private static final Duration SHORT_TTL = Duration.ofSeconds(20);

  /** One server for the class: its start is 5 s of CPU; each test keeps to a series of its own. */
  private static SeaweedFs s3;

  @TempDir Path work;

  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeAll
  static void startObjectStorage(@TempDir Path storage) throws Exception {
    s3 = SeaweedFs.start(storage);
  }

  @AfterAll
  static void stopObjectStorage() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  @Test
  void aBackupUnderWritesRestoresIntoFiveNodesAndTheNextSendsOnlyWhatChanged() throws Exception {
    credentials(SeaweedFs.SECRET_KEY);
    String series = "s3://" + SeaweedFs.BUCKET + "/prod";
    ProcessCluster old = new ProcessCluster(work.resolve("old"), 3).start();
    open.add(old);
    Map<String, String> versions = new TreeMap<>();
    long shortTtlWritten;
    List<String> acknowledged = new CopyOnWriteArrayList<>();
    try (KvorumClient client = old.client(0)) {
      write(client, versions);
      shortTtlWritten = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        client.put(
            ("e" + i).getBytes(UTF_8), "short".getBytes(UTF_8), Consistency.DEFAULT, SHORT_TTL);
      }
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread writer = Thread.ofPlatform().start(() -> writeUntil(client, writing, acknowledged));
      List<String> before = List.copyOf(acknowledged);
      Run first = cli("backup", "--port", port(old), "--to", series, "--name", "b1");
      writing.set(false);
      writer.join();
      assertThat(first.exit()).as(first.err()).isZero();
      assertThat(first.out()).contains("backup b1 in " + series + ": 3 members");
      acknowledged.retainAll(before);

      for (int i = 0; i < 20; i++) {
        client.put("late" + i, "after b1");
      }
      Run second = cli("backup", "--port", port(old), "--to", series, "--name", "b2");
      assertThat(second.exit()).as(second.err()).isZero();
      long[] sentAndKept = sentAndKept(second.out());
      assertThat(sentAndKept[1]).as("files b1 stored already: " + second.out()).isPositive();
      assertThat(sentAndKept[0]).as("files sent").isLessThan(sentAndKept[0] + sentAndKept[1]);
    }
    old.close();

    Run refused = cliAs("wrong-secret", "backup", "list", "--from", series);
    assertThat(refused.exit()).isEqualTo(6);
    assertThat(refused.err()).contains("refused the credentials for bucket 'kvorum-backups'");
    Run noBucket = cli("backup", "list", "--from", "s3://no-such-bucket/prod");
    assertThat(noBucket.exit()).as(noBucket.err()).isEqualTo(5);
    assertThat(noBucket.err()).contains("bucket 'no-such-bucket' does not exist");
    Run unreachable = cliAt("http://127.0.0.1:1", "backup", "verify", "--from", series + "/b1");
    assertThat(unreachable.exit()).as(unreachable.err()).isEqualTo(1);
    assertThat(unreachable.err()).contains("(run the same command again to go on)");

    ProcessCluster fresh = new ProcessCluster(work.resolve("new"), 5).start();
    open.add(fresh);
    Run restore =
        cli("restore", "--port", port(fresh), "--from", series + "/b1", "--rate", "100000");
    assertThat(restore.exit()).as(restore.err()).isZero();
    try (KvorumClient client = fresh.client(3)) {
      for (Map.Entry<String, String> key : versions.entrySet()) {
        assertThat(etag(client, key.getKey())).as(key.getKey()).isEqualTo(key.getValue());
      }
      for (String key : acknowledged) {
        assertThat(client.getUtf8(key)).as(key + ", written before the backup").isPresent();
      }
      assertThat(client.getUtf8("d0")).as("deleted before the backup").isEmpty();
      assertThat(client.getUtf8("late0")).as("written after b1").isEmpty();
      Awaitility.await()
          .atMost(SHORT_TTL.plusSeconds(30))
          .until(() -> System.nanoTime() - shortTtlWritten > SHORT_TTL.plusSeconds(1).toNanos());
      assertThat(client.getUtf8("e0")).as("expired at its own time, not reset").isEmpty();
      assertThat(client.getUtf8("t0")).as("an hour's TTL").contains("ttl-0");
    }

    String damaged = corruptOneDataFile();
    Run verify = cli("backup", "verify", "--from", series + "/b1");
    assertThat(verify.exit()).as(verify.err()).isEqualTo(7);
    assertThat(verify.err()).contains("backup b1 is damaged", damaged, "SHA-256");
    Run again = cli("restore", "--port", port(fresh), "--from", series + "/b1");
    assertThat(again.exit()).isEqualTo(7);
    assertThat(again.err()).contains(damaged);
  }

  /**
   * A backup killed mid-way (SIGKILL: the job that runs it evicted, its machine off) leaves no
   * backup that lists or restores, and loses nothing: the same command run again goes on with the
   * snapshots the killed run took, sends only the files it had not stored yet, and its backup
   * restores every key: in place (restore-node on each stopped node) after a bad deploy, which it
   * undoes. restore-node refuses a running node's directory and a member the backup lacks.
   */
  @Test
  void aBackupKilledMidWayIsFinishedByTheNextRunSendingOnlyWhatWasMissing() throws Exception {
    credentials(SeaweedFs.SECRET_KEY);
    String series = "s3://" + SeaweedFs.BUCKET + "/killed";
    ProcessCluster cluster = new ProcessCluster(work.resolve("old"), 3).start();
    open.add(cluster);
    Map<String, String> values = new TreeMap<>();
    try (KvorumClient client = cluster.client(0)) {
      for (int i = 0; i < 150; i++) {
        String value = ("value " + i + " ").repeat(800);
        client.put("big" + i, value);
        values.put("big" + i, value);
      }
    }

    // About 3.6 MB at 1 MB/s: killed once the first file is stored.
    ProcessBuilder backup =
        new ProcessBuilder(
                NodeProcess.command(
                    "backup",
                    "--port",
                    port(cluster),
                    "--to",
                    series,
                    "--name",
                    "b1",
                    "--max-rate",
                    "1MB/s",
                    "--endpoint",
                    s3.endpoint(),
                    "--path-style"))
            .redirectErrorStream(true)
            .redirectOutput(work.resolve("killed.log").toFile());
    backup.environment().put("AWS_ACCESS_KEY_ID", SeaweedFs.ACCESS_KEY);
    backup.environment().put("AWS_SECRET_ACCESS_KEY", SeaweedFs.SECRET_KEY);
    Process killed = backup.start();
    killed.getOutputStream().close();
    try (S3Client bucket = s3.client()) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> !killed.isAlive() || stored(bucket, "killed/") > 0);
    }
    assertThat(killed.isAlive()).as("still sending when the first file was stored").isTrue();
    killed.destroyForcibly().waitFor();

    Run listed = cli("backup", "list", "--from", series);
    assertThat(listed.exit()).as(listed.err()).isZero();
    assertThat(listed.out()).as("a backup without its manifest").doesNotContain("b1");

    Run again = cli("backup", "--port", port(cluster), "--to", series, "--name", "b1");
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(again.err()).contains("snapshot b1 exists: going on with it");
    long[] sentAndKept = sentAndKept(again.out());
    assertThat(sentAndKept[1]).as("files the killed run stored: " + again.out()).isPositive();
    Run verify = cli("backup", "verify", "--from", series + "/b1");
    assertThat(verify.exit()).as(verify.err()).isZero();

    // Then a bad deploy, and the restore in place from object storage (operations.md): every
    // node stopped, restore-node on each, every node started again with the same id.
    try (KvorumClient client = cluster.client(0)) {
      for (int i = 0; i < 50; i++) {
        client.put("big" + i, "overwritten");
      }
      for (int i = 50; i < 70; i++) {
        client.delete("big" + i);
      }
      for (int i = 0; i < 20; i++) {
        client.put("new" + i, "after b1");
      }
    }
    Run running = restoreNode(series + "/b1", 0);
    assertThat(running.exit()).as(running.err()).isEqualTo(1);
    assertThat(running.err()).contains("a running node has it open");
    Run noSuchMember =
        cli(
            "restore-node",
            "--from",
            series + "/b1",
            "--node-id",
            "node-9",
            "--data-dir",
            work.resolve("unused").toString());
    assertThat(noSuchMember.exit()).isEqualTo(2);
    assertThat(noSuchMember.err()).contains("no member node-9 (its members: node-0, node-1");
    for (int i = 0; i < 3; i++) {
      assertThat(cluster.node(i).terminate()).isZero();
    }
    for (int i = 0; i < 3; i++) {
      Run restored = restoreNode(series + "/b1", i);
      assertThat(restored.exit()).as(restored.err()).isZero();
      assertThat(restored.out()).contains("restored node-" + i + "'s snapshot of backup b1");
    }
    for (int i = 0; i < 3; i++) {
      cluster.relaunch(i);
    }
    for (int i = 0; i < 3; i++) {
      cluster.node(i).awaitReady();
    }
    for (int node = 0; node < 3; node++) {
      try (KvorumClient client = cluster.client(node)) {
        for (Map.Entry<String, String> key : values.entrySet()) {
          assertThat(client.getUtf8(key.getKey())).as(key.getKey()).contains(key.getValue());
        }
        assertThat(client.getUtf8("new0")).as("written after b1").isEmpty();
      }
    }
  }

  private Run restoreNode(String backup, int node) {
    return cli(
        "restore-node",
        "--from",
        backup,
        "--node-id",
        "node-" + node,
        "--data-dir",
        work.resolve("old").resolve("node-" + node).toString());
  }

  private static long stored(S3Client bucket, String prefix) {
    return bucket.listObjectsV2(b -> b.bucket(SeaweedFs.BUCKET).prefix(prefix)).keyCount();
  }

  private static void write(KvorumClient client, Map<String, String> versions) {
    for (int i = 0; i < 300; i++) {
      client.put("k" + i, "v-" + i);
    }
    for (int i = 0; i < 20; i++) {
      client.put("d" + i, "doomed");
      client.delete("d" + i);
      client.put(
          ("t" + i).getBytes(UTF_8),
          ("ttl-" + i).getBytes(UTF_8),
          Consistency.DEFAULT,
          Duration.ofHours(1));
    }
    for (int i = 0; i < 300; i++) {
      versions.put("k" + i, etag(client, "k" + i));
    }
    for (int i = 0; i < 20; i++) {
      versions.put("t" + i, etag(client, "t" + i));
    }
  }

  private static void writeUntil(KvorumClient client, AtomicBoolean writing, List<String> done) {
    for (int i = 0; writing.get(); i++) {
      String key = "w" + i;
      client.put(key, "during");
      done.add(key);
    }
  }

  /** Overwrites the largest file of node-1 in backup b1 with as many other bytes; its key. */
  private static String corruptOneDataFile() throws java.io.IOException {
    try (S3Client client = s3.client()) {
      byte[] manifest =
          client
              .getObjectAsBytes(
                  b -> b.bucket(SeaweedFs.BUCKET).key("prod/backups/b1/manifest.json"))
              .asByteArray();
      JsonNode largest = null;
      for (JsonNode member : new ObjectMapper().readTree(manifest).path("members")) {
        for (JsonNode file : member.path("files")) {
          if (member.path("id").asText().equals("node-1")
              && (largest == null
                  || file.path("bytes").asLong() > largest.path("bytes").asLong())) {
            largest = file;
          }
        }
      }
      String key = largest.path("key").asText();
      byte[] garbage = new byte[Math.toIntExact(largest.path("bytes").asLong())];
      java.util.Arrays.fill(garbage, (byte) 'x');
      client.putObject(b -> b.bucket(SeaweedFs.BUCKET).key(key), RequestBody.fromBytes(garbage));
      return key;
    }
  }

  /** The counts of "sent N files" and "M files (…) already stored" in a backup's summary. */
  private static long[] sentAndKept(String summary) {
    Matcher m =
        Pattern.compile("sent ([\\d,]+) files .*; ([\\d,]+) files \\([^)]*\\) already stored")
            .matcher(summary);
    assertThat(m.find()).as(summary).isTrue();
    return new long[] {
      Long.parseLong(m.group(1).replace(",", "")), Long.parseLong(m.group(2).replace(",", ""))
    };
  }

  private static String etag(KvorumClient client, String key) {
    return client.getVersioned(key.getBytes(UTF_8)).map(Versioned::etag).orElse(null);
  }

  private static String port(ProcessCluster cluster) {
    return String.valueOf(cluster.httpPort(0));
  }

  private static void credentials(String secret) {
    System.setProperty("aws.accessKeyId", SeaweedFs.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", secret);
  }

  private record Run(int exit, String out, String err) {}

  private static Run cliAs(String secret, String... args) {
    credentials(secret);
    try {
      return cli(args);
    } finally {
      credentials(SeaweedFs.SECRET_KEY);
    }
  }

  /**
   * Runs a kvorum-node command against the class's SeaweedFS, in this JVM (credentials as
   * properties).
   */
  private static Run cli(String... args) {
    return cliAt(s3.endpoint(), args);
  }

  /** Runs a kvorum-node command against the object storage at {@code endpoint}, in this JVM. */
  private static Run cliAt(String endpoint, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--endpoint", endpoint, "--path-style"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var command = KvorumNode.commandLine();
    command.setOut(new PrintWriter(out, true));
    command.setErr(new PrintWriter(err, true));
    int exit = command.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }
}
