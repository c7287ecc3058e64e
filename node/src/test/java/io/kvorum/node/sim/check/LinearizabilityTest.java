package io.kvorum.node.sim.check;

import static io.kvorum.node.sim.check.Fixtures.TWO;
import static io.kvorum.node.sim.check.Fixtures.bytes;
import static io.kvorum.node.sim.check.Fixtures.op;
import static io.kvorum.node.sim.check.Fixtures.put;
import static io.kvorum.node.sim.check.Fixtures.v;
import static io.kvorum.node.sim.check.Fixtures.value;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.sim.check.Linearizability.Limits;
import io.kvorum.node.sim.check.Linearizability.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The port of the Go checker tells linearizable histories of conditional writes from others: the
 * cases of {@code PorcupineCheckerTest}, then whole recordings.
 */
class LinearizabilityTest {
  private static final String NEVER = "\"1.0\"";

  private static CasOp cas(
      int client, long call, long ret, boolean read, String expect, String result, String etag) {
    return CasOp.ofEtags(client, call, ret, read, expect, result, etag);
  }

  private static Verdict verdict(List<CasOp> history) {
    return Linearizability.check(history, Limits.DEFAULT).verdict();
  }

  @Test
  void rejectsAPlantedStaleRead() {
    List<CasOp> history =
        List.of(cas(1, 1, 2, false, "", "ok", "\"5.0\""), cas(2, 3, 4, true, NEVER, "refused", ""));

    Linearizability.Result result = Linearizability.check(history, Limits.DEFAULT);

    assertThat(result.verdict()).isEqualTo(Verdict.NOT_LINEARIZABLE);
    assertThat(result.explanation())
        .isEqualTo(
            "no order of the 2 operations explains their answers; the longest order found takes"
                + " 1, the last client 1 put(expect absent) -> OK 5.0 [0.000000s, 0.000000s],"
                + " leaving the register 5.0, and then client 2 read -> refused, current absent"
                + " [0.000000s, 0.000000s] cannot take effect before it returned");
  }

