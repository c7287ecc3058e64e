package io.kvorum.node.core;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The wire form of a batch of keys with their records, as {@code kvorum-node load} posts them to
 * {@code /v0/load}: every field of a {@link Record} (version, tombstone, expiry, replicas, value)
 * travels, so the cluster stores exactly what the snapshot held.
 *
 * <pre>
 * magic     4 bytes "KVR1" (the format's version is its last byte)
 * then, for each entry, until the end of the body:
 *   key       4 bytes big-endian length, then the key's bytes
 *   version   8 bytes big-endian
 *   kind      1 byte: 0 value, 1 tombstone
 *   expiry    8 bytes big-endian Unix milliseconds, 0 for none
 *   replicas  1 byte, unsigned
 *   value     4 bytes big-endian length, then the value's bytes
 * </pre>
 */
public final class RecordBatch {
  private static final byte[] MAGIC = {'K', 'V', 'R', '1'};
  private static final int FIXED = 4 + 8 + 1 + 8 + 1 + 4;

  private RecordBatch() {}

  /** The bytes an entry takes in a batch. */
  public static int size(Key key, Record record) {
    return FIXED + key.size() + record.value().length;
  }

  /** The encoding of {@code entries}, in an array of exactly its size. */
  public static byte[] encode(List<Entry> entries) {
    int size = MAGIC.length;
    for (Entry entry : entries) {
      size += size(entry.key(), entry.record());
    }
    ByteBuffer out = ByteBuffer.allocate(size).put(MAGIC);
    for (Entry entry : entries) {
      Record record = entry.record();
      out.putInt(entry.key().size()).put(entry.key().bytes());
      out.putLong(record.version().value());
      out.put(record.tombstone() ? (byte) 1 : (byte) 0);
      out.putLong(record.expiresAtMillis());
      out.put((byte) record.replicas());
      out.putInt(record.value().length).put(record.value());
    }
    return out.array();
  }

  /**
   * The entries encoded in {@code body}.
   *
   * @param maxKeyBytes the longest key accepted
   * @throws InvalidRequestException naming the first entry that is malformed (truncated, an empty
   *     or too long key, an impossible record), or the body's header if it is not a batch
   */
  public static List<Entry> decode(byte[] body, int maxKeyBytes) {
    ByteBuffer in = ByteBuffer.wrap(body);
    if (body.length < MAGIC.length
        || !Arrays.equals(body, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new InvalidRequestException(
          null, "not a batch of records: it must start with \"KVR1\"");
    }
    in.position(MAGIC.length);
    List<Entry> entries = new ArrayList<>();
    while (in.hasRemaining()) {
      int index = entries.size();
      try {
        entries.add(entry(in, maxKeyBytes));
      } catch (BufferUnderflowException e) {
        throw new InvalidRequestException(null, "record " + index + " is truncated");
      } catch (IllegalArgumentException e) {
        throw new InvalidRequestException(null, "record " + index + ": " + e.getMessage());
      }
    }
    return entries;
  }

  private static Entry entry(ByteBuffer in, int maxKeyBytes) {
    int keyLength = in.getInt();
    if (keyLength < 1 || keyLength > maxKeyBytes) {
      throw new IllegalArgumentException(
          "its key has " + keyLength + " bytes, not 1.." + maxKeyBytes);
    }
    Key key = Key.of(bytes(in, keyLength));
    Version version = new Version(in.getLong());
    byte kind = in.get();
    if (kind != 0 && kind != 1) {
      throw new IllegalArgumentException("unknown kind " + kind);
    }
    long expiresAt = in.getLong();
    int replicas = in.get() & 0xFF;
    int valueLength = in.getInt();
    if (valueLength < 0 || valueLength > in.remaining()) {
      throw new BufferUnderflowException();
    }
    Record record = new Record(version, kind == 1, expiresAt, bytes(in, valueLength), replicas);
    return new Entry(key, record);
  }

  private static byte[] bytes(ByteBuffer in, int length) {
    if (length > in.remaining()) {
      throw new BufferUnderflowException();
    }
    byte[] bytes = new byte[length];
    in.get(bytes);
    return bytes;
  }
}
