package io.kvorum.node.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.StorageEngine.PurgeResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the storage contract suites share: a fresh engine per test, opened by the subclass that
 * binds a suite to an implementation, and short helpers to drive it.
 */
public abstract class StorageEngineFixture {
  protected static final Duration WAIT = Duration.ofSeconds(10);
  protected static final long FOREVER = Long.MAX_VALUE;

  /** The engine under test; subclasses may replace it (the fixture closes whatever is here). */
  protected StorageEngine engine;

  /** A fresh, empty engine. */
  protected abstract StorageEngine newEngine() throws Exception;

  @BeforeEach
  void openEngine() throws Exception {
    engine = newEngine();
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  protected static Key key(String text) {
    return Key.utf8(text);
  }

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected static Version version(long physicalMillis) {
    return Version.of(physicalMillis, 0);
  }

  protected static Record value(long physicalMillis, String value) {
    return Record.value(version(physicalMillis), bytes(value));
  }

  protected static Record tombstone(long physicalMillis) {
    return Record.tombstone(version(physicalMillis));
  }

  protected Optional<Record> get(Key key) {
    return await(engine.get(key));
  }

  protected void put(Key key, Record record) {
    await(engine.put(key, record));
  }

  protected void putAll(List<Entry> entries) {
    await(engine.putAll(entries));
  }

  protected PurgeResult purge(long deadBeforeMillis, int limit) {
    return await(engine.purge(deadBeforeMillis, limit));
  }

  protected List<Entry> scanAll(KeyRange range) {
    List<Entry> all = new ArrayList<>();
    try (ScanCursor cursor = engine.scan(range)) {
      for (List<Entry> batch = next(cursor, 2, FOREVER);
          !batch.isEmpty();
          batch = next(cursor, 2, FOREVER)) {
        all.addAll(batch);
      }
    }
    return all;
  }

  protected static List<Entry> next(ScanCursor cursor, int maxEntries, long maxBytes) {
    return await(cursor.next(maxEntries, maxBytes));
  }

  protected static List<Key> keysOf(List<Entry> entries) {
    return entries.stream().map(Entry::key).toList();
  }

  protected static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new AssertionError(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (TimeoutException e) {
      throw new AssertionError("storage call did not complete within " + WAIT, e);
    }
  }

  protected static void assertFailsWithStorageException(CompletableFuture<?> future) {
    assertThat(future)
        .failsWithin(WAIT)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(StorageException.class);
  }
}
