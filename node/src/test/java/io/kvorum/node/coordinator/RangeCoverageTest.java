package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.topology.RendezvousPlacement;
import io.kvorum.node.topology.Zone;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ranges that lose nodes: the merge drops a failed source and goes on from the others for as long
 * as {@link RangeCoverage} says they hold every key, and fails once they may not.
 */
class RangeCoverageTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final long NOW = 1_700_000_000_000L;
  private static final long FOREVER = Long.MAX_VALUE;
  private static final List<NodeId> NODES =
      List.of(NodeId.of("n1"), NodeId.of("n2"), NodeId.of("n3"));

  @Test
  void aSourceFailingMidwayIsDroppedAndTheOthersCarryOnFromTheLastKeyPassedOn() {
    List<List<Entry>> all = List.of(entriesOn(3, "a", "b", "c"), entriesOn(3, "d", "e", "f"));
    ScriptedCursor n1 = new ScriptedCursor(Runnable::run, all);
    ScriptedCursor n2 = new ScriptedCursor(Runnable::run, all);
    ScriptedCursor n3 = new ScriptedCursor(Runnable::run, all);
    n3.failAfterBatches(1);

    List<Entry> merged = readAll(covered(3, n1, n2, n3), 2, FOREVER);

    assertThat(keys(merged)).containsExactly("a", "b", "c", "d", "e", "f");
    assertThat(n3.closed.get()).as("the failed source is let go").isTrue();
  }

  @Test
  void losingAsManyNodesAsTheKeysHaveCopiesEndsTheMerge() {
    List<List<Entry>> all = List.of(entriesOn(2, "a", "b"), entriesOn(2, "c", "d"));
    ScriptedCursor n1 = new ScriptedCursor(Runnable::run, all);
    ScriptedCursor n2 = new ScriptedCursor(Runnable::run, all);
    ScriptedCursor n3 = new ScriptedCursor(Runnable::run, all);
    n2.failAfterBatches(1);
    n3.failAfterBatches(1);

    try (ScanCursor merged = covered(3, n1, n2, n3)) {
      assertThat(keys(await(merged.next(2, FOREVER)))).containsExactly("a", "b");
      assertThat(merged.next(2, FOREVER))
          .failsWithin(WAIT)
          .withThrowableOfType(ExecutionException.class)
          .havingCause()
          .as("both lost nodes failed the same typed way: that is the failure")
          .isInstanceOf(StorageException.class);
      assertThat(merged.next(2, FOREVER)).as("the failure sticks").isCompletedExceptionally();
    }
  }

  @Test
  void aKeyWithFewerCopiesSeenAfterALossEndsTheMerge() {
    ScriptedCursor n1 =
        new ScriptedCursor(
            Runnable::run, List.of(entriesOn(3, "a", "b"), entriesOn(1, "c"), entriesOn(3, "d")));
    ScriptedCursor n2 =
        new ScriptedCursor(Runnable::run, List.of(entriesOn(3, "a", "b"), entriesOn(3, "d")));
    n2.failAfterBatches(1);

    List<String> passedOn = new ArrayList<>();
    Throwable failure = null;
    try (ScanCursor merged = covered(2, n1, n2)) {
      while (failure == null) {
        try {
          List<Entry> batch = merged.next(1, FOREVER).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          if (batch.isEmpty()) {
            break;
          }
          passedOn.addAll(keys(batch));
        } catch (Exception e) {
          failure = e;
        }
      }
    }

    assertThat(failure)
        .as("a single-copy key shows the lost node may have held others")
        .isNotNull();
    assertThat(passedOn).containsExactly("a", "b");
  }

  @Test
  void whatAFailedSourceHandedOverStillCounts() {
    Record older = Record.value(version(1), bytes("older"), Record.NO_EXPIRY, 2);
    Record newer = Record.value(version(2), bytes("newer"), Record.NO_EXPIRY, 2);
    ScriptedCursor n1 =
        new ScriptedCursor(Runnable::run, List.of(List.of(new Entry(key("k"), older))));
    ScriptedCursor n2 =
        new ScriptedCursor(Runnable::run, List.of(List.of(new Entry(key("k"), newer))));
    n2.failAfterBatches(1);

    List<Entry> merged = readAll(covered(2, n1, n2), 10, FOREVER);

    assertThat(values(merged)).containsExactly("newer");
  }

  @Test
  void nodesDownAtTheStartCountAsLost() {
    RangeCoverage coverage = coverage(3, 3);
    coverage.leftOut(NodeId.of("n2"), "connection transient_failure");
    assertThat(coverage.gone()).as("keys on three nodes, one down").isEmpty();

    coverage.leftOut(NodeId.of("n3"), "circuit open");
    assertThat(coverage.gone()).as("keys on three nodes, two down").isEmpty();

    coverage.seen(Record.value(version(1), bytes("v"), Record.NO_EXPIRY, 2));
    assertThat(coverage.gone())
        .as("a key on two nodes seen, two down")
        .get()
        .isInstanceOfSatisfying(
            NotEnoughReplicasException.class,
            e -> {
              assertThat(e.required()).as("nodes needed").isEqualTo(2);
              assertThat(e.answered()).as("nodes read").isEqualTo(1);
              assertThat(e.failed().get(NodeId.of("n2")))
                  .isEqualTo("not available: connection transient_failure");
              assertThat(e.pending()).isEmpty();
            });
  }

  @Test
  void theDefaultFromBoundsTheAssumptionEvenBeforeAnyKeyIsRead() {
    RangeCoverage coverage = coverage(3, 2);
    coverage.leftOut(NodeId.of("n3"), "down");
    assertThat(coverage.gone()).isEmpty();

    coverage.lost(0, new IllegalStateException("stream reset"));

    assertThat(coverage.gone()).get().isInstanceOf(NotEnoughReplicasException.class);
  }

  @Test
  void aNodeLostTheSameTypedWayAsEveryOtherIsReportedAsThatFailure() {
    RangeCoverage coverage = coverage(1, 1);
    StorageException broken =
        new StorageException(StorageException.Kind.FAILURE, "scan", null, null);

    coverage.lost(0, broken);

    assertThat(coverage.gone()).get().isSameAs(broken);
  }

  @Test
  void withZonesAWholeZoneLostStillLeavesACopyOfEveryKeyWhenFromIsAtMostTheZones() {
    java.util.Map<NodeId, Zone> zones = new java.util.LinkedHashMap<>();
    List<NodeId> nine = new ArrayList<>();
    for (int i = 1; i <= 9; i++) {
      NodeId id = NodeId.of("n" + i);
      nine.add(id);
      zones.put(id, Zone.of("z" + (i - 1) / 3));
    }
    RangeCoverage zoned =
        new RangeCoverage(KeyRange.from(key("a")), 9, 3, nine, RendezvousPlacement.zoned(zones));
    RangeCoverage blind = new RangeCoverage(KeyRange.from(key("a")), 9, 3, nine);
    for (int i = 0; i < 3; i++) {
      zoned.leftOut(nine.get(i), "down");
      blind.leftOut(nine.get(i), "down");
    }

    assertThat(zoned.gone()).as("zone z0 (n1-n3) lost, 3 copies in 3 zones").isEmpty();
    assertThat(blind.gone()).as("3 nodes lost, zones unknown").isPresent();

    zoned.leftOut(nine.get(3), "down");
    assertThat(zoned.gone()).as("and one node of z1: a key may have lost 2 of 3").isEmpty();
    zoned.leftOut(nine.get(6), "down");
    assertThat(zoned.gone()).as("and one node of z2: a key may have lost all 3").isPresent();
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** A merge of {@code cursors} (nodes n1…) that assumes keys on {@code defaultFrom} nodes. */
  private static MergingCursor covered(int defaultFrom, ScanCursor... cursors) {
    return new MergingCursor(List.of(cursors), () -> NOW, coverage(cursors.length, defaultFrom));
  }

  private static RangeCoverage coverage(int nodes, int defaultFrom) {
    return new RangeCoverage(KeyRange.from(key("a")), nodes, defaultFrom, NODES.subList(0, nodes));
  }

  private static List<Entry> readAll(ScanCursor cursor, int maxEntries, long maxBytes) {
    List<Entry> all = new ArrayList<>();
    try (cursor) {
      for (List<Entry> batch = await(cursor.next(maxEntries, maxBytes));
          !batch.isEmpty();
          batch = await(cursor.next(maxEntries, maxBytes))) {
        all.addAll(batch);
      }
    }
    return all;
  }

  private static List<Entry> entriesOn(int from, String... keys) {
    return Arrays.stream(keys)
        .map(
            k ->
                new Entry(
                    key(k),
                    Record.value(version(1), bytes("value of " + k), Record.NO_EXPIRY, from)))
        .toList();
  }

  private static List<String> keys(List<Entry> entries) {
    return entries.stream().map(e -> new String(e.key().bytes(), StandardCharsets.UTF_8)).toList();
  }

  private static List<String> values(List<Entry> entries) {
    return entries.stream()
        .map(e -> new String(e.record().value(), StandardCharsets.UTF_8))
        .toList();
  }

  private static Key key(String text) {
    return Key.utf8(text);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Version version(int logical) {
    return Version.of(NOW - 60_000, logical);
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
  }
}
