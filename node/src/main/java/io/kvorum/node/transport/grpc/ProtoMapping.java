package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Domain values to protobuf messages and back; protobuf types never leave this package. Bytes cross
 * without copies where protobuf allows: outgoing keys and values are wrapped, and incoming ones are
 * taken from the {@link ByteString} that parsing made rather than copied out of it.
 */
final class ProtoMapping {
  /**
   * The most requests (or responses) one Exchange message holds: the bound on a batch's count, so a
   * flush after a burst does not build one giant message.
   */
  static final int BATCH_ENTRIES = 256;

  /**
   * About the most bytes one Exchange message holds: a request or response that would take a batch
   * past this starts the next one, so only a single larger value makes a larger message.
   */
  static final int BATCH_BYTES = 1 << 20;

  private ProtoMapping() {}

  /** Wraps without copying: keys and values are immutable by contract. */
  static ByteString bytes(byte[] bytes) {
    return UnsafeByteOperations.unsafeWrap(bytes);
  }

  /**
   * The bytes of {@code bytes}, without a copy when it is a whole array of its own, as the fields
   * of a parsed message are (gRPC parses into a fresh array per field, and the message is dropped
   * after mapping); a copy otherwise.
   */
  static byte[] array(ByteString bytes) {
    WholeArray whole = new WholeArray();
    try {
      UnsafeByteOperations.unsafeWriteTo(bytes, whole);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return whole.array != null && whole.array.length == bytes.size()
        ? whole.array
        : bytes.toByteArray();
  }

  static io.kvorum.proto.replica.v1.Record toProto(Record record) {
    return io.kvorum.proto.replica.v1.Record.newBuilder()
        .setVersion(record.version().value())
        .setTombstone(record.tombstone())
        .setExpiresAtMillis(record.expiresAtMillis())
        .setValue(bytes(record.value()))
        .setReplicas(record.replicas())
        .build();
  }

  /**
   * @throws IllegalArgumentException if the message is not a valid record
   */
  static Record fromProto(io.kvorum.proto.replica.v1.Record record) {
    return new Record(
        new Version(record.getVersion()),
        record.getTombstone(),
        record.getExpiresAtMillis(),
        array(record.getValue()),
        record.getReplicas());
  }

  /**
   * @throws IllegalArgumentException if the key is empty
   */
  static Key key(ByteString bytes) {
    return Key.of(array(bytes));
  }

  /**
   * Refuses an answer of another kind than the request's: a peer's bug.
   *
   * @throws IllegalArgumentException if {@code message} answers another kind of request
   */
  static void expect(ReplicaResponse message, ReplicaResponse.ResultCase kind) {
    if (message.getResultCase() != kind) {
      throw new IllegalArgumentException(
          "a " + kind + " request was answered with " + message.getResultCase());
    }
  }

  static ScanBatch toProto(List<Entry> entries) {
    ScanBatch.Builder batch = ScanBatch.newBuilder();
    for (Entry entry : entries) {
      batch.addEntries(
          ScanEntry.newBuilder()
              .setKey(bytes(entry.key().bytes()))
              .setRecord(toProto(entry.record())));
    }
    return batch.build();
  }

  static List<Entry> fromProto(ScanBatch batch) {
    List<Entry> entries = new ArrayList<>(batch.getEntriesCount());
    for (ScanEntry entry : batch.getEntriesList()) {
      entries.add(new Entry(key(entry.getKey()), fromProto(entry.getRecord())));
    }
    return entries;
  }

  /** Catches the array a {@link ByteString} hands out whole; anything else means "copy". */
  private static final class WholeArray extends ByteOutput {
    private byte[] array;
    private boolean pieces;

    @Override
    public void writeLazy(byte[] value, int offset, int length) {
      if (!pieces && array == null && offset == 0 && length == value.length) {
        array = value;
      } else {
        piece();
      }
    }

    @Override
    public void write(byte value) {
      piece();
    }

    @Override
    public void write(byte[] value, int offset, int length) {
      piece();
    }

    @Override
    public void write(ByteBuffer value) {
      piece();
    }

    @Override
    public void writeLazy(ByteBuffer value) {
      piece();
    }

    private void piece() {
      pieces = true;
      array = null;
    }
  }
}
