package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
  private static final Version VERSION = Version.of(1_700_000_000_000L, 42);

  // ---- round trips ----------------------------------------------------------------------------

  @Test
  void everyKindOfRecordRoundTrips() {
    byte[] everyByte = new byte[256];
    for (int i = 0; i < everyByte.length; i++) {
      everyByte[i] = (byte) i;
    }
    List<Record> records =
        List.of(
            Record.value(VERSION, "hello".getBytes(StandardCharsets.UTF_8)),
            Record.value(VERSION, everyByte),
            Record.value(VERSION, new byte[] {0, 0, 0}),
            Record.value(VERSION, new byte[] {0, (byte) 0xFF, 0}),
            Record.value(VERSION, new byte[0]),
            Record.value(VERSION, new byte[0], 5L),
            Record.value(VERSION, new byte[] {1, 2, 3}, 1_700_000_060_000L, 255),
            Record.value(Version.of(Version.MAX_PHYSICAL, Version.MAX_LOGICAL), new byte[1]),
            Record.value(Version.ZERO, new byte[] {0}),
            Record.tombstone(VERSION),
            Record.tombstone(VERSION, 3));

    for (Record record : records) {
      byte[] encoded = RecordCodec.encode(record);
      assertThat(RecordCodec.decode(encoded)).as(record.toString()).isEqualTo(record);
      assertThat(encoded).hasSize(RecordCodec.encodedSize(record));
      assertThat(RecordCodec.diesAtMillis(encoded)).isEqualTo(record.diesAtMillis());
    }
  }

  @Test
  void anEncodingCostsItsOverheadPlusOneBytePerZero() {
    assertThat(RecordCodec.encode(Record.value(VERSION, new byte[1024])))
        .hasSize(RecordCodec.OVERHEAD + 2 * 1024);
    assertThat(RecordCodec.encode(Record.value(VERSION, "abc".getBytes(StandardCharsets.UTF_8))))
        .hasSize(RecordCodec.OVERHEAD + 3);
  }

  @Test
  void aRecordInsideALargerArrayDecodesInPlace() {
    Record record = Record.value(VERSION, new byte[] {7, 0, 7}, 99L, 2);
    byte[] framed = new byte[5 + RecordCodec.encodedSize(record) + 3];
    int end = RecordCodec.encodeInto(record, framed, 5);

    assertThat(end).isEqualTo(framed.length - 3);
    assertThat(RecordCodec.decode(framed, 5, end - 5)).isEqualTo(record);
  }

  // ---- byte order is last-writer-wins order ---------------------------------------------------

  @Test
  void byteOrderIsLastWriterWinsOverEveryRecordOfASmallSpace() {
    List<Record> space = smallSpace();
    List<byte[]> encoded = space.stream().map(RecordCodec::encode).toList();

    for (int a = 0; a < space.size(); a++) {
      for (int b = 0; b < space.size(); b++) {
        int lww = Integer.signum(Record.LAST_WRITER_WINS.compare(space.get(a), space.get(b)));
        int bytes = Integer.signum(Arrays.compareUnsigned(encoded.get(a), encoded.get(b)));
        if (lww != bytes) {
          throw new AssertionError(space.get(a) + " vs " + space.get(b) + ": " + bytes);
        }
      }
    }
  }

  @Test
  void byteOrderIsLastWriterWinsForRandomRecordsWithSharedPrefixes() {
    Random random = new Random(5);
    byte[] prefix = new byte[40];
    random.nextBytes(prefix);
    prefix[3] = 0;
    prefix[17] = 0;
    for (int i = 0; i < 50_000; i++) {
      Record a = randomRecord(random, prefix);
      Record b = random.nextInt(4) == 0 ? variantOf(a, random) : randomRecord(random, prefix);

      int lww = Integer.signum(Record.LAST_WRITER_WINS.compare(a, b));
      int bytes =
          Integer.signum(Arrays.compareUnsigned(RecordCodec.encode(a), RecordCodec.encode(b)));
      assertThat(bytes).as("%s vs %s", a, b).isEqualTo(lww);
      assertThat(RecordCodec.decode(RecordCodec.encode(a))).isEqualTo(a);
    }
  }

  @Test
  void escapingKeepsTheOrderOfPrefixesAndZeros() {
    byte[][] ascending = {
      {},
      {0x00},
      {0x00, 0x00},
      {0x00, 0x00, 0x00},
      {0x00, 0x01},
      {0x00, (byte) 0xFF},
      {0x01},
      {0x01, 0x00},
      {0x01, 0x00, 0x00},
      {0x01, 0x00, 0x01},
      {0x01, 0x01},
      {(byte) 0xFE},
      {(byte) 0xFF},
      {(byte) 0xFF, 0x00},
      {(byte) 0xFF, (byte) 0xFF},
    };
    for (int i = 1; i < ascending.length; i++) {
      byte[] smaller = RecordCodec.encode(Record.value(VERSION, ascending[i - 1]));
      byte[] larger = RecordCodec.encode(Record.value(VERSION, ascending[i]));
      assertThat(Arrays.compareUnsigned(smaller, larger))
          .as("%s < %s", Arrays.toString(ascending[i - 1]), Arrays.toString(ascending[i]))
          .isNegative();
    }
  }

  // ---- what is refused ------------------------------------------------------------------------

  @Test
  void truncatedOrMalformedEncodingsAreRefused() {
    byte[] good = RecordCodec.encode(Record.value(VERSION, new byte[] {1, 0, 2}));
    byte[] negativeVersion = good.clone();
    negativeVersion[0] = (byte) 0x80;
    byte[] unknownKind = good.clone();
    unknownKind[Long.BYTES] = 2;
    byte[] unescapedZero = good.clone();
    unescapedZero[Long.BYTES + 3] = 0x00; // the 0xFF of the escaped zero
    byte[] noTerminator = good.clone();
    noTerminator[good.length - 10] = 1;

    for (byte[] bad :
        List.of(
            new byte[0],
            Arrays.copyOf(good, RecordCodec.OVERHEAD - 1),
            negativeVersion,
            unknownKind,
            unescapedZero,
            noTerminator)) {
      assertThatThrownBy(() -> RecordCodec.decode(bad))
          .as(Arrays.toString(bad))
          .isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void aTombstoneCarryingAValueIsRefusedAsCorrupt() {
    byte[] encoded = RecordCodec.encode(Record.value(VERSION, new byte[] {1}));
    encoded[Long.BYTES] = 1;

    assertThatThrownBy(() -> RecordCodec.decode(encoded))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("corrupt record");
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * Every record of two versions, values of up to three bytes over {0x00, 0x01, 0xFF}, three
   * expiries and two replica counts, and the tombstones: 484 records, every pair compared.
   */
  private static List<Record> smallSpace() {
    List<byte[]> values = new ArrayList<>();
    values.add(new byte[0]);
    byte[] alphabet = {0x00, 0x01, (byte) 0xFF};
    for (int length = 1; length <= 3; length++) {
      int combinations = (int) Math.pow(3, length);
      for (int c = 0; c < combinations; c++) {
        byte[] value = new byte[length];
        for (int i = 0, n = c; i < length; i++, n /= 3) {
          value[i] = alphabet[n % 3];
        }
        values.add(value);
      }
    }
    List<Record> space = new ArrayList<>();
    for (Version version : List.of(Version.of(1, 0), Version.of(1, 1))) {
      for (int replicas : new int[] {1, 255}) {
        space.add(Record.tombstone(version, replicas));
        for (byte[] value : values) {
          for (long expiry : new long[] {0, 1, 256}) {
            space.add(Record.value(version, value, expiry, replicas));
          }
        }
      }
    }
    return space;
  }

  private static Record randomRecord(Random random, byte[] prefix) {
    Version version =
        new Version(
            random.nextInt(3) == 0 ? Long.MAX_VALUE - random.nextInt(2) : random.nextInt(4));
    int replicas = 1 + random.nextInt(255);
    if (random.nextInt(6) == 0) {
      return Record.tombstone(version, replicas);
    }
    byte[] value = Arrays.copyOf(prefix, random.nextInt(prefix.length + 8));
    for (int i = Math.min(prefix.length, value.length); i < value.length; i++) {
      value[i] = (byte) (random.nextInt(3) == 0 ? 0 : random.nextInt(256));
    }
    long expiry = random.nextInt(3) == 0 ? 0 : random.nextLong(Long.MAX_VALUE);
    return Record.value(version, value, expiry, replicas);
  }

  /** {@code record} with one field nudged, so that everything before it ties. */
  private static Record variantOf(Record record, Random random) {
    if (record.tombstone()) {
      return Record.tombstone(record.version(), 1 + random.nextInt(255));
    }
    return switch (random.nextInt(3)) {
      case 0 ->
          Record.value(record.version(), record.value(), random.nextInt(3), record.replicas());
      case 1 ->
          Record.value(
              record.version(), record.value(), record.expiresAtMillis(), 1 + random.nextInt(255));
      default ->
          Record.value(
              record.version(),
              Arrays.copyOf(record.value(), Math.max(0, record.value().length - 1)),
              record.expiresAtMillis(),
              record.replicas());
    };
  }
}
