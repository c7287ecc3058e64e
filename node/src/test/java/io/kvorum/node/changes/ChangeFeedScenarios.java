package io.kvorum.node.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvorum.api.ChangeEvent;
import io.kvorum.api.ChangeWatch;
import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.FeedReader;
import io.kvorum.node.testing.FeedReader.Event;
import io.kvorum.node.testing.TestCluster;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Change feeds over a cluster through HTTP (SPEC §12): what a consumer of {@code /v0/changes} sees
 * while writers go through every node, nodes stop, and consumers resume or stop reading.
 */
@Timeout(120)
abstract class ChangeFeedScenarios {
  static final Duration WAIT = Duration.ofSeconds(30);

  /** The binding these scenarios run on. */
  abstract TestCluster.Factory clusters();

  static URI uri(TestCluster cluster, int node) {
    return URI.create(cluster.node(node).url("/"));
  }

  static String q(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  @Test
  void aRangeFeedShowsEveryWriteAndDeleteThroughEveryNodeInEachKeysOrder() {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed =
            FeedReader.open(uri(cluster, 1), "start=" + q("r/") + "&end=" + q("r0"))) {
      assertThat(feed.status()).isEqualTo(200);
      Map<String, List<String>> written = new HashMap<>();
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 20; i++) {
          String key = "r/" + i;
          String value = "v" + round;
          cluster.client(1 + (i + round) % 3).put(key, value);
          written.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
      }
      cluster.client(2).delete("r/0");
      written.get("r/0").add(null);
      cluster.client(3).put("s/outside", "x");

      await().atMost(WAIT).untilAsserted(() -> assertThat(feed.valuesByKey()).isEqualTo(written));
      assertThat(feed.changes()).allSatisfy(c -> assertThat(c.cursor()).isNotBlank());
    }
  }

  @Test
  void aFeedOfOneKeyShowsThatKeyAlone() {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed = FeedReader.open(uri(cluster, 2), "id=" + q("one"))) {
      cluster.client(1).put("one", "1");
      cluster.client(1).put("one-more", "x");
      cluster.client(3).put("one", "2");

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(feed.valuesByKey()).isEqualTo(Map.of("one", List.of("1", "2"))));
    }
  }

  @Test
  void aFeedResumedFromItsLastCursorMissesNothingWrittenMeanwhile() {
    try (TestCluster cluster = clusters().start(3)) {
      String cursor;
      try (FeedReader first = FeedReader.open(uri(cluster, 1), "start=" + q("c/"))) {
        cluster.client(1).put("c/before", "b");
        await().atMost(WAIT).until(() -> first.changes().size() == 1);
        cursor = first.lastCursor().orElseThrow();
      }
      for (int i = 0; i < 10; i++) {
        cluster.client(1 + i % 3).put("c/" + i, "v" + i);
      }
      try (FeedReader resumed =
              FeedReader.open(uri(cluster, 3), "start=" + q("c/") + "&since=" + cursor);
          FeedReader bySse =
              FeedReader.open(uri(cluster, 2), "start=" + q("c/"), "Last-Event-ID", cursor)) {
        for (FeedReader feed : List.of(resumed, bySse)) {
          await()
              .atMost(WAIT)
              .untilAsserted(
                  () -> {
                    Map<String, List<String>> seen = feed.valuesByKey();
                    for (int i = 0; i < 10; i++) {
                      assertThat(seen.get("c/" + i)).containsExactly("v" + i);
                    }
                  });
        }
      }
    }
  }

  /**
   * Writers through some nodes, each writing its own keys ({@code prefix<writer>/<n % 25>}, values
   * {@code v<n>}) at ack=2 of 3 until closed; what was acknowledged, by key, in order.
   */
  static final class Writers implements AutoCloseable {
    final Map<String, List<String>> acknowledged = new ConcurrentHashMap<>();
    private final AtomicInteger written = new AtomicInteger();
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();

    Writers(TestCluster cluster, String prefix, int... via) {
      for (int node : via) {
        String keys = prefix + node + "/";
        threads.add(Thread.ofVirtual().start(() -> write(cluster.client(node), keys)));
      }
    }

    private void write(KvorumClient client, String keys) {
      for (int n = 0; writing.get(); n++) {
        String key = keys + (n % 25);
        String value = "v" + n;
        try {
          client.put(
              key.getBytes(StandardCharsets.UTF_8),
              value.getBytes(StandardCharsets.UTF_8),
              Consistency.of(2, 3));
        } catch (RuntimeException e) {
          pause(); // not acknowledged: nothing promised
          continue;
        }
        acknowledged.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(value);
        written.incrementAndGet();
      }
    }

    private static void pause() {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Returns once {@code count} more writes were acknowledged. */
    void awaitMore(int count) {
      int now = written.get();
      await().atMost(WAIT).until(() -> written.get() >= now + count);
    }

    @Override
    public void close() throws InterruptedException {
      writing.set(false);
      for (Thread thread : threads) {
        thread.join();
      }
    }
  }

  /**
   * Every write {@code writers} had acknowledged appears in {@code feed}, and per key the values
   * ({@code v<n>}, n growing) never go backwards.
   */
  static void assertEverySeenInOrder(FeedReader feed, Writers writers) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(feed.missing(writers.acknowledged))
                    .as("acknowledged writes the feed did not show")
                    .isEmpty());
    assertThat(feed.outOfOrder(v -> Long.parseLong(v.substring(1)))).isEmpty();
  }

  @Test
  void everyAcknowledgedWriteAppearsWhileANodeStops() throws Exception {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed = FeedReader.open(uri(cluster, 1), "start=" + q("w/"))) {
      Writers writers = new Writers(cluster, "w/", 1, 2); // node 3 stops
      try (writers) {
        writers.awaitMore(100);
        cluster.stop(3);
        writers.awaitMore(100);
      }
      assertEverySeenInOrder(feed, writers);
    }
  }

  @Test
  void everyAcknowledgedWriteAppearsAcrossPartitionsOfTheFeedsNodeAndOfAnother() throws Exception {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed = FeedReader.open(uri(cluster, 1), "start=" + q("p/"))) {
      await().atMost(WAIT).until(() -> feed.lastCursor().isPresent());
      Writers writers = new Writers(cluster, "p/", 1, 2, 3);
      try (writers) {
        writers.awaitMore(50);
        cluster.isolate(1); // the feed's own node: the others' writes reach it after the heal
        writers.awaitMore(50);
        cluster.heal();
        writers.awaitMore(50);
        cluster.partition(1, 3); // a member the feed's node cannot reach
        writers.awaitMore(50);
        cluster.heal();
        writers.awaitMore(50);
      }
      assertEverySeenInOrder(feed, writers);
    }
  }

  @Test
  void everyAcknowledgedWriteAppearsAcrossAJoinAlsoThroughTheNewNode() throws Exception {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed = FeedReader.open(uri(cluster, 1), "start=" + q("j/"))) {
      await().atMost(WAIT).until(() -> feed.lastCursor().isPresent());
      Writers writers = new Writers(cluster, "j/", 1, 2, 3);
      int joined;
      try (writers) {
        writers.awaitMore(50);
        joined = cluster.join(2);
        writers.awaitMore(50);
        cluster.node(joined).ready().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        writers.awaitMore(50);
      }
      Writers throughNew = new Writers(cluster, "j/", joined);
      try (throughNew) {
        throughNew.awaitMore(50);
      }
      assertEverySeenInOrder(feed, writers);
      assertEverySeenInOrder(feed, throughNew);
    }
  }

  @Test
  void aClientWatchResumesByItselfWhenItsNodeStopsAndMissesNothing() {
    try (TestCluster cluster = clusters().start(3);
        KvorumClient client =
            KvorumClient.builder()
                .seeds("127.0.0.1:" + cluster.node(1).port(), "127.0.0.1:" + cluster.node(2).port())
                .discovery(false)
                .build()) {
      List<ChangeEvent> events = new CopyOnWriteArrayList<>();
      try (ChangeWatch watch =
          client.watch("cw/".getBytes(StandardCharsets.UTF_8), null, null, events::add)) {
        await().atMost(WAIT).until(() -> watch.cursor() != null);
        for (int i = 0; i < 10; i++) {
          cluster.client(3).put("cw/" + i, "a" + i);
        }
        await().atMost(WAIT).until(() -> changed(events).size() >= 10);
        cluster.stop(1); // the node the watch follows: it resumes on the other seed
        for (int i = 0; i < 10; i++) {
          cluster.client(3).put("cw/" + i, "b" + i);
        }

        await()
            .atMost(WAIT)
            .untilAsserted(
                () -> {
                  Map<String, List<String>> seen = new HashMap<>();
                  changed(events)
                      .forEach(
                          e ->
                              seen.computeIfAbsent(e.keyUtf8(), k -> new ArrayList<>())
                                  .add(e.valueUtf8()));
                  for (int i = 0; i < 10; i++) {
                    assertThat(seen.get("cw/" + i)).contains("a" + i, "b" + i);
                  }
                });
        assertThat(watch.resumes()).isPositive();
        assertThat(watch.ended()).isNotDone();
      }
    }
  }

  private static List<ChangeEvent> changed(List<ChangeEvent> events) {
    return events.stream().filter(ChangeEvent::isChange).toList();
  }

  @Test
  void aStoppingNodeEndsItsFeedsAtOnceSayingWhy() {
    try (TestCluster cluster = clusters().start(3);
        FeedReader feed = FeedReader.open(uri(cluster, 1), "start=s/")) {
      await().atMost(WAIT).until(() -> feed.lastCursor().isPresent());
      long started = System.nanoTime();
      cluster.stop(1);

      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("the stop does not wait out the shutdown grace (5 s in tests) for the feed")
          .isLessThan(Duration.ofSeconds(4));
      await().atMost(WAIT).until(feed::ended);
      assertThat(feed.error())
          .hasValueSatisfying(
              problem -> assertThat(problem.path("detail").asText()).contains("shutting down"));
    }
  }

  @Test
  void aCursorOlderThanTheRetentionIsGoneAndAMalformedOneRefused() {
    try (TestCluster cluster = clusters().start(1, c -> c.changeRetention(Duration.ofMinutes(1)))) {
      long tenMinutesAgo = (System.currentTimeMillis() - 600_000) << 16;
      try (FeedReader old = FeedReader.open(uri(cluster, 1), "start=a&since=" + tenMinutesAgo);
          FeedReader garbled = FeedReader.open(uri(cluster, 1), "start=a&since=yesterday");
          FeedReader neither = FeedReader.open(uri(cluster, 1), "end=b")) {
        assertThat(old.status()).isEqualTo(410);
        assertThat(old.body()).contains("cursor-expired").contains("read the range again");
        assertThat(garbled.status()).isEqualTo(400);
        assertThat(garbled.body()).contains("since");
        assertThat(neither.status()).isEqualTo(400);
      }
    }
  }

  @Test
  void manyFeedsOnANodeReadEachMemberInOneCallPerPoll() throws Exception {
    int feeds = 40;
    try (TestCluster cluster = clusters().start(3)) {
      List<FeedReader> open = new ArrayList<>();
      try {
        for (int i = 0; i < feeds; i++) {
          open.add(FeedReader.open(uri(cluster, 1), "start=" + q("many/" + i + "/")));
        }
        await().atMost(WAIT).until(() -> open.stream().allMatch(f -> f.lastCursor().isPresent()));
        long before = changesCalls(cluster, 1);
        long started = System.nanoTime();
        Thread.sleep(2_000);
        long calls = changesCalls(cluster, 1) - before;
        long polls = Duration.ofNanos(System.nanoTime() - started).toMillis() / 100 + 1;

        assertThat(calls)
            .as(
                "%d idle feeds polled %d times: one call per peer per poll (a call per feed would"
                    + " be %d)",
                feeds, polls, 2 * feeds * polls)
            .isLessThanOrEqualTo(2 * 2 * polls);
        cluster.client(2).put("many/7/k", "v");
        await()
            .atMost(WAIT)
            .untilAsserted(
                () ->
                    assertThat(open.get(7).changes()).extracting(Event::key).contains("many/7/k"));
      } finally {
        open.forEach(FeedReader::close);
      }
    }
  }

  /** The change-log calls node {@code i} made to its peers. */
  private static long changesCalls(TestCluster cluster, int i) {
    return cluster
        .node(i)
        .bootstrap()
        .registry()
        .find("kvorum.replica.calls")
        .tag("operation", "changes")
        .timers()
        .stream()
        .mapToLong(io.micrometer.core.instrument.Timer::count)
        .sum();
  }

  @Test
  void aNodeThatCapturesNothingRefusesFeedsForGoodAndAWatchEndsWithIt() {
    try (TestCluster cluster = clusters().start(1, c -> c.changeRetention(Duration.ZERO));
        FeedReader refused = FeedReader.open(uri(cluster, 1), "start=a");
        KvorumClient client =
            KvorumClient.builder()
                .seeds("127.0.0.1:" + cluster.node(1).port())
                .discovery(false)
                .build()) {
      assertThat(refused.status()).isEqualTo(501);
      assertThat(refused.body()).contains("changes-not-captured").contains("--change-retention");

      ChangeWatch watch = client.watch("a".getBytes(StandardCharsets.UTF_8), null, null, e -> {});
      assertThat(watch.ended())
          .as("a setting is not retried: the watch ends with the node's answer")
          .failsWithin(WAIT)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("HTTP 501")
          .withMessageContaining("captures no changes");
      assertThat(watch.resumes()).isZero();
    }
  }

  @Test
  void aConsumerThatNeverReadsIsCutOffWhileWritesGoOn() throws Exception {
    try (TestCluster cluster = clusters().start(3, c -> c.feedStall(Duration.ofSeconds(1)));
        Socket stuck = new Socket("127.0.0.1", cluster.node(1).port())) {
      OutputStream out = stuck.getOutputStream();
      out.write(
          ("GET /v0/changes?start=big/ HTTP/1.1\r\nHost: x\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      byte[] value = new byte[64 << 10];
      long deadline = System.nanoTime() + WAIT.toNanos();
      int n = 0;
      while (System.nanoTime() < deadline && cutOff(cluster) == 0) {
        cluster.client(2).put(("big/" + n++ % 50).getBytes(StandardCharsets.UTF_8), value);
      }
      assertThat(cutOff(cluster)).as("consumers cut off").isEqualTo(1);
      // Writes go on, and so does a feed that reads.
      try (FeedReader reading = FeedReader.open(uri(cluster, 1), "start=big/")) {
        cluster.client(3).put("big/after", "a");
        await()
            .atMost(WAIT)
            .until(() -> reading.changes().stream().anyMatch(c -> c.key().equals("big/after")));
      }
      // The stuck consumer's connection was closed: reading it to its end ends.
      InputStream in = stuck.getInputStream();
      stuck.setSoTimeout((int) WAIT.toMillis());
      byte[] sink = new byte[1 << 16];
      while (in.read(sink) >= 0) {
        // drain to the close
      }
    }
  }

  private static double cutOff(TestCluster cluster) {
    return cluster
        .node(1)
        .bootstrap()
        .registry()
        .find("kvorum.change.feeds.cut.off")
        .counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }
}
