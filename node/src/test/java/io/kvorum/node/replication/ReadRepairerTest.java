package io.kvorum.node.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.ScriptedPeerTransport;
import io.kvorum.node.testing.ScriptedPeerTransport.Call;
import io.kvorum.node.testing.ScriptedPeerTransport.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadRepairerTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final NodeId SELF = NodeId.of("n1");
  private static final NodeId N2 = NodeId.of("n2");
  private static final NodeId N3 = NodeId.of("n3");
  private static final NodeId N4 = NodeId.of("n4");
  private static final Key KEY = Key.utf8("k");

  private final InMemoryStorageEngine local = new InMemoryStorageEngine();
  private final ScriptedPeerTransport peers = new ScriptedPeerTransport();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ReadRepairer repairer =
      new ReadRepairer(new Replicas(SELF, local, peers), registry);

  @AfterEach
  void close() {
    local.close();
  }

  @Test
  void staleAndMissingReplicasGetTheNewestRecord() {
    Record newest = value(3, "newest");
    repair(
        KEY,
        answers(
            N2, Optional.of(value(1, "stale")),
            N3, Optional.of(newest),
            N4, Optional.empty()));

    assertThat(writes()).containsExactlyInAnyOrder(write(N2, newest), write(N4, newest));
    assertThat(repairs()).isEqualTo(2);
  }

  @Test
  void upToDateReplicasGetNothing() {
    Record newest = value(3, "newest");

    repair(KEY, answers(N2, Optional.of(newest), N3, Optional.of(value(3, "newest"))));

    assertThat(writes()).isEmpty();
    assertThat(repairs()).isZero();
  }

  @Test
  void thisNodesOwnStaleReplicaIsRepairedInItsStorage() {
    Record newest = value(5, "newest");
    local.put(KEY, value(1, "stale")).join();

    repair(KEY, answers(SELF, Optional.of(value(1, "stale")), N2, Optional.of(newest)));

    assertThat(local.get(KEY).join()).contains(newest);
    assertThat(writes()).isEmpty();
    assertThat(repairs()).isEqualTo(1);
  }

  @Test
  void aNewerTombstoneIsSpreadToReplicasThatStillHaveTheValue() {
    Record deleted = Record.tombstone(version(4), 3);

    repair(KEY, answers(N2, Optional.of(value(2, "before")), N3, Optional.of(deleted)));

    assertThat(writes()).containsExactly(write(N2, deleted));
  }

  @Test
  void atEqualVersionsTheLastWriterWinsOrderDecides() {
    Record value = value(4, "v");
    Record tombstone = Record.tombstone(version(4), 3);

    repair(KEY, answers(N2, Optional.of(value), N3, Optional.of(tombstone)));

    assertThat(writes()).containsExactly(write(N2, tombstone));
  }

  @Test
  void nothingHappensWhenEveryAnswerIsEmpty() {
    repair(KEY, answers(SELF, Optional.empty(), N2, Optional.empty(), N3, Optional.empty()));

    assertThat(writes()).isEmpty();
    assertThat(local.get(KEY).join()).isEmpty();
    assertThat(repairs()).isZero();
  }

  @Test
  void aRepairThatFailsIsNotRetriedAndDoesNotThrow() {
    peers.answer(N2, Outcome.FAIL);

    repair(KEY, answers(N2, Optional.empty(), N3, Optional.of(value(1, "v"))));

    assertThat(writes()).hasSize(1);
    assertThat(repairs()).as("the attempt is counted").isEqualTo(1);
  }

  @Test
  void repairsAddUpAcrossReads() {
    repair(KEY, answers(N2, Optional.empty(), N3, Optional.of(value(1, "v"))));
    repair(
        Key.utf8("other"),
        answers(
            N2, Optional.of(value(1, "a")), N3, Optional.of(value(2, "b")), N4, Optional.empty()));

    assertThat(repairs()).isEqualTo(3);
  }

  @Test
  void aRecordWrittenToFewerReplicasThanTheReadAskedStaysOnItsOwn() {
    Record onTwo =
        Record.value(version(5), "two".getBytes(StandardCharsets.UTF_8), Record.NO_EXPIRY, 2);

    repair(
        KEY,
        answers(
            N2, Optional.of(value(1, "older")),
            N3, Optional.of(onTwo),
            N4, Optional.empty()));

    assertThat(writes())
        .as("written with from=2, it belongs on the first two of the ranking alone: n2 and n3")
        .containsExactly(write(N2, onTwo));
  }

  /** Repairs after a read that asked the nodes of {@code answers} in their order of ranking. */
  private void repair(Key key, Map<NodeId, Optional<Record>> answers) {
    repairer.repair(key, List.copyOf(answers.keySet()), answers);
  }

  private double repairs() {
    return registry.get("kvorum.read.repairs").counter().count();
  }

  private static Map<NodeId, Optional<Record>> answers(Object... nodeAndAnswer) {
    Map<NodeId, Optional<Record>> answers = new LinkedHashMap<>();
    for (int i = 0; i < nodeAndAnswer.length; i += 2) {
      @SuppressWarnings("unchecked")
      Optional<Record> answer = (Optional<Record>) nodeAndAnswer[i + 1];
      answers.put((NodeId) nodeAndAnswer[i], answer);
    }
    return answers;
  }

  private static Version version(int logical) {
    return Version.of(T0, logical);
  }

  private static Record value(int logical, String value) {
    return Record.value(
        version(logical), value.getBytes(StandardCharsets.UTF_8), Record.NO_EXPIRY, 3);
  }

  private static Call write(NodeId peer, Record record) {
    return new Call("write", peer, KEY, record);
  }

  private List<Call> writes() {
    return peers.calls("write");
  }
}
