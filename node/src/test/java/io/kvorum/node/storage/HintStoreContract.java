package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.HintStore.Hint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link HintStore} contract, written once and bound to every implementation by a subclass that
 * says how to open a fresh, empty store (and closes whatever it opened).
 */
public abstract class HintStoreContract {
  protected static final Duration WAIT = Duration.ofSeconds(10);
  protected static final NodeId N1 = NodeId.of("n1");
  protected static final NodeId N2 = NodeId.of("n2");
  protected static final NodeId N10 = NodeId.of("n10");
  protected static final long T0 = 1_700_000_000_000L;

  /** The store under test; subclasses may replace it (e.g. after a reopen). */
  protected HintStore store;

  /** A fresh, empty store. */
  protected abstract HintStore newStore() throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  // ---- add and oldest -------------------------------------------------------------------------

  @Test
  void anEmptyStoreHoldsNothing() {
    assertThat(oldest(N1, 10)).isEmpty();
    assertThat(store.pending(N1)).isZero();
    assertThat(store.targets()).isEmpty();
  }

  @Test
  void hintsComeBackOldestFirstWhateverTheOrderTheyWereAdded() {
    add(N1, "third", value(3, "c"), T0 + 300);
    add(N1, "first", value(1, "a"), T0 + 100);
    add(N1, "second", value(2, "b"), T0 + 200);

    assertThat(keysOf(oldest(N1, 10))).containsExactly("first", "second", "third");
  }

