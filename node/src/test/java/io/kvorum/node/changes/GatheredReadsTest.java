package io.kvorum.node.changes;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.storage.ChangeLog.Page;
import io.kvorum.node.storage.ChangeLog.Read;
import io.kvorum.node.testing.ManualScheduler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The feeds' reads of each member gathered into one call: what the members are asked, and when (the
 * window in virtual time).
 */
class GatheredReadsTest {
  static final NodeId A = new NodeId("a");
  static final NodeId B = new NodeId("b");

  /** The gathering window passes only when a test advances it. */
  final ManualScheduler timer = new ManualScheduler();

  final Map<NodeId, List<List<Read>>> calls = new ConcurrentHashMap<>();
  final Map<NodeId, CompletableFuture<List<Page>>> answers = new ConcurrentHashMap<>();

  /** Each member answers every read with a page closed at the read's {@code after} plus one. */
  final GatheredReads reads =
      new GatheredReads(
          (member, asked) -> {
            calls.computeIfAbsent(member, m -> new CopyOnWriteArrayList<>()).add(asked);
            return answers.getOrDefault(
                member,
                CompletableFuture.completedFuture(
                    asked.stream()
                        .map(r -> new Page(List.of(), r.after() + 1, 0, false))
                        .toList()));
          });

  static Read read(String prefix, long after) {
    Key start = Key.of(prefix.getBytes(StandardCharsets.UTF_8));
    return new Read(KeyRange.from(start), after, 10);
  }

  @Test
  void readsOfOneMemberAskedTogetherGoInOneCallAndEachGetsItsOwnPage() throws Exception {
    List<CompletableFuture<Page>> pages = new ArrayList<>();
    for (int feed = 0; feed < 100; feed++) {
      pages.add(reads.read(A, read("f/" + feed, feed), timer));
      pages.add(reads.read(B, read("f/" + feed, feed), timer));
    }
    assertThat(pages).as("nothing is sent before the window ends").noneMatch(p -> p.isDone());
    timer.advance(GatheredReads.WINDOW);

    for (int feed = 0; feed < 100; feed++) {
      assertThat(pages.get(2 * feed).get(5, TimeUnit.SECONDS).closed()).isEqualTo(feed + 1);
      assertThat(pages.get(2 * feed + 1).get(5, TimeUnit.SECONDS).closed()).isEqualTo(feed + 1);
    }
    assertThat(calls.get(A)).hasSize(1);
    assertThat(calls.get(B)).hasSize(1);
    assertThat(calls.get(A).get(0)).hasSize(100);
  }

  @Test
  void feedsAskingTheSameReadShareOneRead() throws Exception {
    CompletableFuture<Page> one = reads.read(A, read("same/", 7), timer);
    CompletableFuture<Page> other = reads.read(A, read("same/", 7), timer);
    timer.advance(GatheredReads.WINDOW);

    assertThat(one.get(5, TimeUnit.SECONDS)).isSameAs(other.get(5, TimeUnit.SECONDS));
    assertThat(calls.get(A)).containsExactly(List.of(read("same/", 7)));
  }

  @Test
  void aFullCallGoesAtOnceAndTheNextReadsStartAnother() throws Exception {
    answers.put(A, new CompletableFuture<>()); // the member holds the first call's answer
    for (int i = 0; i < GatheredReads.MAX_READS; i++) {
      reads.read(A, read("k/" + i, 0), timer);
    }
    assertThat(calls.get(A)).as("sent when full, not after the window").hasSize(1);

    answers.remove(A);
    CompletableFuture<Page> late = reads.read(A, read("late/", 0), timer);
    timer.advance(GatheredReads.WINDOW);

    assertThat(late.get(5, TimeUnit.SECONDS).closed()).isEqualTo(1);
    assertThat(calls.get(A)).hasSize(2);
    assertThat(calls.get(A).get(1)).containsExactly(read("late/", 0));
  }

  @Test
  void aFailedCallFailsEveryReadItCarriedAndTheNextCallIsAskedAfresh() throws Exception {
    answers.put(A, CompletableFuture.failedFuture(new UnavailableException("gone")));
    CompletableFuture<Page> first = reads.read(A, read("x/", 0), timer);
    CompletableFuture<Page> second = reads.read(A, read("y/", 0), timer);
    timer.advance(GatheredReads.WINDOW);

    assertThat(first).failsWithin(5, TimeUnit.SECONDS);
    assertThat(second).failsWithin(5, TimeUnit.SECONDS);

    answers.remove(A);
    CompletableFuture<Page> again = reads.read(A, read("x/", 0), timer);
    timer.advance(GatheredReads.WINDOW);
    assertThat(again.get(5, TimeUnit.SECONDS).closed()).isEqualTo(1);
  }

  @Test
  void anAnswerWithTheWrongNumberOfPagesFailsItsReads() {
    answers.put(A, CompletableFuture.completedFuture(List.of()));
    CompletableFuture<Page> page = reads.read(A, read("x/", 0), timer);
    timer.advance(GatheredReads.WINDOW);

    assertThat(page)
        .failsWithin(5, TimeUnit.SECONDS)
        .withThrowableThat()
        .withMessageContaining("answered 0 pages to 1 reads");
  }
}
