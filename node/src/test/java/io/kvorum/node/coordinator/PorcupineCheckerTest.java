package io.kvorum.node.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.testing.Porcupine;
import io.kvorum.node.testing.Porcupine.Operation;
import java.nio.file.Path;
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
}
