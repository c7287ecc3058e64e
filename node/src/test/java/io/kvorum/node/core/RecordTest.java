package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RecordTest {
  private static final Version V10 = Version.of(10, 0);
  private static final Version V11 = Version.of(10, 1);

  @Test
  void higherVersionWinsWhateverItHolds() {
    Record olderTombstone = Record.tombstone(V10);
    Record newerValue = Record.value(V11, new byte[] {0});

    assertThat(Record.LAST_WRITER_WINS.compare(newerValue, olderTombstone)).isPositive();
    assertThat(Record.newest(olderTombstone, newerValue)).isSameAs(newerValue);
    assertThat(Record.newest(newerValue, olderTombstone)).isSameAs(newerValue);
  }

  @Test
  void atEqualVersionTombstoneBeatsValue() {
    Record value = Record.value(V10, new byte[] {(byte) 0xFF, (byte) 0xFF});
    Record tombstone = Record.tombstone(V10);

    assertThat(Record.newest(value, tombstone)).isSameAs(tombstone);
    assertThat(Record.newest(tombstone, value)).isSameAs(tombstone);
  }

  @Test
  void atEqualVersionLargerValueBytesWinComparedUnsigned() {
    Record low = Record.value(V10, new byte[] {0x7F});
    Record high = Record.value(V10, new byte[] {(byte) 0x80});
    Record longer = Record.value(V10, new byte[] {0x7F, 0x00});

    assertThat(Record.newest(low, high)).isSameAs(high);
    assertThat(Record.newest(high, low)).isSameAs(high);
    assertThat(Record.newest(low, longer)).as("a proper prefix sorts first").isSameAs(longer);
  }

  @Test
  void atEqualVersionAndValueTheLaterExpiryWins() {
    Record sooner = Record.value(V10, new byte[] {1}, 1_000);
    Record later = Record.value(V10, new byte[] {1}, 2_000);

    assertThat(Record.newest(sooner, later)).isSameAs(later);
    assertThat(Record.newest(later, sooner)).isSameAs(later);
  }

  @Test
  void theOrderIsTotalSoEveryArrivalOrderConvergesOnTheSameWinner() {
    List<Record> records =
        new ArrayList<>(
            List.of(
                Record.value(V10, new byte[] {1}),
                Record.value(V10, new byte[] {2}),
                Record.value(V10, new byte[] {2}, 5),
                Record.tombstone(V10),
                Record.value(V11, new byte[0]),
                Record.value(Version.of(9, 99), new byte[] {9})));
    Random random = new Random(1);
    for (int round = 0; round < 50; round++) {
      Collections.shuffle(records, random);
      Record winner = null;
      for (Record r : records) {
        winner = Record.newest(winner, r);
      }
      assertThat(winner).isEqualTo(Record.value(V11, new byte[0]));
    }
  }

  @Test
  void newestToleratesNulls() {
    Record r = Record.tombstone(V10);

    assertThat(Record.newest(null, r)).isSameAs(r);
    assertThat(Record.newest(r, null)).isSameAs(r);
    assertThat(Record.newest(null, null)).isNull();
  }

  @Test
  void supersedesIsStrict() {
    Record value = Record.value(V10, new byte[] {1});

    assertThat(value.supersedes(null)).isTrue();
    assertThat(value.supersedes(Record.value(V10, new byte[] {0}))).isTrue();
    assertThat(value.supersedes(Record.value(V10, new byte[] {1}))).isFalse();
    assertThat(value.supersedes(Record.tombstone(V10))).isFalse();
    assertThat(value.supersedes(Record.tombstone(Version.of(9, 0)))).isTrue();
  }

  @Test
  void aValueWithoutExpiryIsLiveForever() {
    Record value = Record.value(V10, new byte[] {1});

    assertThat(value.hasExpiry()).isFalse();
    assertThat(value.isExpired(Long.MAX_VALUE)).isFalse();
    assertThat(value.isLive(Long.MAX_VALUE)).isTrue();
    assertThat(value.diesAtMillis()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anExpiringValueIsLiveUntilItsExpiryAndDeadFromIt() {
    Record value = Record.value(V10, new byte[] {1}, 5_000);

    assertThat(value.hasExpiry()).isTrue();
    assertThat(value.isLive(4_999)).isTrue();
    assertThat(value.isExpired(4_999)).isFalse();
    assertThat(value.isLive(5_000)).isFalse();
    assertThat(value.isExpired(5_000)).isTrue();
    assertThat(value.diesAtMillis()).isEqualTo(5_000);
  }

  @Test
  void aTombstoneIsNeverLiveAndDiesWhenItWasWritten() {
    Record tombstone = Record.tombstone(Version.of(7_000, 3));

    assertThat(tombstone.isLive(0)).isFalse();
    assertThat(tombstone.isExpired(Long.MAX_VALUE)).as("tombstones do not expire").isFalse();
    assertThat(tombstone.diesAtMillis()).isEqualTo(7_000);
    assertThat(tombstone.value()).isEmpty();
  }

  @Test
  void constructorRefusesInconsistentRecords() {
    assertThatThrownBy(() -> new Record(V10, true, 0, new byte[] {1}, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Record(V10, true, 5, new byte[0], 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Record.value(V10, new byte[0], Record.NO_EXPIRY, 0))
        .as("a record is on at least one replica")
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Record.tombstone(V10, Record.MAX_REPLICAS + 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Record.value(V10, new byte[0], -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Record.value(null, new byte[0]))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> Record.value(V10, null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void equalityComparesValueBytes() {
    Record a = Record.value(V10, new byte[] {1, 2});
    Record b = Record.value(V10, new byte[] {1, 2});

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).isNotEqualTo(Record.value(V10, new byte[] {1, 3}));
    assertThat(a).isNotEqualTo(Record.value(V10, new byte[] {1, 2}, 9));
    assertThat(Record.tombstone(V10)).isNotEqualTo(Record.value(V10, new byte[0]));
    assertThat(a).isNotEqualTo(Record.value(V10, new byte[] {1, 2}, Record.NO_EXPIRY, 3));
  }

  @Test
  void theReplicaCountBreaksTheLastTieSoThatEveryReplicaKeepsTheSameRecord() {
    Record onOne = Record.value(V10, new byte[] {1}, 9, 1);
    Record onThree = Record.value(V10, new byte[] {1}, 9, 3);

    assertThat(Record.LAST_WRITER_WINS.compare(onThree, onOne)).isPositive();
    assertThat(Record.newest(onOne, onThree)).isSameAs(onThree);
    assertThat(Record.newest(onThree, onOne)).isSameAs(onThree);
  }

  @Test
  void toStringShowsVersionAndSizeButNotTheValue() {
    assertThat(Record.value(Version.of(10, 2), new byte[] {'s', 'e', 'c'}, 99).toString())
        .contains("10.2", "3 bytes", "expires 99")
        .doesNotContain("sec");
    assertThat(Record.tombstone(Version.of(10, 2)).toString()).contains("tombstone", "10.2");
  }
}
