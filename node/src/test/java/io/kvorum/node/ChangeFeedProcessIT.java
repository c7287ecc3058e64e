package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.FeedReader;
import io.kvorum.node.testing.ProcessCluster;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Change feeds (SPEC §12) on real processes talking gRPC: a range feed while writers go through
 * every node and one node is SIGKILLed, a resumed feed, a cursor past the retention, and a consumer
 * that never reads.
 */
class ChangeFeedProcessIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path work;

  private static URI uri(ProcessCluster cluster, int node) {
    return URI.create("http://127.0.0.1:" + cluster.httpPort(node) + "/");
  }

  @Test
  void everyAcknowledgedWriteAppearsInOrderThroughASigkillAndAfterAResume() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 3).start();
        FeedReader feed = FeedReader.open(uri(cluster, 0), "start=f/&end=f0")) {
      assertThat(feed.status()).isEqualTo(200);
      Map<String, List<String>> acknowledged = new ConcurrentHashMap<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger written = new AtomicInteger();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        KvorumClient client = cluster.client(w);
        int writer = w;
        writers.add(
            Thread.ofVirtual()
                .start(() -> write(client, "f/" + writer + "/", writing, acknowledged, written)));
      }
      await().atMost(WAIT).until(() -> written.get() > 300);
      cluster.node(2).kill();
      int atKill = written.get();
      await().atMost(WAIT).until(() -> written.get() > atKill + 300);
      writing.set(false);
      for (Thread writer : writers) {
        writer.join();
      }
      System.out.printf(
          "feeds: %d writes acknowledged, node-2 SIGKILLed after %d%n", written.get(), atKill);

      await().atMost(WAIT).untilAsserted(() -> assertEveryWriteSeen(feed, acknowledged));
      assertInOrder(feed);

      // Resumed on another node from the last cursor: what was written meanwhile appears.
      String cursor = feed.lastCursor().orElseThrow();
      feed.close();
      Map<String, List<String>> later = new ConcurrentHashMap<>();
      try (KvorumClient client = cluster.client(1)) {
        for (int n = 0; n < 50; n++) {
          String key = "f/later/" + n % 10;
          client.put(key.getBytes(UTF_8), ("v" + n).getBytes(UTF_8), Consistency.of(2, 3));
          later.computeIfAbsent(key, k -> new ArrayList<>()).add("v" + n);
        }
      }
      try (FeedReader resumed =
          FeedReader.open(uri(cluster, 1), "start=f/&end=f0&since=" + cursor)) {
        await().atMost(WAIT).untilAsserted(() -> assertEveryWriteSeen(resumed, later));
        assertInOrder(resumed);
      }
    }
  }

  private static void write(
      KvorumClient client,
      String prefix,
      AtomicBoolean writing,
      Map<String, List<String>> acknowledged,
      AtomicInteger written) {
    for (int n = 0; writing.get(); n++) {
      String key = prefix + n % 20;
      try {
        client.put(key.getBytes(UTF_8), ("v" + n).getBytes(UTF_8), Consistency.of(2, 3));
      } catch (RuntimeException e) {
        if (!writing.get()) {
          return;
        }
        continue; // not acknowledged (its node was killed): nothing promised
      }
      acknowledged.computeIfAbsent(key, k -> new ArrayList<>()).add("v" + n);
      written.incrementAndGet();
    }
  }

  private static void assertEveryWriteSeen(FeedReader feed, Map<String, List<String>> written) {
    assertThat(feed.missing(written)).as("acknowledged writes the feed did not show").isEmpty();
  }

  /** Within a feed, each key's versions (the writers' v0, v1, ...) never go backwards. */
  private static void assertInOrder(FeedReader feed) {
    assertThat(feed.outOfOrder(v -> Long.parseLong(v.substring(1)))).isEmpty();
  }

  @Test
  void aCursorOlderThanTheRetentionAnswers410() throws Exception {
    try (ProcessCluster cluster = new ProcessCluster(work, 1, "--change-retention", "2s").start()) {
      String cursor;
      try (FeedReader feed = FeedReader.open(uri(cluster, 0), "start=a")) {
        await().atMost(WAIT).until(() -> feed.lastCursor().isPresent());
        cursor = feed.lastCursor().orElseThrow();
      }
      Thread.sleep(3_000); // the retention passes
      try (FeedReader gone = FeedReader.open(uri(cluster, 0), "start=a&since=" + cursor)) {
        assertThat(gone.status()).isEqualTo(410);
        assertThat(gone.body()).contains("cursor-expired");
      }
    }
  }

  @Test
  void aConsumerThatNeverReadsIsCutOffWhileWritesGoOn() throws Exception {
    try (ProcessCluster cluster =
            new ProcessCluster(work, 3)
                .environment(0, Map.of("JAVA_TOOL_OPTIONS", "-Dkvorum.test.feed-stall=1s"))
                .start();
        Socket stuck = new Socket("127.0.0.1", cluster.httpPort(0));
        KvorumClient writer = cluster.client(1)) {
      OutputStream out = stuck.getOutputStream();
      out.write("GET /v0/changes?start=big/ HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(UTF_8));
      out.flush();
      byte[] value = new byte[64 << 10];
      long deadline = System.nanoTime() + WAIT.toNanos();
      int n = 0;
      while (System.nanoTime() < deadline && cutOff(writer, cluster) == 0) {
        writer.put(("big/" + n++ % 50).getBytes(UTF_8), value);
      }
      assertThat(cutOff(writer, cluster)).as("consumers cut off on node-0").isEqualTo(1);
      for (int i = 0; i < 20; i++) {
        writer.put(("after/" + i).getBytes(UTF_8), value);
      }
      // The stuck consumer's connection was closed by the node: reading it to its end ends.
      stuck.setSoTimeout((int) WAIT.toMillis());
      InputStream in = stuck.getInputStream();
      byte[] sink = new byte[1 << 16];
      while (in.read(sink) >= 0) {
        // drain to the close
      }
    }
  }

  private static double cutOff(KvorumClient client, ProcessCluster cluster) {
    String metrics =
        new String(
            client
                .send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + cluster.httpPort(0) + "/metrics"))
                        .GET())
                .body(),
            UTF_8);
    Matcher line =
        Pattern.compile("(?m)^kvorum_change_feeds_cut_off_total(\\{[^}]*})? (\\S+)$")
            .matcher(metrics);
    return line.find() ? Double.parseDouble(line.group(2)) : 0;
  }
}