  @Test
  void hintsMadeInTheSameMillisecondKeepTheOrderTheyWereAddedIn() {
    for (int i = 0; i < 50; i++) {
      add(N1, "k" + i, value(i + 1, "v" + i), T0);
    }

    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      expected.add("k" + i);
    }
    assertThat(keysOf(oldest(N1, 100))).containsExactlyElementsOf(expected);
  }

  @Test
  void oldestHonoursItsLimit() {
    for (int i = 0; i < 5; i++) {
      add(N1, "k" + i, value(i + 1, "v"), T0 + i);
    }

    assertThat(keysOf(oldest(N1, 2))).containsExactly("k0", "k1");
    assertThat(keysOf(oldest(N1, 1))).containsExactly("k0");
    assertThat(oldest(N1, 5)).hasSize(5);
  }

  @Test
  void oldestReturnsOnlyTheHintsOfTheTargetAskedFor() {
    add(N1, "for-n1-a", value(1, "a"), T0 + 1);
    add(N2, "for-n2-a", value(2, "a"), T0 + 2);
    add(N1, "for-n1-b", value(3, "b"), T0 + 3);
    add(N2, "for-n2-b", value(4, "b"), T0 + 4);

    List<Hint> forN1 = oldest(N1, 10);
    assertThat(keysOf(forN1)).containsExactly("for-n1-a", "for-n1-b");
    assertThat(forN1).allSatisfy(h -> assertThat(h.target()).isEqualTo(N1));
    assertThat(keysOf(oldest(N2, 10))).containsExactly("for-n2-a", "for-n2-b");
    assertThat(oldest(NodeId.of("n3"), 10)).isEmpty();
  }

  @Test
  void targetsWhoseIdsArePrefixesOfEachOtherNeverMix() {
    NodeId n = NodeId.of("n");
    add(N1, "for-n1", value(1, "a"), T0 + 5);
    add(N10, "for-n10", value(2, "b"), T0 + 1);
    add(n, "for-n", value(3, "c"), T0 + 3);
    add(N10, "for-n10-later", value(4, "d"), T0 + 9);

    assertThat(keysOf(oldest(N1, 10))).containsExactly("for-n1");
    assertThat(keysOf(oldest(N10, 10))).containsExactly("for-n10", "for-n10-later");
    assertThat(keysOf(oldest(n, 10))).containsExactly("for-n");
    assertThat(store.pending(N1)).isEqualTo(1);
    assertThat(store.pending(N10)).isEqualTo(2);
    assertThat(store.pending(n)).isEqualTo(1);

    remove(oldest(N1, 10));

    assertThat(oldest(N1, 10)).isEmpty();
    assertThat(keysOf(oldest(N10, 10))).containsExactly("for-n10", "for-n10-later");
    assertThat(store.pending(N10)).isEqualTo(2);
    assertThat(store.targets()).containsExactlyInAnyOrder(N10, n);
  }

  // ---- remove ---------------------------------------------------------------------------------

  @Test
  void removedHintsAreGoneAndTheRestStayInOrder() {
    for (int i = 0; i < 5; i++) {
      add(N1, "k" + i, value(i + 1, "v"), T0 + i);
    }
    List<Hint> all = oldest(N1, 10);

    remove(List.of(all.get(0), all.get(2)));

    assertThat(keysOf(oldest(N1, 10))).containsExactly("k1", "k3", "k4");
    assertThat(store.pending(N1)).isEqualTo(3);
  }

  @Test
  void removingAHintTwiceIsHarmless() {
    add(N1, "a", value(1, "a"), T0);
    add(N1, "b", value(2, "b"), T0 + 1);
    List<Hint> first = oldest(N1, 1);

    remove(first);
    remove(first);
    remove(List.of());

    assertThat(store.pending(N1)).isEqualTo(1);
    assertThat(keysOf(oldest(N1, 10))).containsExactly("b");
  }

  @Test
  void aHintNamedTwiceInOneRemovalIsCountedOnce() {
    add(N1, "a", value(1, "a"), T0);
    add(N1, "b", value(2, "b"), T0 + 1);
    Hint first = oldest(N1, 1).get(0);

    remove(List.of(first, first));

    assertThat(store.pending(N1)).isEqualTo(1);
    assertThat(store.targets()).containsExactly(N1);
  }

  @Test
  void aTargetWithNoHintsLeftIsNoLongerATarget() {
    add(N2, "b", value(2, "b"), T0);
    add(N1, "a", value(1, "a"), T0);
    // In id order, whatever the order of the hints: a replay goes through them the same way.
    assertThat(store.targets()).containsExactly(N1, N2);

    remove(oldest(N1, 10));

    assertThat(store.targets()).containsExactly(N2);
    assertThat(store.pending(N1)).isZero();
  }

  // ---- pending counts -------------------------------------------------------------------------

  @Test
  void pendingCountsHintsPerTarget() {
    for (int i = 0; i < 3; i++) {
      add(N1, "a" + i, value(i + 1, "v"), T0 + i);
    }
    for (int i = 0; i < 7; i++) {
      add(N2, "b" + i, value(i + 1, "v"), T0 + i);
    }

    assertThat(store.pending(N1)).isEqualTo(3);
    assertThat(store.pending(N2)).isEqualTo(7);
    assertThat(store.pending(N10)).isZero();

    remove(oldest(N2, 4));

    assertThat(store.pending(N1)).isEqualTo(3);
    assertThat(store.pending(N2)).isEqualTo(3);
  }

  @Test
  void concurrentAddsAreAllKeptAndCounted() throws Exception {
    int threads = 8;
    int each = 100;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < each; i++) {
                    add(N1, "t" + thread + "-" + i, value(i + 1, "v"), T0 + i);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(store.pending(N1)).isEqualTo((long) threads * each);
    assertThat(oldest(N1, threads * each + 1)).hasSize(threads * each);
  }

  @Test
  void concurrentRemovalsOfTheSameHintsCountEachHintOnce() throws Exception {
    for (int i = 0; i < 200; i++) {
      add(N1, "k" + i, value(i + 1, "v"), T0 + i);
    }
    add(N1, "stays", value(999, "v"), T0 + 1_000);
    List<Hint> hints = oldest(N1, 200);

    // Hint delivery and the expiry of an unreachable peer's hints may remove the same hints.
    List<CompletableFuture<Void>> removals = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      removals.add(store.remove(hints));
    }
    removals.forEach(HintStoreContract::await);

    assertThat(store.pending(N1)).isEqualTo(1);
    assertThat(keysOf(oldest(N1, 10))).containsExactly("stays");
  }

  // ---- what a hint holds ----------------------------------------------------------------------

  @Test
  void recordsRoundTripExactly() {
    Key binary = Key.of(new byte[] {0x00, (byte) 0xFF, 0x0A, 0x00});
    Record live = value(1, "live");
    Record deleted = Record.tombstone(version(2));
    Record expiring = Record.value(version(3), bytes("expiring"), T0 + 60_000);
    Record empty = Record.value(version(4), new byte[0]);
    byte[] large = new byte[256 << 10];
    for (int i = 0; i < large.length; i++) {
      large[i] = (byte) (i * 31);
    }
    Record big = Record.value(version(5), large);
    await(store.add(N1, Key.utf8("live"), live, T0 + 1));
    await(store.add(N1, Key.utf8("deleted"), deleted, T0 + 2));
    await(store.add(N1, Key.utf8("expiring"), expiring, T0 + 3));
    await(store.add(N1, Key.utf8("empty"), empty, T0 + 4));
    await(store.add(N1, binary, big, T0 + 5));

    List<Hint> hints = oldest(N1, 10);

    assertThat(hints).extracting(Hint::target).containsOnly(N1);
    assertThat(hints)
        .extracting(Hint::key)
        .containsExactly(
            Key.utf8("live"), Key.utf8("deleted"), Key.utf8("expiring"), Key.utf8("empty"), binary);
    assertThat(hints).extracting(Hint::record).containsExactly(live, deleted, expiring, empty, big);
    assertThat(hints)
        .extracting(Hint::createdAtMillis)
        .containsExactly(T0 + 1, T0 + 2, T0 + 3, T0 + 4, T0 + 5);
    assertThat(hints.get(1).record().tombstone()).isTrue();
    assertThat(hints.get(3).record().tombstone()).isFalse();
    assertThat(hints.get(3).record().value()).isEmpty();
  }

  @Test
  void theSameKeyMayBeHintedSeveralTimes() {
    add(N1, "k", value(1, "first"), T0);
    add(N1, "k", value(2, "second"), T0 + 1);

    assertThat(oldest(N1, 10))
        .extracting(Hint::record)
        .containsExactly(value(1, "first"), value(2, "second"));
    assertThat(store.pending(N1)).isEqualTo(2);
  }

  // ---- helpers --------------------------------------------------------------------------------

  protected void add(NodeId target, String key, Record record, long createdAtMillis) {
    await(store.add(target, Key.utf8(key), record, createdAtMillis));
  }

  protected List<Hint> oldest(NodeId target, int limit) {
    return await(store.oldest(target, limit));
  }

  protected void remove(List<Hint> hints) {
    await(store.remove(hints));
  }

  protected static List<String> keysOf(List<Hint> hints) {
    return hints.stream().map(h -> new String(h.key().bytes(), StandardCharsets.UTF_8)).toList();
  }

  protected static Version version(long logical) {
    return Version.of(T0, (int) logical);
  }

  protected static Record value(long logical, String value) {
    return Record.value(version(logical), bytes(value));
  }

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new AssertionError(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (TimeoutException e) {
      throw new AssertionError("hint store call did not complete within " + WAIT, e);
    }
  }
}
