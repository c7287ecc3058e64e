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
    repairer.repair(
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

    repairer.repair(KEY, answers(N2, Optional.of(newest), N3, Optional.of(value(3, "newest"))));

    assertThat(writes()).isEmpty();
    assertThat(repairs()).isZero();
  }

  @Test
  void thisNodesOwnStaleReplicaIsRepairedInItsStorage() {
    Record newest = value(5, "newest");
    local.put(KEY, value(1, "stale")).join();

    repairer.repair(KEY, answers(SELF, Optional.of(value(1, "stale")), N2, Optional.of(newest)));

    assertThat(local.get(KEY).join()).contains(newest);
    assertThat(writes()).isEmpty();
    assertThat(repairs()).isEqualTo(1);
  }

  @Test
  void aNewerTombstoneIsSpreadToReplicasThatStillHaveTheValue() {
    Record deleted = Record.tombstone(version(4));

    repairer.repair(KEY, answers(N2, Optional.of(value(2, "before")), N3, Optional.of(deleted)));

    assertThat(writes()).containsExactly(write(N2, deleted));
  }

  @Test
  void atEqualVersionsTheLastWriterWinsOrderDecides() {
    Record value = value(4, "v");
    Record tombstone = Record.tombstone(version(4));

    repairer.repair(KEY, answers(N2, Optional.of(value), N3, Optional.of(tombstone)));

    assertThat(writes()).containsExactly(write(N2, tombstone));
  }

  @Test
  void nothingHappensWhenEveryAnswerIsEmpty() {
    repairer.repair(
        KEY, answers(SELF, Optional.empty(), N2, Optional.empty(), N3, Optional.empty()));

    assertThat(writes()).isEmpty();
    assertThat(local.get(KEY).join()).isEmpty();
    assertThat(repairs()).isZero();
  }

  @Test
  void aRepairThatFailsIsNotRetriedAndDoesNotThrow() {
    peers.answer(N2, Outcome.FAIL);

    repairer.repair(KEY, answers(N2, Optional.empty(), N3, Optional.of(value(1, "v"))));

    assertThat(writes()).hasSize(1);
    assertThat(repairs()).as("the attempt is counted").isEqualTo(1);
  }

  @Test
  void repairsAddUpAcrossReads() {
    repairer.repair(KEY, answers(N2, Optional.empty(), N3, Optional.of(value(1, "v"))));
    repairer.repair(
        Key.utf8("other"),
        answers(
            N2, Optional.of(value(1, "a")), N3, Optional.of(value(2, "b")), N4, Optional.empty()));

    assertThat(repairs()).isEqualTo(3);
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
    return Record.value(version(logical), value.getBytes(StandardCharsets.UTF_8));
  }

  private static Call write(NodeId peer, Record record) {
    return new Call("write", peer, KEY, record);
  }

  private List<Call> writes() {
    return peers.calls("write");
  }
}
