package io.kvorum.node.sim.check;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Terse histories for the checkers' tests: times in milliseconds of virtual time. */
final class Fixtures {
  static final NodeId N1 = NodeId.of("n1");
  static final NodeId N2 = NodeId.of("n2");
  static final NodeId N3 = NodeId.of("n3");
  static final NodeId N4 = NodeId.of("n4");
  static final List<NodeId> OWNERS = List.of(N1, N2, N3);
  static final Quorum ONE = new Quorum(1, 3);
  static final Quorum TWO = new Quorum(2, 3);
  static final Quorum ALL = new Quorum(3, 3);
  static final Key K = Key.utf8("k");

  private Fixtures() {}

  static Version v(long millis) {
    return Version.of(millis, 0);
  }

  static byte[] bytes(String text) {
    return text.getBytes(UTF_8);
  }

  static long ms(long millis) {
    return millis * 1_000_000L;
  }

  /** An operation by client 1 through n1 on key {@code k}, called and answered at these times. */
  static ClientOp.Builder op(OpKind kind, Quorum quorum, long callMs, long retMs) {
    return ClientOp.builder(kind, K).by(1, N1).quorum(quorum).between(ms(callMs), ms(retMs));
  }

  static ClientOp put(Quorum quorum, long callMs, long retMs, String value, long version) {
    return op(OpKind.PUT, quorum, callMs, retMs).value(bytes(value)).ok(v(version));
  }

  static ClientOp delete(Quorum quorum, long callMs, long retMs, long version) {
    return op(OpKind.DELETE, quorum, callMs, retMs).ok(v(version));
  }

  static ClientOp get(Quorum quorum, long callMs, long retMs, String value, long version) {
    return op(OpKind.GET, quorum, callMs, retMs).value(bytes(value)).ok(v(version));
  }

  static ClientOp getAbsent(Quorum quorum, long callMs, long retMs) {
    return op(OpKind.GET, quorum, callMs, retMs).ok(null);
  }

  static Record value(String value, long version) {
    return Record.value(v(version), bytes(value), Record.NO_EXPIRY, 3);
  }

  static Record tombstone(long version) {
    return Record.tombstone(v(version), 3);
  }

  /** Key {@code k} at the end: each owner holds the record given for it, in order (null: none). */
  static ReplicaState end(Record n1, Record n2, Record n3) {
    Map<NodeId, Record> held = new LinkedHashMap<>();
    put(held, N1, n1);
    put(held, N2, n2);
    put(held, N3, n3);
    return ReplicaState.of(K, OWNERS, held);
  }

  /** Key {@code k} at the end with every owner holding {@code record}. */
  static ReplicaState converged(Record record) {
    return end(record, record, record);
  }

  private static void put(Map<NodeId, Record> held, NodeId node, Record record) {
    if (record != null) {
      held.put(node, record);
    }
  }

  /** A recorder in which every owner applied each record at {@code atMs}. */
  static Recording.Recorder appliedEverywhere(long atMs, Record... records) {
    Recording.Recorder recorder = Recording.recorder();
    for (Record record : records) {
      for (NodeId owner : OWNERS) {
        recorder.applied(K, record, owner, ms(atMs));
      }
    }
    return recorder;
  }
}
