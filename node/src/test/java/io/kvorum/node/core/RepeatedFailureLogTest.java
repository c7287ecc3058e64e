package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kvorum.node.testing.CapturedLog;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RepeatedFailureLogTest {
  private static final StorageException FULL =
      new StorageException(StorageException.Kind.NO_SPACE, "put", null, null);

  @Test
  void aStreakOfTheSameFailureIsOneWarningAndItsEndOneInfo() {
    try (CapturedLog captured = CapturedLog.of(RepeatedFailureLogTest.class)) {
      RepeatedFailureLog failures =
          new RepeatedFailureLog(LoggerFactory.getLogger(RepeatedFailureLogTest.class), "the task");

      failures.succeeded();
      for (int i = 0; i < 40; i++) {
        failures.failed(i % 2 == 0 ? FULL : new CompletionException(FULL));
      }
      assertThat(failures.failing()).isTrue();
      failures.succeeded();
      failures.succeeded();

      assertThat(captured.lines(Level.WARN))
          .singleElement()
          .asString()
          .startsWith("the task failed: ")
          .contains("NO_SPACE")
          .contains("not logged until it works again");
      assertThat(captured.lines(Level.INFO)).containsExactly("the task works again");
      assertThat(failures.failing()).isFalse();
    }
  }

  @Test
  void aFailureOfAnotherKindIsLoggedAgain() {
    try (CapturedLog captured = CapturedLog.of(RepeatedFailureLogTest.class)) {
      RepeatedFailureLog failures =
          new RepeatedFailureLog(LoggerFactory.getLogger(RepeatedFailureLogTest.class), "the task");

      failures.failed(FULL);
      failures.failed(new StorageException(StorageException.Kind.FAILURE, "put", null, null));
      failures.failed(new IllegalStateException("a bug"));
      failures.failed(new IllegalStateException("the same bug"));

      assertThat(captured.lines(Level.WARN)).hasSize(3);
    }
  }
}
