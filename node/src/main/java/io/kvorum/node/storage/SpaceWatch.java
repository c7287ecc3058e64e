package io.kvorum.node.storage;

import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this node's storage refuses writes for lack of space, learnt from the outcome of its
 * writes: one log line when a write is first refused with {@link FailureKind#NO_SPACE}, one when a
 * write succeeds again, and the gauge {@code kvorum_storage_no_space} (1 in between). While the
 * disk is full every write fails the same way; logging each would flood the log.
 */
public final class SpaceWatch {
  private static final Logger log = LoggerFactory.getLogger(SpaceWatch.class);

  private final AtomicBoolean full = new AtomicBoolean();

  public SpaceWatch(MeterRegistry registry) {
    Gauge.builder("kvorum.storage.no.space", full, f -> f.get() ? 1 : 0)
        .description(
            "1 from a write refused because the disk (or --max-disk-usage) is full until a write"
                + " succeeds again, else 0")
        .register(registry);
  }

  /** Reports a write's outcome: {@code error} null for success. Other failures change nothing. */
  public void written(Throwable error) {
    if (error == null) {
      if (full.get() && full.compareAndSet(true, false)) {
        log.info("disk space is back: writes succeed again");
      }
    } else if (FailureKind.of(error) == FailureKind.NO_SPACE && full.compareAndSet(false, true)) {
      log.warn(
          "the disk is full: writes are refused (507) until space is freed, reads go on ({})",
          Failures.unwrap(error).getMessage());
    }
  }

  /** Whether the last write that succeeded or was refused for space was refused. */
  public boolean full() {
    return full.get();
  }
}
