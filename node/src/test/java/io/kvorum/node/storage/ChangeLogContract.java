package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog.Change;
import io.kvorum.node.storage.ChangeLog.Page;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The change log of a {@link StorageEngine} (SPEC §12), bound to every engine that keeps one: every
 * put and batch logged in arrival order with the record as offered (winner or not), records a
 * membership change streams not logged, pages complete up to their closed stamp while writers run,
 * and purges by stamp.
 */
public abstract class ChangeLogContract extends StorageEngineFixture {
  private static final KeyRange ALL = KeyRange.from(Key.of(new byte[] {0}));

  @Test
  void everyPutAndBatchIsLoggedInArrivalOrderWithItsOwnRecord() {
    put(key("b"), value(20, "b2"));
    put(key("b"), value(10, "b1")); // loses last-writer-wins, but arrived: logged as it is
    putAll(List.of(new Entry(key("a"), value(30, "a")), new Entry(key("c"), tombstone(31))));

    List<Change> changes = readAll(ALL, 0);

    assertThat(changes)
        .extracting(c -> c.key().toString(), Change::record)
        .containsExactly(
            tuple("b", value(20, "b2")),
            tuple("b", value(10, "b1")),
            tuple("a", value(30, "a")),
            tuple("c", tombstone(31)));
    assertThat(changes).extracting(Change::stamp).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void recordsAMembershipChangeStreamsAreStoredButNotLogged() {
    await(engine.putAllStreamed(List.of(new Entry(key("streamed"), value(5, "s")))));
    put(key("written"), value(6, "w"));

    assertThat(get(key("streamed"))).contains(value(5, "s"));
    assertThat(readAll(ALL, 0)).extracting(c -> c.key().toString()).containsExactly("written");
  }

  @Test
  void aReadFollowsItsRangeAndResumesAfterItsClosedStamp() {
    put(key("a1"), value(1, "x"));
    put(key("b1"), value(1, "x"));
    Page first = await(read(engine.changes(), KeyRange.between(key("a"), key("b")), 0, 100));
    put(key("a2"), value(2, "x"));
    put(key("b2"), value(2, "x"));

    assertThat(first.changes()).extracting(c -> c.key().toString()).containsExactly("a1");
    assertThat(readAll(KeyRange.between(key("a"), key("b")), first.closed()))
        .extracting(c -> c.key().toString())
        .containsExactly("a2");
  }

  @Test
  void aFullPageSaysThereIsMoreAndTheNextStartsWhereItStopped() {
    for (int i = 0; i < 10; i++) {
      put(key("k" + i), value(i + 1, "v"));
    }
    Page page = await(read(engine.changes(), ALL, 0, 4));

    assertThat(page.changes()).hasSize(4);
    assertThat(page.more()).isTrue();
    assertThat(page.closed()).isEqualTo(page.changes().get(3).stamp());
    assertThat(readAll(ALL, page.closed())).hasSize(6);
  }

  @Test
  void pagesReadWhileWritersRunMissNothingUpToTheirClosedStamp() {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    List<Change> seen = new ArrayList<>();
    long after = 0;
    for (int i = 0; i < 2_000; i++) {
      writes.add(engine.put(key("k" + i), value(i + 1, "v")));
      if (i % 50 == 0) {
        Page page = await(read(engine.changes(), ALL, after, 10_000));
        seen.addAll(page.changes());
        after = page.closed();
      }
    }
    writes.forEach(StorageEngineFixture::await);
    seen.addAll(readAll(ALL, after));

    assertThat(seen).hasSize(2_000);
    assertThat(seen).extracting(Change::stamp).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aPurgeRemovesWhatWasStampedBeforeItAndSaysSo() {
    put(key("old"), value(1, "x"));
    long cut = await(read(engine.changes(), ALL, 0, 100)).closed() + 1;
    put(key("new"), value(2, "x"));

    await(engine.changes().purge(cut));

    Page page = await(read(engine.changes(), ALL, 0, 100));
    assertThat(page.changes()).extracting(c -> c.key().toString()).containsExactly("new");
    assertThat(page.purgedBefore()).isEqualTo(cut);
  }

  @Test
  void readsInOneCallShareItsBudgetAndThoseLeftOutAreAnsweredEmptyToAskAgain() {
    byte[] big = new byte[(int) (ChangeBudget.CALL_BYTES / 2) + 1];
    put(key("a"), Record.value(version(1), big));
    put(key("b"), Record.value(version(2), big));
    put(key("c"), value(3, "small"));
    List<ChangeLog.Read> reads =
        List.of(
            new ChangeLog.Read(KeyRange.between(key("a"), key("b")), 0, 100),
            new ChangeLog.Read(KeyRange.between(key("b"), key("c")), 0, 100),
            new ChangeLog.Read(KeyRange.from(key("c")), 0, 100));

    List<Page> pages = await(engine.changes().readAll(reads));

    assertThat(pages.get(0).changes()).extracting(c -> c.key().toString()).containsExactly("a");
    assertThat(pages.get(0).more()).isFalse();
    assertThat(pages.get(1).changes())
        .as("one change past the budget still comes, alone in its page")
        .extracting(c -> c.key().toString())
        .containsExactly("b");
    assertThat(pages.get(2).changes()).as("the budget is spent").isEmpty();
    assertThat(pages.get(2).more()).isTrue();
    assertThat(pages.get(2).closed()).isZero();
    assertThat(readAll(KeyRange.from(key("c")), pages.get(2).closed()))
        .extracting(c -> c.key().toString())
        .containsExactly("c");
  }

  @Test
  void stampsFollowTheWallClock() {
    long before = System.currentTimeMillis();
    put(key("k"), value(1, "x"));

    long stamp = readAll(ALL, 0).get(0).stamp();
    assertThat(new Version(stamp).physicalMillis()).isBetween(before, System.currentTimeMillis());
  }

  /** Every change of {@code range} after {@code after}, page by page. */
  protected List<Change> readAll(KeyRange range, long after) {
    List<Change> all = new ArrayList<>();
    Page page;
    do {
      page = await(read(engine.changes(), range, after, 3));
      all.addAll(page.changes());
      after = page.closed();
    } while (page.more());
    return all;
  }

  /**
   * The changes of keys in {@code range} stamped after {@code after}, in stamp order: at most
   * {@code limit} of them (one read of {@link ChangeLog#readAll}).
   */
  public static CompletableFuture<Page> read(ChangeLog log, KeyRange range, long after, int limit) {
    return log.readAll(List.of(new ChangeLog.Read(range, after, limit)))
        .thenApply(pages -> pages.get(0));
  }
}
