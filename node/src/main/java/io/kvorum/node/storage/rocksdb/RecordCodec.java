package io.kvorum.node.storage.rocksdb;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The on-disk form of a {@link Record}: one header byte (format in the high nibble, flags in the
 * low), the 8-byte version, the 8-byte expiry if flagged, the replica count byte, then the value
 * bytes.
 */
final class RecordCodec {
  private static final int FORMAT_2 = 0x20;
  private static final int FORMAT_MASK = 0xF0;
  private static final int TOMBSTONE = 0x01;
  private static final int EXPIRES = 0x02;

  /** Enough bytes to read every header field of any record. */
  static final int MAX_HEADER = 1 + Long.BYTES + Long.BYTES + 1;

  private RecordCodec() {}

  static byte[] encode(Record record) {
    int header = headerSize(record.hasExpiry());
    byte[] out = new byte[header + record.value().length];
    ByteBuffer buffer = ByteBuffer.wrap(out);
    buffer.put((byte) (FORMAT_2 | (record.tombstone() ? TOMBSTONE : 0) | flagExpiry(record)));
    buffer.putLong(record.version().value());
    if (record.hasExpiry()) {
      buffer.putLong(record.expiresAtMillis());
    }
    buffer.put((byte) record.replicas());
    buffer.put(record.value());
    return out;
  }

  static Record decode(byte[] bytes) {
    int flags = flags(bytes);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    Version version = new Version(buffer.getLong(1));
    boolean expires = (flags & EXPIRES) != 0;
    long expiresAt = expires ? buffer.getLong(1 + Long.BYTES) : Record.NO_EXPIRY;
    int header = headerSize(expires);
    int replicas = bytes[header - 1] & 0xFF;
    byte[] value = Arrays.copyOfRange(bytes, header, bytes.length);
    return new Record(version, (flags & TOMBSTONE) != 0, expiresAt, value, replicas);
  }

  /** The version from a (possibly truncated) encoding holding at least the version field. */
  static Version version(byte[] prefix) {
    flags(prefix);
    return new Version(ByteBuffer.wrap(prefix).getLong(1));
  }

  private static int flags(byte[] bytes) {
    if (bytes.length < 1 + Long.BYTES || (bytes[0] & FORMAT_MASK) != FORMAT_2) {
      throw new IllegalStateException("unknown record format on disk");
    }
    return bytes[0] & ~FORMAT_MASK;
  }

  private static int flagExpiry(Record record) {
    return record.hasExpiry() ? EXPIRES : 0;
  }

  private static int headerSize(boolean expires) {
    return 1 + Long.BYTES + (expires ? Long.BYTES : 0) + 1;
  }
}
