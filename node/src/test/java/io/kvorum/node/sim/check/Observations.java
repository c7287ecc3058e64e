package io.kvorum.node.sim.check;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What could be read of one key: the values clients wrote to it, the values replicas applied (and
 * when first), and the records that make it read as absent, indexed for reads to be checked in
 * O(log n) each.
 */
final class Observations {
  static final Observations NONE = new Observations(List.of(), List.of());

  // Values as ByteBuffers: equal by content, so a map finds a value whatever array carries it.
  private final Set<ByteBuffer> written = new HashSet<>();
  private final Map<Applied, Long> firstApplied = new HashMap<>();
  private final Map<ByteBuffer, Set<Version>> versionsApplied = new HashMap<>();
  private final long[] deadAt;
  private final Version[] newestDead;

  private record Applied(Version version, ByteBuffer value) {}

  private Observations(List<ClientOp> ops, List<AppliedRecord> applied) {
    for (ClientOp op : ops) {
      if (op.kind().writesValue()) {
        written.add(ByteBuffer.wrap(op.value()));
      }
    }
    List<AppliedRecord> dead = new ArrayList<>();
    for (AppliedRecord a : applied) {
      Record record = a.record();
      if (record.tombstone() || record.hasExpiry()) {
        dead.add(a);
      }
      if (!record.tombstone()) {
        ByteBuffer value = ByteBuffer.wrap(record.value());
        firstApplied.merge(new Applied(record.version(), value), a.at(), Math::min);
        versionsApplied.computeIfAbsent(value, v -> new TreeSet<>()).add(record.version());
      }
    }
    dead.sort(Comparator.comparingLong(AppliedRecord::at));
    deadAt = new long[dead.size()];
    newestDead = new Version[dead.size()];
    Version newest = null;
    for (int i = 0; i < dead.size(); i++) {
      deadAt[i] = dead.get(i).at();
      Version version = dead.get(i).record().version();
      newest = newest == null || version.compareTo(newest) > 0 ? version : newest;
      newestDead[i] = newest;
    }
  }

  /** The observations of every key in {@code ops} or {@code applied}. */
  static Map<Key, Observations> byKey(
      Map<Key, List<ClientOp>> ops, Map<Key, List<AppliedRecord>> applied) {
    Map<Key, Observations> byKey = new TreeMap<>();
    Set<Key> keys = new TreeSet<>(ops.keySet());
    keys.addAll(applied.keySet());
    for (Key key : keys) {
      byKey.put(
          key,
          new Observations(ops.getOrDefault(key, List.of()), applied.getOrDefault(key, List.of())));
    }
    return byKey;
  }

  /** Whether some client wrote {@code value} to the key (whatever the write's outcome). */
  boolean wasWritten(byte[] value) {
    return written.contains(ByteBuffer.wrap(value));
  }

  /**
   * When a replica first applied {@code value} at {@code version}; {@link Long#MAX_VALUE}: never.
   */
  long firstApplied(Version version, byte[] value) {
    return firstApplied.getOrDefault(new Applied(version, ByteBuffer.wrap(value)), Long.MAX_VALUE);
  }

  /** The versions replicas applied {@code value} at, for messages. */
  String versionsOf(byte[] value) {
    Set<Version> versions = versionsApplied.get(ByteBuffer.wrap(value));
    return versions == null ? "applied nowhere" : "applied at " + versions;
  }

  /**
   * The newest version of a tombstone or an expiring value some replica had applied by {@code time}
   * (inclusive), or null.
   */
  Version newestDeadBy(long time) {
    int low = 0;
    int high = deadAt.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (deadAt[mid] <= time) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low == 0 ? null : newestDead[low - 1];
  }
}
