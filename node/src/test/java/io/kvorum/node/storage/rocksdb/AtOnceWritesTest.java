package io.kvorum.node.storage.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AtOnceWritesTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtOnceWrites policy = new AtOnceWrites(now::get);

  @Test
  void aSmallWriteIsTriedAtOnceABigOneIsQueued() {
    assertThat(policy.mayTry(1_024)).isTrue();
    assertThat(policy.mayTry(AtOnceWrites.MAX_BYTES)).isTrue();
    assertThat(policy.mayTry(AtOnceWrites.MAX_BYTES + 1)).isFalse();
  }

  @Test
  void aStallQueuesWritesForThePauseThenTheyAreTriedAtOnceAgain() {
    policy.stalled();

    now.addAndGet(AtOnceWrites.PAUSE.toNanos() - 1);
    assertThat(policy.mayTry(1)).isFalse();
    now.addAndGet(1);
    assertThat(policy.mayTry(1)).isTrue();
  }

  @Test
  void aSlowWriteQueuesWritesForThePauseAQuickOneDoesNot() {
    policy.written(AtOnceWrites.SLOW.toNanos());
    assertThat(policy.mayTry(1)).isTrue();

    policy.written(AtOnceWrites.SLOW.toNanos() + 1);
    assertThat(policy.mayTry(1)).isFalse();
    now.addAndGet(AtOnceWrites.PAUSE.toNanos());
    assertThat(policy.mayTry(1)).isTrue();
  }
}
