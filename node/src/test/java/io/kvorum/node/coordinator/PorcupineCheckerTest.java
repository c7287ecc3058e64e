package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvorum.node.testing.Porcupine;
import io.kvorum.node.testing.Porcupine.Operation;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checker the conditional-write scenarios rely on tells a linearizable history from others. */
class PorcupineCheckerTest {
  private static final String NEVER = "\"1.0\"";

  @TempDir Path dir;

  /** A read that misses a create which had returned before it started. */
  @Test
  void rejectsAPlantedStaleRead() {
    List<Operation> history =
        List.of(
            new Operation(1, 1, 2, false, "", "ok", "\"5.0\""),
            new Operation(2, 3, 4, true, NEVER, "refused", ""));
    assertThat(Porcupine.check(history, dir)).isEqualTo("not linearizable");
  }

  /** Two writes that both succeeded on the same version: a lost update. */
  @Test
  void rejectsAPlantedLostUpdate() {
    List<Operation> history =
        List.of(
            new Operation(1, 1, 2, false, "", "ok", "\"5.0\""),
            new Operation(2, 3, 6, false, "\"5.0\"", "ok", "\"6.0\""),
            new Operation(3, 4, 7, false, "\"5.0\"", "ok", "\"7.0\""));
    assertThat(Porcupine.check(history, dir)).isEqualTo("not linearizable");
  }

  /** Overlapping operations in an order that explains them, and a timeout that applied. */
  @Test
  void acceptsALinearizableHistoryWithATimeout() {
    List<Operation> history =
        List.of(
            new Operation(1, 1, 5, false, "", "ok", "\"5.0\""),
            new Operation(2, 3, 4, true, NEVER, "refused", ""),
            new Operation(2, 6, 7, false, "\"5.0\"", "unknown", ""),
            new Operation(1, 8, 9, true, NEVER, "refused", "\"9.0\""));
    assertThat(Porcupine.check(history, dir)).isEqualTo("linearizable");
  }

  /**
   * Two writes answered 504 one after the other, each seen only through refusals: two different
   * versions, the second newer. The model once let the second write's unknown tag match the
   * first's, found the refusal that names the second impossible, and called this not linearizable.
   */
  @Test
  void acceptsTwoTimedOutWritesSeenOnlyThroughRefusals() {
    List<Operation> history =
        List.of(
            new Operation(1, 1, 2, false, "", "ok", "\"5.0\""),
            new Operation(2, 3, 4, false, "\"5.0\"", "unknown", ""),
            new Operation(3, 5, 6, true, NEVER, "refused", "\"7.0\""),
            new Operation(2, 7, 8, false, "\"7.0\"", "unknown", ""),
            new Operation(1, 9, 10, false, "\"7.0\"", "refused", "\"8.0\""),
            new Operation(1, 11, 12, false, "\"8.0\"", "ok", "\"9.0\""));
    assertThat(Porcupine.check(history, dir)).isEqualTo("linearizable");
  }

  /**
   * The history of a register across a join that CI run 18 recorded (595 operations, 31 answered
   * 504) and the model of then rejected as above; it is linearizable.
   */
  @Test
  void acceptsTheJoinHistoryOfCiRun18() throws IOException {
    List<Operation> history = new ArrayList<>();
    try (InputStream in = getClass().getResourceAsStream("ci18-join-history.json")) {
      for (JsonNode op : new ObjectMapper().readTree(in)) {
        history.add(
            new Operation(
                op.path("client").asInt(),
                op.path("call").asLong(),
                op.path("return").asLong(),
                op.path("read").asBoolean(),
                op.path("expect").asText(),
                op.path("result").asText(),
                op.path("etag").asText()));
      }
    }
    assertThat(history).hasSize(595);
    assertThat(Porcupine.check(history, dir)).isEqualTo("linearizable");
  }
}
