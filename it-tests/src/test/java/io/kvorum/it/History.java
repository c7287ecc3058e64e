package io.kvorum.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.node.testing.FeedReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;

/**
 * What clients asked of the cluster and what it acknowledged. Each key is written by one client
 * thread only, one request at a time, so its writes are ordered and "the latest acknowledged write"
 * is well defined. A write that failed (504, connection refused) may or may not have been applied,
 * so a read may also show any write attempted after the latest acknowledged one.
 */
final class History {
  /** One write: a value, or a delete (null value); acknowledged or not. */
  record Write(String value, boolean acknowledged) {}

  /** The outcome of a check. */
  record Verdict(int checked, List<String> lost) {}

  private final Map<String, List<Write>> writes = new ConcurrentHashMap<>();

  /** Called by the key's owning thread only, in the order its writes were made. */
  void record(String key, String value, boolean acknowledged) {
    writes.computeIfAbsent(key, k -> new ArrayList<>()).add(new Write(value, acknowledged));
  }

  /** The acknowledged writes of each key, in order: values, null for a delete. */
  Map<String, List<String>> acknowledgedWrites() {
    Map<String, List<String>> acknowledged = new java.util.HashMap<>();
    writes.forEach(
        (key, history) ->
            history.stream()
                .filter(Write::acknowledged)
                .forEach(
                    write ->
                        acknowledged
                            .computeIfAbsent(key, k -> new ArrayList<>())
                            .add(write.value())));
    return acknowledged;
  }

  /** A value's place in its writer's sequence: values are {@code <writer name>-<n>}. */
  static long place(String value) {
    return Long.parseLong(value.substring(value.lastIndexOf('-') + 1));
  }

  /**
   * Waits until {@code feed}, opened before this history's first write, has shown every
   * acknowledged write, and checks that no key's values went backwards in it (SPEC §12).
   */
  void assertShownBy(FeedReader feed, String name) {
    Map<String, List<String>> acknowledged = acknowledgedWrites();
    Awaitility.await("every acknowledged write shown by " + name)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(feed.missing(acknowledged))
                    .as(
                        () ->
                            String.format(
                                "acknowledged writes %s did not show (of %d lines it sent, %d"
                                    + " changes; %s)",
                                name,
                                feed.events().size(),
                                feed.changes().size(),
                                feed.ended()
                                    ? "it ended: "
                                        + feed.error().map(Object::toString).orElse("cut")
                                    : "still open"))
                    .isEmpty());
    assertThat(feed.outOfOrder(History::place)).as("keys out of order in " + name).isEmpty();
    System.out.printf(
        "%s showed %d changes, every one of %d acknowledged writes among them%n",
        name, feed.changes().size(), acknowledged.values().stream().mapToInt(List::size).sum());
  }

  long acknowledged() {
    return writes.values().stream().flatMap(List::stream).filter(Write::acknowledged).count();
  }

  /**
   * Reads every key with an acknowledged write at quorum and checks it shows its latest
   * acknowledged write or a later attempt; deleted keys must stay deleted.
   */
  Verdict verify(KvorumClient reader, Consistency quorum) {
    int checked = 0;
    List<String> lost = new ArrayList<>();
    for (Map.Entry<String, List<Write>> entry : writes.entrySet()) {
      List<Write> history = entry.getValue();
      int latest = -1;
      for (int i = 0; i < history.size(); i++) {
        if (history.get(i).acknowledged()) {
          latest = i;
        }
      }
      if (latest < 0) {
        continue;
      }
      checked++;
      Optional<String> read =
          reader
              .get(entry.getKey().getBytes(StandardCharsets.UTF_8), quorum)
              .map(v -> new String(v, StandardCharsets.UTF_8));
      boolean allowed = false;
      for (int i = latest; i < history.size() && !allowed; i++) {
        String value = history.get(i).value();
        allowed = value == null ? read.isEmpty() : read.equals(Optional.of(value));
      }
      if (!allowed) {
        lost.add(
            entry.getKey()
                + ": expected "
                + describe(history.get(latest))
                + " (or a later attempt), read "
                + read.orElse("nothing"));
      }
    }
    return new Verdict(checked, lost);
  }

  private static String describe(Write write) {
    return write.value() == null ? "deleted" : "'" + write.value() + "'";
  }
}
