package io.kvorum.node.changes;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.ChangeLog.Change;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FeedOrderTest {
  private final FeedOrder order = new FeedOrder(0);
  private final List<String> sent = new ArrayList<>();

  private static Change change(long stamp, String key, long version, String value) {
    return new Change(
        stamp,
        Key.utf8(key),
        Record.value(Version.of(version, 0), value.getBytes(StandardCharsets.UTF_8)));
  }

  /** Changes read on time: none stamped at or below the watermark before the read. */
  private void add(List<Change> changes) {
    order.add(changes, Long.MIN_VALUE, Long.MIN_VALUE);
  }

  private long release(long watermark, long spread) {
    return order.release(
        watermark,
        spread,
        c -> sent.add(c.key() + "=" + new String(c.record().value(), StandardCharsets.UTF_8)));
  }

  @Test
  void anOlderVersionStampedLaterByAClockAheadIsSentBeforeTheNewerWithinTheHoldBack() {
    // Written first, logged at 20 by a node whose clock runs ahead; the newer at 15 elsewhere.
    add(List.of(change(20, "k", 1, "first"), change(15, "k", 2, "second")));

    release(24, 10);
    assertThat(sent).as("nothing is past the hold-back yet").isEmpty();

    // The clocks were set right meanwhile: what they stamped while apart still waits as long.
    assertThat(release(100, 0)).isEqualTo(10);
    assertThat(sent).containsExactly("k=first", "k=second");

    // Once it is sent, the old spread holds nothing back.
    add(List.of(change(150, "j", 3, "later")));
    assertThat(release(150, 0)).isZero();
    assertThat(sent).endsWith("j=later");
  }

  @Test
  void theBacklogOfAMemberThatTookNoPartIsTakenAfterWhatTheOthersLoggedMeanwhile() {
    release(100, 0);
    // Read after the watermark had passed 100 without it: its stamp says nothing (its clock was
    // out), so the newer version it holds goes after the older one the others logged at 150.
    order.add(List.of(change(90, "k", 2, "newer, from the member back")), 100, 200);
    add(List.of(change(150, "k", 1, "older, on time")));
    release(200, 0);

    assertThat(sent).containsExactly("k=older, on time", "k=newer, from the member back");
  }

  @Test
  void beyondTheHoldBackALateOlderVersionIsDropped() {
    add(List.of(change(10, "k", 2, "newer")));
    release(100, 10);
    order.add(List.of(change(50, "k", 1, "older, late")), 100, 100);
    release(200, 10);

    assertThat(sent).containsExactly("k=newer");
  }

  @Test
  void copiesFromOtherReplicasAreDroppedAndTwoWritesGivenOneVersionAreBothSent() {
    add(
        List.of(
            change(10, "k", 5, "a"),
            change(11, "k", 5, "a"),
            change(12, "k", 5, "b"),
            change(13, "k", 5, "b")));
    release(100, 0);

    assertThat(sent).containsExactly("k=a", "k=b");
  }
}
