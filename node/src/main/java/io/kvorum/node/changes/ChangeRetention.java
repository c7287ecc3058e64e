package io.kvorum.node.changes;

import io.kvorum.node.storage.ChangeLog;
import io.kvorum.node.storage.ChangeStamps;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Keeps a node's change log within {@code --change-retention}: each run removes the changes stamped
 * before the retention, a range delete of the log's oldest part (run by the node's timer every
 * {@link #INTERVAL}).
 */
public final class ChangeRetention {
  /** How often the log is cut. */
  public static final Duration INTERVAL = Duration.ofMinutes(1);

  private final ChangeLog log;
  private final Duration retention;
  private final LongSupplier wallMillis;

  public ChangeRetention(ChangeLog log, Duration retention, LongSupplier wallMillis) {
    this.log = log;
    this.retention = retention;
    this.wallMillis = wallMillis;
  }

  /** Removes what is older than the retention. */
  public CompletableFuture<Void> purge() {
    if (!log.captures()) {
      return CompletableFuture.completedFuture(null);
    }
    return log.purge(ChangeStamps.of(wallMillis.getAsLong() - retention.toMillis()));
  }
}
