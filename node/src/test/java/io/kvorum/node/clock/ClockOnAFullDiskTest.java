package io.kvorum.node.clock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The clock when its ceiling cannot be stored (a full disk on a file system where even an in-place
 * overwrite needs new blocks): it fails with the typed full-disk failure rather than issue a
 * version the stored ceiling does not cover, and carries on once the store works again.
 */
class ClockOnAFullDiskTest {
  private static final long T0 = 1_700_000_000_000L;

  private final AtomicLong wall = new AtomicLong(T0);
  private final FillableStore store = new FillableStore();
  private final HybridLogicalClock clock =
      HybridLogicalClock.start(store, wall::get, Duration.ofSeconds(1), Duration.ofMinutes(1));

  @Test
  void versionsWithinTheStoredCeilingAreStillIssuedOnAFullDisk() {
    store.full = true;
    wall.addAndGet(500);

    Version version = clock.now();

    assertThat(version.physicalMillis()).isEqualTo(T0 + 500).isLessThan(store.ceiling.get());
  }

  @Test
  void noVersionAtOrPastTheStoredCeilingIsIssuedWhileTheCeilingCannotBeStored() {
    Version before = clock.now();
    long stored = store.ceiling.get();
    store.full = true;
    wall.set(stored + 10);

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(clock::now)
          .isInstanceOfSatisfying(
              StorageException.class,
              e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.NO_SPACE));
    }
    assertThatThrownBy(clock::refreshCeiling).isInstanceOf(StorageException.class);
    assertThat(store.ceiling.get()).isEqualTo(stored);
    assertThat(clock.current()).isEqualTo(before);

    store.full = false;
    Version after = clock.now();

    assertThat(after).isGreaterThan(before);
    assertThat(after.physicalMillis()).isEqualTo(stored + 10).isLessThan(store.ceiling.get());
  }

  @Test
  void aRestartAfterTheDiskFilledResumesPastEveryIssuedVersion() {
    wall.addAndGet(900);
    Version issued = clock.now();
    store.full = true;
    wall.addAndGet(-60_000); // the wall clock set back as well

    HybridLogicalClock restarted =
        HybridLogicalClock.start(
            new ReadOnlyView(store), wall::get, Duration.ofSeconds(1), Duration.ofMinutes(1));

    assertThat(restarted.current()).isGreaterThan(issued);
  }

  /** A ceiling store whose disk can be filled and emptied. */
  private static final class FillableStore implements CeilingStore {
    final AtomicLong ceiling = new AtomicLong();
    volatile boolean full;

    @Override
    public long load() {
      return ceiling.get();
    }

    @Override
    public void store(long ceilingMillis) {
      if (full) {
        throw new StorageException(
            StorageException.Kind.NO_SPACE, "store the clock ceiling", null, null);
      }
      ceiling.set(ceilingMillis);
    }
  }

  /** What a restarted node finds: the stored ceiling; storing a new one works again. */
  private record ReadOnlyView(FillableStore stored) implements CeilingStore {
    @Override
    public long load() {
      return stored.load();
    }

    @Override
    public void store(long ceilingMillis) {}
  }
}
