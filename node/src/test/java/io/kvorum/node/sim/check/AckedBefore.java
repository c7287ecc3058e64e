package io.kvorum.node.sim.check;

import io.kvorum.node.core.Quorum;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The acknowledged writes of one key, to ask which is the newest that had returned before a given
 * time: in O(log n) per question after sorting once, so a history costs O(n log n) to check.
 */
final class AckedBefore {
  private static final Comparator<Quorum> BY_FROM_THEN_ACK =
      Comparator.comparingInt(Quorum::from).thenComparingInt(Quorum::ack);

  private final Prefix all;

  // Per write quorum, so that a read asks only the writes its quorum must overlap.
  private final Map<Quorum, Prefix> byQuorum = new TreeMap<>(BY_FROM_THEN_ACK);

  /** Indexes {@code writes}: acknowledged writes of one key, each with its version. */
  AckedBefore(List<ClientOp> writes) {
    all = new Prefix(writes);
    Map<Quorum, List<ClientOp>> grouped = new TreeMap<>(BY_FROM_THEN_ACK);
    for (ClientOp write : writes) {
      grouped.computeIfAbsent(write.quorum(), q -> new ArrayList<>()).add(write);
    }
    grouped.forEach((quorum, group) -> byQuorum.put(quorum, new Prefix(group)));
  }

  /**
   * Whether quorum {@code read} must overlap quorum {@code write}: same {@code from}, R + W > F.
   */
  static boolean overlap(Quorum read, Quorum write) {
    return read.from() == write.from() && read.ack() + write.ack() > read.from();
  }

  /** The newest write (by version) that returned strictly before {@code time}, if any. */
  Optional<ClientOp> newest(long time) {
    return Optional.ofNullable(all.newestBefore(time));
  }

  /**
   * The newest write (by version) that returned strictly before {@code time} with a quorum that
   * {@code read} must overlap, if any.
   */
  Optional<ClientOp> newestOverlapping(long time, Quorum read) {
    ClientOp newest = null;
    for (Map.Entry<Quorum, Prefix> group : byQuorum.entrySet()) {
      if (overlap(read, group.getKey())) {
        newest = newer(newest, group.getValue().newestBefore(time));
      }
    }
    return Optional.ofNullable(newest);
  }

  private static ClientOp newer(ClientOp a, ClientOp b) {
    if (a == null) {
      return b;
    }
    return b == null || a.version().compareTo(b.version()) >= 0 ? a : b;
  }

  /** Writes sorted by return time, each slot holding the newest write returned by then. */
  private static final class Prefix {
    private final long[] returns;
    private final ClientOp[] newest;

    Prefix(List<ClientOp> writes) {
      List<ClientOp> sorted = new ArrayList<>(writes);
      sorted.sort(Comparator.comparingLong(ClientOp::ret));
      returns = new long[sorted.size()];
      newest = new ClientOp[sorted.size()];
      ClientOp best = null;
      for (int i = 0; i < sorted.size(); i++) {
        returns[i] = sorted.get(i).ret();
        best = newer(best, sorted.get(i));
        newest[i] = best;
      }
    }

    ClientOp newestBefore(long time) {
      // The first index whose return is at or after time: everything before it returned earlier.
      int low = 0;
      int high = returns.length;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (returns[mid] < time) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low == 0 ? null : newest[low - 1];
    }
  }
}
