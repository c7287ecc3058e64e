package io.kvorum.node.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class FailureStreakTest {
  private static final StorageException FULL =
      new StorageException(StorageException.Kind.NO_SPACE, "put", null, null);

  @Test
  void aStreakOfTheSameFailureIsWorthOneLineAndItsEndOneMore() {
    FailureStreak streak = new FailureStreak();
    List<String> logged = new ArrayList<>();

    if (streak.succeeded()) {
      logged.add("works again");
    }
    for (int i = 0; i < 40; i++) {
      if (streak.failed(i % 2 == 0 ? FULL : new CompletionException(FULL))) {
        logged.add("failed " + i);
      }
    }
    assertThat(streak.failing()).isTrue();
    for (int i = 0; i < 2; i++) {
      if (streak.succeeded()) {
        logged.add("works again");
      }
    }

    assertThat(logged).containsExactly("failed 0", "works again");
    assertThat(streak.failing()).isFalse();
  }

  @Test
  void aFailureOfAnotherKindIsWorthALineAgain() {
    FailureStreak streak = new FailureStreak();

    assertThat(streak.failed(FULL)).isTrue();
    assertThat(
            streak.failed(new StorageException(StorageException.Kind.FAILURE, "put", null, null)))
        .isTrue();
    assertThat(streak.failed(new IllegalStateException("a bug"))).isTrue();
    assertThat(streak.failed(new IllegalStateException("the same bug"))).isFalse();
    assertThat(streak.failed(FULL)).isTrue();
  }
}
