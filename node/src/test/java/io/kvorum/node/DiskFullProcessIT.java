package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.KvorumClient;
import io.kvorum.node.clock.FileCeilingStore;
import io.kvorum.node.core.Version;
import io.kvorum.node.testing.NodeProcess;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * Issue 11, part 1: a node whose data directory is on a small file system this test mounts (a 64
 * MiB tmpfs, so it needs root: skipped with the reason elsewhere, failed when {@code CI=true}).
 * Filled with 1 MiB PUTs until refused, it answers every write 507 (a DELETE, a small PUT after the
 * clock's ceiling had to move on) and every read 200, says so once in its log, and takes writes
 * again by itself once a file beside its data directory is deleted; a SIGKILL and restart after
 * that lose no acknowledged write, and its clock goes on past every version it issued.
 */
class DiskFullProcessIT {
  private static final int VALUE_BYTES = 1 << 20;

  /**
   * Most of the disk goes to a file beside the data directory, deleted to free space: enough then
   * for the compactions that follow (they rewrite up to all of the data) and for a restart's flush.
   */
  private static final int FILLER_BYTES = 40 << 20;

  /** Small memtables: RocksDB resumes after a full disk once one memtable's worth is free. */
  private static final String[] OPTIONS = {"--write-buffer-size", "4MiB"};

  @TempDir Path work;
  private Path mounted;

  @AfterEach
  void unmount() throws Exception {
    if (mounted != null) {
      Process umount = new ProcessBuilder("umount", mounted.toString()).inheritIO().start();
      assertThat(umount.waitFor(30, TimeUnit.SECONDS) && umount.exitValue() == 0)
          .as("umount " + mounted)
          .isTrue();
    }
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aFullDiskRefusesWritesWith507KeepsReadingAndTakesWritesAgainOnceSpaceIsFreed()
      throws Exception {
    Path disk = mountSmallDisk(work.resolve("disk"));
    Path filler = disk.resolve("filler");
    Files.write(filler, new byte[FILLER_BYTES]);
    Path data = disk.resolve("data");
    Path logs = work.resolve("logs");
    Map<String, Integer> acknowledged = new TreeMap<>(); // key → seed of its 1 MiB value

    try (NodeProcess node = NodeProcess.startSingle(data, logs, "n1", OPTIONS);
        KvorumClient kv = node.client()) {
      HttpResponse<byte[]> refusal = null;
      for (int i = 0; i < 200 && refusal == null; i++) {
        HttpResponse<byte[]> answer = send(kv, "PUT", "fill-" + i, value(i));
        if (answer.statusCode() == 201) {
          acknowledged.put("fill-" + i, i);
        } else {
          refusal = answer;
        }
      }
      assertThat(refusal).as("a write refused within 200 MiB on a 64 MiB disk").isNotNull();
      assertFullDisk(refusal, "the first refused PUT");
      // About 24 MiB free holds each 1 MiB value twice (its record and its change, SPEC §12) with
      // the log beside them: some 7 writes before the refusal.
      assertThat(acknowledged).hasSizeGreaterThan(4);

      for (String key : List.of("fill-0", "fill-1", "fill-2")) {
        assertFullDisk(send(kv, "DELETE", key, null), "DELETE " + key);
      }
      // As in the issue: by now the clock's ceiling (one second ahead) has had to be stored anew.
      Thread.sleep(5_000);
      assertFullDisk(send(kv, "PUT", "small", new byte[] {1}), "a 1-byte PUT 5 s later");

      assertEveryValueReads(kv, acknowledged);
      assertThat(node.isAlive()).isTrue();
      assertThat(kv.ready()).as("/health/ready: a full disk does not stop reads").isTrue();
      assertThat(noSpaceGauge(kv)).isEqualTo(1);
      assertThat(count(node.stdout(), "the disk is full")).as(node.stdout()).isEqualTo(1);
      assertThat(node.stdout()).doesNotContain("periodic clock ceiling renewal");

      Files.delete(filler);
      long freed = System.nanoTime();
      Awaitility.await("a write taken again after the filler was deleted, without a restart")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> send(kv, "PUT", "after-0", new byte[] {2}).statusCode() == 201);
      System.out.printf(
          "full disk: %d values of 1 MiB acknowledged before the 507; writes taken again %d ms"
              + " after %d MiB were freed%n",
          acknowledged.size(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freed),
          FILLER_BYTES >> 20);
      assertThat(send(kv, "DELETE", "fill-0", null).statusCode()).isEqualTo(202);
      acknowledged.remove("fill-0");
      HttpResponse<byte[]> large = send(kv, "PUT", "after-1", value(1_000));
      assertThat(large.statusCode())
          .as(
              "a 1 MiB PUT: %s; %d bytes free; log:%n%s",
              new String(large.body(), UTF_8),
              Files.getFileStore(disk).getUsableSpace(),
              node.stdout())
          .isEqualTo(201);
      assertThat(noSpaceGauge(kv)).isZero();
      assertThat(count(node.stdout(), "disk space is back")).isEqualTo(1);
      assertThat(count(node.stdout(), "the disk is full")).isEqualTo(1);
      assertThat(node.stdout()).doesNotContain("a periodic task failed");
      assertThat(send(kv, "PUT", "clock-before-restart", new byte[] {3}).statusCode())
          .isEqualTo(201);
      node.kill();
    }
    Map<String, Long> before = versions(data.resolve("db"));
    long newestBefore = before.values().stream().mapToLong(Long::longValue).max().orElseThrow();

    try (NodeProcess node = NodeProcess.startSingle(data, logs, "n1", OPTIONS);
        KvorumClient kv = node.client()) {
      assertEveryValueReads(kv, acknowledged);
      assertThat(kv.get("fill-0".getBytes(UTF_8))).as("deleted once space was back").isEmpty();
      assertThat(kv.get("after-0".getBytes(UTF_8)).orElseThrow()).isEqualTo(new byte[] {2});
      assertThat(kv.get("after-1".getBytes(UTF_8)).orElseThrow()).isEqualTo(value(1_000));
      assertThat(send(kv, "PUT", "clock-after-restart", new byte[] {4}).statusCode())
          .isEqualTo(201);
      node.kill();
    }
    long after = versions(data.resolve("db")).get("clock-after-restart");
    assertThat(after)
        .as("the first version after the restart is above every version issued before it")
        .isGreaterThan(newestBefore);
    assertThat(new FileCeilingStore(data).load())
        .as("the stored ceiling covers every issued version")
        .isGreaterThan(new Version(after).physicalMillis());
  }

  private static void assertFullDisk(HttpResponse<byte[]> answer, String what) {
    String body = new String(answer.body(), UTF_8);
    assertThat(answer.statusCode()).as(what + ": " + body).isEqualTo(507);
    assertThat(answer.headers().firstValue("content-type")).hasValue("application/problem+json");
    assertThat(body).contains("disk is full");
  }

  private static void assertEveryValueReads(KvorumClient kv, Map<String, Integer> values) {
    List<String> wrong = new ArrayList<>();
    values.forEach(
        (key, seed) -> {
          Optional<byte[]> read = kv.get(key.getBytes(UTF_8));
          if (read.isEmpty() || !java.util.Arrays.equals(read.get(), value(seed))) {
            wrong.add(key);
          }
        });
    assertThat(wrong).as("acknowledged values that do not read back").isEmpty();
  }

  private static HttpResponse<byte[]> send(
      KvorumClient kv, String method, String key, byte[] body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(kv.baseUri().resolve(URI.create("/v0/entity?id=" + key)))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    return kv.send(request);
  }

  private static double noSpaceGauge(KvorumClient kv) {
    String metrics =
        new String(
            kv.send(HttpRequest.newBuilder(kv.baseUri().resolve("/metrics")).GET()).body(), UTF_8);
    Matcher line =
        Pattern.compile("(?m)^kvorum_storage_no_space\\{[^}]*} (\\S+)$").matcher(metrics);
    assertThat(line.find()).as("kvorum_storage_no_space in /metrics").isTrue();
    return Double.parseDouble(line.group(1));
  }

  private static byte[] value(int seed) {
    byte[] value = new byte[VALUE_BYTES];
    new Random(seed).nextBytes(value);
    return value;
  }

  private static int count(String text, String fragment) {
    return (int) text.lines().filter(line -> line.contains(fragment)).count();
  }

  /**
   * The version of every record in the (closed) database: the first eight bytes of its stored form
   * (docs/architecture.md, "On disk").
   */
  private static Map<String, Long> versions(Path db) throws Exception {
    Map<String, Long> versions = new TreeMap<>();
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (ColumnFamilyOptions records = new ColumnFamilyOptions().setMergeOperatorName("max");
        DBOptions options = new DBOptions();
        RocksDB rocks =
            RocksDB.openReadOnly(
                options,
                db.toString(),
                List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, records)),
                handles);
        var it = rocks.newIterator(handles.get(0))) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        versions.put(new String(it.key(), UTF_8), ByteBuffer.wrap(it.value()).getLong());
      }
      it.status();
    } finally {
      handles.forEach(ColumnFamilyHandle::close);
    }
    return versions;
  }

  /** Mounts a 64 MiB tmpfs on {@code dir}; skips the test where it cannot, fails in CI. */
  private Path mountSmallDisk(Path dir) throws Exception {
    Files.createDirectories(dir);
    String reason;
    try {
      Process mount =
          new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", dir.toString())
              .redirectErrorStream(true)
              .start();
      String output = new String(mount.getInputStream().readAllBytes(), UTF_8).strip();
      if (mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0) {
        mounted = dir;
        return dir;
      }
      reason = "cannot mount a 64 MiB tmpfs (it needs root): " + output;
    } catch (java.io.IOException e) {
      reason = "cannot run mount: " + e.getMessage();
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      Assertions.fail("CI=true but " + reason + ": the full-disk test must run in CI (as root)");
    }
    Assumptions.abort(reason);
    throw new AssertionError("unreachable");
  }
}
