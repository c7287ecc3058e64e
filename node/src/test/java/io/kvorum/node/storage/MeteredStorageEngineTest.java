package io.kvorum.node.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.CapturedLog;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The full-disk watch sees writes complete in another order than they were made, as it does when
 * event loops and the storage thread write side by side: it goes by the order they were made.
 */
class MeteredStorageEngineTest {
  private static final String FULL = "the disk is full";
  private static final String BACK = "disk space is back: writes succeed again";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PendingWrites engine = new PendingWrites();
  private final AtomicLong clock = new AtomicLong();

  /** Each call is made a nanosecond after the one before. */
  private final MeteredStorageEngine metered =
      new MeteredStorageEngine(engine, registry, clock::incrementAndGet);

  private CapturedLog log;

  @BeforeEach
  void capture() {
    log = CapturedLog.of(SpaceWatch.class);
  }

  @AfterEach
  void release() {
    log.close();
  }

  @Test
  void aRefusalReportedAfterALaterWriteSucceededDoesNotFillTheDiskAgain() {
    put().completeExceptionally(noSpace());
    CompletableFuture<Void> refusedJustBefore = put();
    CompletableFuture<Void> succeededJustAfter = put();

    succeededJustAfter.complete(null);
    refusedJustBefore.completeExceptionally(noSpace());

    assertThat(noSpaceGauge()).isZero();
    assertThat(log.lines(Level.WARN)).singleElement().asString().contains(FULL);
    assertThat(log.lines(Level.INFO)).containsExactly(BACK);
  }

  @Test
  void aSuccessReportedAfterALaterWriteWasRefusedDoesNotBringSpaceBack() {
    CompletableFuture<Void> madeBefore = put();
    CompletableFuture<Void> refusedAfter = put();

    refusedAfter.completeExceptionally(noSpace());
    madeBefore.complete(null);

    assertThat(noSpaceGauge()).isEqualTo(1);
    assertThat(log.lines(Level.WARN)).singleElement().asString().contains(FULL);
    assertThat(log.lines(Level.INFO)).isEmpty();
  }

  @Test
  void aDiskThatFillsAgainAfterSpaceCameBackIsSaidAgain() {
    put().completeExceptionally(noSpace());
    put().complete(null);
    put().completeExceptionally(noSpace());

    assertThat(noSpaceGauge()).isEqualTo(1);
    assertThat(log.lines(Level.WARN)).hasSize(2);
    assertThat(log.lines(Level.INFO)).containsExactly(BACK);
  }

  @Test
  void otherFailuresSayNothingOfSpace() {
    put().completeExceptionally(noSpace());
    put()
        .completeExceptionally(
            new StorageException(StorageException.Kind.FAILURE, "put", null, null));

    assertThat(noSpaceGauge()).isEqualTo(1);
    assertThat(log.lines(Level.INFO)).isEmpty();
  }

  @Test
  void writesAreTimedByOutcome() {
    put().complete(null);
    put().complete(null);
    put().completeExceptionally(noSpace());

    assertThat(operations("ok").count()).isEqualTo(2);
    assertThat(operations("error").count()).isEqualTo(1);
  }

  private Timer operations(String outcome) {
    return registry
        .get("kvorum.storage.operations")
        .tag("operation", "put")
        .tag("outcome", outcome)
        .timer();
  }

  private CompletableFuture<Void> put() {
    metered.put(Key.utf8("k"), Record.value(new Version(1), "v".getBytes(UTF_8)));
    return engine.pending.removeLast();
  }

  private double noSpaceGauge() {
    return registry.get("kvorum.storage.no.space").gauge().value();
  }

  private static StorageException noSpace() {
    return new StorageException(StorageException.Kind.NO_SPACE, "put", null, null);
  }

  /** Writes that complete when the test says, each made as the test asks for it. */
  private static final class PendingWrites extends ForwardingStorageEngine {
    final Deque<CompletableFuture<Void>> pending = new ArrayDeque<>();

    PendingWrites() {
      super(new InMemoryStorageEngine());
    }

    @Override
    public CompletableFuture<Void> put(Key key, Record record) {
      CompletableFuture<Void> write = new CompletableFuture<>();
      pending.add(write);
      return write;
    }
  }
}
