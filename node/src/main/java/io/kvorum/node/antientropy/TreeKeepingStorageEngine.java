package io.kvorum.node.antientropy;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.ForwardingStorageEngine;
import io.kvorum.node.storage.StorageEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@link HashTrees} in step with storage: every record a put or a batch stored is offered
 * to the trees once storage has it (whichever path wrote it: a client write, a hint delivered, read
 * repair, anti-entropy itself), and a purge sweep that finished makes the trees forget what it
 * removed. Reads and scans pass through untouched.
 *
 * <p>Puts are blind, so the trees are told every record put, winner or not, and order them by
 * version themselves; only a tie of two different records with the same version costs a read of
 * what storage kept ({@link HashTrees#settle}).
 */
public final class TreeKeepingStorageEngine extends ForwardingStorageEngine {
  private static final Logger log = LoggerFactory.getLogger(TreeKeepingStorageEngine.class);

  private volatile HashTrees trees;

  public TreeKeepingStorageEngine(StorageEngine delegate, HashTrees trees) {
    super(delegate);
    this.trees = trees;
  }

  @Override
  public CompletableFuture<Void> put(Key key, Record record) {
    return delegate.put(key, record).thenRun(() -> offer(key, record));
  }

  @Override
  public CompletableFuture<Void> putAll(List<Entry> entries) {
    return delegate
        .putAll(entries)
        .thenRun(() -> entries.forEach(entry -> offer(entry.key(), entry.record())));
  }

  @Override
  public CompletableFuture<Void> putAllStreamed(List<Entry> entries) {
    return delegate
        .putAllStreamed(entries)
        .thenRun(() -> entries.forEach(entry -> offer(entry.key(), entry.record())));
  }

  /**
   * Feeds {@code next} from now on: the trees rebuilt for a new membership (anti-entropy fills them
   * with what storage holds).
   */
  public void use(HashTrees next) {
    this.trees = next;
  }

  private void offer(Key key, Record record) {
    HashTrees trees = this.trees;
    boolean known;
    try {
      known = trees.offer(key, record);
    } catch (RuntimeException e) {
      // The write is stored: a failure to hash it must not fail it. The trees then disagree with
      // the peer's until a round repairs the key, which costs a repair, not data.
      log.warn("could not add {} to the hash trees", key, e);
      return;
    }
    if (!known) {
      delegate
          .get(key)
          .whenComplete(
              (stored, error) -> {
                if (error != null) {
                  log.warn(
                      "could not read {} to settle a version tie in the hash trees: {}",
                      key,
                      Failures.rootMessage(error));
                } else {
                  stored.ifPresent(winner -> trees.settle(key, winner));
                }
              });
    }
  }

  /**
   * Purges as the engine does; once a sweep is done (a call examined fewer records than its limit)
   * the trees forget every record that died before the sweep's bound, as storage now does.
   */
  @Override
  public CompletableFuture<PurgeResult> purge(long deadBeforeMillis, int limit) {
    return delegate
        .purge(deadBeforeMillis, limit)
        .thenApply(
            result -> {
              if (result.examined() < limit) {
                this.trees.forgetDeadBefore(deadBeforeMillis);
              }
              return result;
            });
  }
}
