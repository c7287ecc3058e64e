package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
  private static final Version VERSION = Version.of(1_700_000_000_000L, 42);

  @Test
  void valueRoundTrips() {
    Record value = Record.value(VERSION, "hello".getBytes(StandardCharsets.UTF_8));

    assertThat(RecordCodec.decode(RecordCodec.encode(value))).isEqualTo(value);
  }

  @Test
  void binaryValueRoundTrips() {
    byte[] bytes = new byte[256];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    Record value = Record.value(VERSION, bytes);

    assertThat(RecordCodec.decode(RecordCodec.encode(value))).isEqualTo(value);
  }

  @Test
  void tombstoneRoundTrips() {
    Record tombstone = Record.tombstone(VERSION);

    Record decoded = RecordCodec.decode(RecordCodec.encode(tombstone));

    assertThat(decoded).isEqualTo(tombstone);
    assertThat(decoded.tombstone()).isTrue();
  }

  @Test
  void expiringValueRoundTrips() {
    Record expiring = Record.value(VERSION, new byte[] {1, 2, 3}, 1_700_000_060_000L);

    Record decoded = RecordCodec.decode(RecordCodec.encode(expiring));

    assertThat(decoded).isEqualTo(expiring);
    assertThat(decoded.expiresAtMillis()).isEqualTo(1_700_000_060_000L);
  }

  @Test
  void emptyValueRoundTripsAndStaysAValue() {
    Record empty = Record.value(VERSION, new byte[0]);

    Record decoded = RecordCodec.decode(RecordCodec.encode(empty));

    assertThat(decoded).isEqualTo(empty);
    assertThat(decoded.tombstone()).isFalse();
  }

  @Test
  void emptyExpiringValueRoundTrips() {
    Record empty = Record.value(VERSION, new byte[0], 5L);

    assertThat(RecordCodec.decode(RecordCodec.encode(empty))).isEqualTo(empty);
  }

  @Test
  void largestVersionRoundTrips() {
    Record record =
        Record.value(Version.of(Version.MAX_PHYSICAL, Version.MAX_LOGICAL), new byte[1]);

    assertThat(RecordCodec.decode(RecordCodec.encode(record))).isEqualTo(record);
  }

  @Test
  void versionIsReadFromATruncatedHeader() {
    Record expiring = Record.value(VERSION, new byte[1000], 99L);
    byte[] encoded = RecordCodec.encode(expiring);

    assertThat(RecordCodec.version(Arrays.copyOf(encoded, 1 + Long.BYTES))).isEqualTo(VERSION);
    assertThat(RecordCodec.version(Arrays.copyOf(encoded, RecordCodec.MAX_HEADER)))
        .isEqualTo(VERSION);
    assertThat(RecordCodec.version(RecordCodec.encode(Record.tombstone(VERSION))))
        .isEqualTo(VERSION);
  }

  @Test
  void aHeaderTooShortForTheVersionIsRefused() {
    byte[] encoded = RecordCodec.encode(Record.tombstone(VERSION));

    assertThatThrownBy(() -> RecordCodec.version(Arrays.copyOf(encoded, Long.BYTES)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> RecordCodec.decode(new byte[0]))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anUnknownFormatIsRefused() {
    byte[] encoded = RecordCodec.encode(Record.value(VERSION, new byte[] {1}));
    encoded[0] = (byte) ((encoded[0] & 0x0F) | 0x10);

    assertThatThrownBy(() -> RecordCodec.decode(encoded))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown record format");
    assertThatThrownBy(() -> RecordCodec.version(encoded))
        .isInstanceOf(IllegalStateException.class);
  }
}
