package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanEntry;
import java.util.ArrayList;
import java.util.List;

/** Domain values to protobuf messages and back; protobuf types never leave this package. */
final class ProtoMapping {
  private ProtoMapping() {}

  /** Wraps without copying: keys and values are immutable by contract. */
  static ByteString bytes(byte[] bytes) {
    return UnsafeByteOperations.unsafeWrap(bytes);
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

  static Record fromProto(io.kvorum.proto.replica.v1.Record record) {
    return new Record(
        new Version(record.getVersion()),
        record.getTombstone(),
        record.getExpiresAtMillis(),
        record.getValue().toByteArray(),
        record.getReplicas());
  }

  static Key key(ByteString bytes) {
    return Key.of(bytes.toByteArray());
  }

  static ScanBatch toProto(List<Entry> entries, long hlc) {
    ScanBatch.Builder batch = ScanBatch.newBuilder().setHlc(hlc);
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
}