  @Test
  void rejectsAPlantedLostUpdate() {
    List<CasOp> history =
        List.of(
            cas(1, 1, 2, false, "", "ok", "\"5.0\""),
            cas(2, 3, 6, false, "\"5.0\"", "ok", "\"6.0\""),
            cas(3, 4, 7, false, "\"5.0\"", "ok", "\"7.0\""));

    assertThat(verdict(history)).isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  @Test
  void acceptsALinearizableHistoryWithATimeout() {
    List<CasOp> history =
        List.of(
            cas(1, 1, 5, false, "", "ok", "\"5.0\""),
            cas(2, 3, 4, true, NEVER, "refused", ""),
            cas(2, 6, 7, false, "\"5.0\"", "unknown", ""),
            cas(1, 8, 9, true, NEVER, "refused", "\"9.0\""));

    assertThat(verdict(history)).isEqualTo(Verdict.LINEARIZABLE);
  }

  /**
   * Forty writes that timed out, each expecting a version the register never had, decided either
   * way at once: PAXOS_PURGE seeds 20302 and 29151, with 55 and 59 such writes of one key, gave up
   * after half a million steps when each could take effect as a no-op anywhere.
   */
  @Test
  void decidesHistoriesWithManyTimedOutWritesThatChangedNothing() {
    List<CasOp> history = new ArrayList<>();
    history.add(cas(1, 1, 2, false, "", "ok", "\"5.0\""));
    for (int i = 0; i < 40; i++) {
      history.add(cas(10 + i, 3 + i, 4 + i, false, "\"4.0\"", "unknown", ""));
    }
    history.add(cas(2, 50, 51, true, NEVER, "refused", "\"5.0\""));
    assertThat(verdict(history)).isEqualTo(Verdict.LINEARIZABLE);

    history.set(history.size() - 1, cas(2, 50, 51, true, NEVER, "refused", ""));
    assertThat(verdict(history)).as("a stale read among them").isEqualTo(Verdict.NOT_LINEARIZABLE);
  }

  /** Two timeouts one after the other, each seen only through refusals (see the Go model). */
  @Test
  void acceptsTwoTimedOutWritesSeenOnlyThroughRefusals() {
    List<CasOp> history =
        List.of(
            cas(1, 1, 2, false, "", "ok", "\"5.0\""),
            cas(2, 3, 4, false, "\"5.0\"", "unknown", ""),
            cas(3, 5, 6, true, NEVER, "refused", "\"7.0\""),
            cas(2, 7, 8, false, "\"7.0\"", "unknown", ""),
            cas(1, 9, 10, false, "\"7.0\"", "refused", "\"8.0\""),
            cas(1, 11, 12, false, "\"8.0\"", "ok", "\"9.0\""));

    assertThat(verdict(history)).isEqualTo(Verdict.LINEARIZABLE);
  }

  /** CI run 18's history of a register across a join: 595 operations, 31 answered 504. */
  @Test
  void acceptsTheJoinHistoryOfCiRun18() throws IOException {
    List<CasOp> history = ciRun18();

    assertThat(history).hasSize(595);
    assertThat(verdict(history)).isEqualTo(Verdict.LINEARIZABLE);
    assertThat(Linearizability.check(history, new Limits(1000, 100)).explanation())
        .isEqualTo(
            "gave up after 100 search steps over 595 operations (Linearizability.Limits.maxSteps)");
  }

  private static List<CasOp> ciRun18() throws IOException {
    List<CasOp> history = new ArrayList<>();
    try (InputStream in =
        LinearizabilityTest.class.getResourceAsStream(
            "/io/kvorum/node/coordinator/ci18-join-history.json")) {
      for (JsonNode op : new ObjectMapper().readTree(in)) {
        history.add(
            cas(
                op.path("client").asInt(),
                op.path("call").asLong(),
                op.path("return").asLong(),
                op.path("read").asBoolean(),
                op.path("expect").asText(),
                op.path("result").asText(),
                op.path("etag").asText()));
      }
    }
    return history;
  }

  @Test
  void acceptsARecordingOfCreateDeleteCreate() {
    Recording recording =
        Recording.recorder()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 3, 4).expected(v(1)).value(bytes("r")).refused(v(5)))
            .op(op(OpKind.DELETE_IF_MATCH, TWO, 5, 6).expected(v(5)).ok(v(6)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 7, 8).expected(v(6)).value(bytes("x")).refused(null))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 9, 10).value(bytes("b")).ok(v(7)))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 11, 12).value(bytes("c")).unknown())
            .op(Fixtures.get(TWO, 11, 12, "b", 7))
            .build();

    assertThat(new Linearizability().check(recording)).isEmpty();
  }

  @Test
  void reportsALostUpdateInARecording() {
    Recording recording =
        Recording.recorder()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 3, 6).expected(v(5)).value(bytes("b")).ok(v(6)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 4, 7).expected(v(5)).value(bytes("c")).ok(v(7)))
            .build();

    assertThat(new Linearizability().check(recording))
        .singleElement()
        .satisfies(
            violation -> {
              assertThat(violation.checker()).isEqualTo("Linearizability");
              assertThat(violation.message())
                  .startsWith("the 3 conditional writes are not linearizable: no order of the 3")
                  .contains(
                      "leaving the register 6.0, and then client 1 put(expect 5.0) -> OK 7.0");
            });
  }

  /**
   * A linearizable GET is a read of the register: one that returns an older version than a
   * conditional write acknowledged before it began is reported; one that returns it is not.
   */
  @Test
  void reportsALinearizableReadOlderThanAnAcknowledgedWrite() {
    Recording stale =
        Recording.recorder()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 3, 4).expected(v(5)).value(bytes("b")).ok(v(6)))
            .op(op(OpKind.GET_LINEARIZABLE, TWO, 5, 6).value(bytes("a")).ok(v(5)))
            .build();
    Recording fresh =
        Recording.recorder()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_MATCH, TWO, 3, 4).expected(v(5)).value(bytes("b")).ok(v(6)))
            .op(op(OpKind.GET_LINEARIZABLE, TWO, 5, 6).value(bytes("b")).ok(v(6)))
            .op(op(OpKind.GET_LINEARIZABLE, TWO, 5, 6).unknown())
            .build();

    assertThat(new Linearizability().check(stale))
        .singleElement()
        .satisfies(v -> assertThat(v.message()).contains("client 1 read -> refused, current 5.0"));
    assertThat(new Linearizability().check(fresh)).isEmpty();
  }

  @Test
  void reportsAStaleReadByAWriteExpectingANeverIssuedVersion() {
    Recording recording =
        Recording.recorder()
            .applied(Fixtures.K, value("a", 5), Fixtures.N1, Fixtures.ms(2))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.DELETE_IF_MATCH, TWO, 3, 4).expected(v(1)).refused(null))
            .build();

    assertThat(new Linearizability().check(recording))
        .singleElement()
        .extracting(Violation::message)
        .asString()
        .contains("then client 1 read -> refused, current absent");
  }

  @Test
  void leavesKeysWrittenPlainlyToLastWriterWins() {
    Recording recording =
        Recording.recorder()
            .op(put(TWO, 0, 1, "p", 4))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 3, 4).value(bytes("b")).ok(v(6)))
            .build();

    assertThat(new Linearizability().check(recording)).isEmpty();
  }

  @Test
  void reportsAKeyTooLargeToCheck() {
    Recording recording =
        Recording.recorder()
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 1, 2).value(bytes("a")).ok(v(5)))
            .op(op(OpKind.PUT_IF_ABSENT, TWO, 3, 4).value(bytes("b")).refused(v(5)))
            .build();

    assertThat(new Linearizability(new Limits(1, 1_000)).check(recording))
        .singleElement()
        .extracting(Violation::message)
        .isEqualTo(
            "the 2 conditional writes are too large to check: 2 operations, more than the limit"
                + " of 1 (Linearizability.Limits.maxOps)");
  }
}
