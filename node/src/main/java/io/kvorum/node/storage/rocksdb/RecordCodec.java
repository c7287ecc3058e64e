package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The on-disk form of a {@link Record}, built so that the unsigned byte order of two encodings is
 * exactly {@link Record#LAST_WRITER_WINS}: RocksDB's built-in {@code max} merge operator, which
 * keeps the byte-wise largest operand, then keeps the winner on read and in compaction without the
 * writer ever reading the stored record.
 *
 * <pre>
 * version   8 bytes big-endian (non-negative, so byte order is numeric order)
 * kind      1 byte: 0x00 value, 0x01 tombstone (a tombstone beats a value at the same version)
 * value     the value bytes, each 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00
 * expiry    8 bytes big-endian, 0 for none
 * replicas  1 byte
 * </pre>
 *
 * <p>The escaping keeps the order of the raw values: where two escaped values first differ, either
 * both have ordinary bytes (compared as they are), or one has an escaped zero (0x00, below every
 * other byte) against a non-zero byte, or one ends (0x00 0x00) where the other goes on with 0x00
 * 0xFF or a non-zero byte, so the shorter, a prefix of the other, sorts first. Fields after the
 * terminator are fixed-width, so equal values line them up for the expiry and replica tie-breaks,
 * and no encoding is a prefix of another.
 */
public final class RecordCodec {
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final byte VALUE = 0x00;
  private static final byte TOMBSTONE = 0x01;
  private static final byte ESCAPE = (byte) 0xFF;
  private static final int KIND_AT = Long.BYTES;
  private static final int VALUE_AT = KIND_AT + 1;
  private static final int TERMINATOR = 2;
  private static final int TAIL = Long.BYTES + 1;

  /** The bytes an encoding adds to its value's, besides one per zero byte of the value. */
  static final int OVERHEAD = VALUE_AT + TERMINATOR + TAIL;

  private RecordCodec() {}

  /** The encoding of {@code record}, in an array of exactly its size. */
  public static byte[] encode(Record record) {
    byte[] out = new byte[encodedSize(record)];
    encodeInto(record, out, 0);
    return out;
  }

  /** How many bytes {@link #encode} makes of {@code record}. */
  static int encodedSize(Record record) {
    byte[] value = record.value();
    int zeros = 0;
    for (byte b : value) {
      if (b == 0) {
        zeros++;
      }
    }
    return OVERHEAD + value.length + zeros;
  }

  /**
   * Writes the encoding of {@code record} into {@code out} from {@code offset}, which must leave
   * room for {@link #encodedSize}.
   *
   * @return the offset after the encoding
   */
  static int encodeInto(Record record, byte[] out, int offset) {
    LONG.set(out, offset, record.version().value());
    out[offset + KIND_AT] = record.tombstone() ? TOMBSTONE : VALUE;
    int at = escape(record.value(), out, offset + VALUE_AT);
    out[at++] = 0;
    out[at++] = 0;
    LONG.set(out, at, record.expiresAtMillis());
    out[at + Long.BYTES] = (byte) record.replicas();
    return at + TAIL;
  }

  private static int escape(byte[] value, byte[] out, int at) {
    int run = 0;
    for (int i = 0; i < value.length; i++) {
      if (value[i] == 0) {
        System.arraycopy(value, run, out, at, i - run);
        at += i - run;
        out[at++] = 0;
        out[at++] = ESCAPE;
        run = i + 1;
      }
    }
    System.arraycopy(value, run, out, at, value.length - run);
    return at + value.length - run;
  }

  public static Record decode(byte[] bytes) {
    return decode(bytes, 0, bytes.length);
  }

  /** The record encoded in {@code bytes[offset, offset + length)}. */
  public static Record decode(byte[] bytes, int offset, int length) {
    int end = checkFrame(bytes, offset, length);
    long version = (long) LONG.get(bytes, offset);
    int valueEnd = end - TAIL - TERMINATOR;
    byte[] value = unescape(bytes, offset + VALUE_AT, valueEnd);
    try {
      return new Record(
          new Version(version),
          bytes[offset + KIND_AT] == TOMBSTONE,
          (long) LONG.get(bytes, valueEnd + TERMINATOR),
          value,
          bytes[end - 1] & 0xFF);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("corrupt record on disk: " + e.getMessage(), e);
    }
  }

  /**
   * When the encoded record starts to read as absent ({@link Record#diesAtMillis}), from its fixed
   * fields alone, without copying its value.
   */
  static long diesAtMillis(byte[] bytes) {
    int end = checkFrame(bytes, 0, bytes.length);
    if (bytes[KIND_AT] == TOMBSTONE) {
      return new Version((long) LONG.get(bytes, 0)).physicalMillis();
    }
    long expiry = (long) LONG.get(bytes, end - TAIL);
    return expiry == Record.NO_EXPIRY ? Long.MAX_VALUE : expiry;
  }

  private static int checkFrame(byte[] bytes, int offset, int length) {
    int end = offset + length;
    if (length < OVERHEAD
        || bytes[offset] < 0
        || (bytes[offset + KIND_AT] != VALUE && bytes[offset + KIND_AT] != TOMBSTONE)
        || bytes[end - TAIL - 1] != 0
        || bytes[end - TAIL - 2] != 0) {
      throw new IllegalStateException("unknown record format on disk");
    }
    return end;
  }

  /** One scan for escapes, then one copy (in runs between escaped zeros). */
  private static byte[] unescape(byte[] bytes, int from, int to) {
    int zeros = 0;
    for (int i = from; i < to; i++) {
      if (bytes[i] == 0) {
        if (i + 1 >= to || bytes[i + 1] != ESCAPE) {
          throw new IllegalStateException("corrupt record on disk: unescaped zero in the value");
        }
        zeros++;
        i++;
      }
    }
    byte[] value = new byte[to - from - zeros];
    if (zeros == 0) {
      System.arraycopy(bytes, from, value, 0, value.length);
      return value;
    }
    int at = 0;
    int run = from;
    for (int i = from; i < to; i++) {
      if (bytes[i] == 0) {
        System.arraycopy(bytes, run, value, at, i - run);
        at += i - run;
        value[at++] = 0;
        i++;
        run = i + 1;
      }
    }
    System.arraycopy(bytes, run, value, at, to - run);
    return value;
  }
}
