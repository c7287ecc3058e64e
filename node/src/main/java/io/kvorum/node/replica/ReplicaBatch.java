package io.kvorum.node.replica;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.StorageEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The items of one client batch that one replica holds, in one message ({@link
 * ReplicaProtocol#BATCH}): reads of its records and writes to store unless it holds newer ones.
 * Each item is answered on its own; the writes are stored as one storage batch.
 *
 * @param reads the keys whose records the replica answers
 * @param writes the records it stores
 */
public record ReplicaBatch(List<Key> reads, List<Entry> writes) {
  /**
   * About how many bytes of values one answer carries: reads past it are answered {@linkplain
   * Outcome#omitted omitted}, and their coordinator reads them one by one. At least one read is
   * always answered, so an answer is no larger than this or than a single read's.
   */
  public static final long ANSWER_BYTES = 1 << 20;

  public ReplicaBatch {
    reads = List.copyOf(reads);
    writes = List.copyOf(writes);
  }

  /**
   * What one item came to at the replica.
   *
   * @param value the answer (a read's record, empty when the replica holds none; null for a write)
   * @param failure the failure this item alone had, or null
   * @param omitted a read left out of the answer to keep it small ({@link #ANSWER_BYTES}): ask
   *     again
   */
  public record Outcome<T>(T value, RuntimeException failure, boolean omitted) {
    public static <T> Outcome<T> of(T value) {
      return new Outcome<>(value, null, false);
    }

    public static <T> Outcome<T> failed(RuntimeException failure) {
      return new Outcome<>(null, Objects.requireNonNull(failure, "failure"), false);
    }

    public static <T> Outcome<T> omittedRead() {
      return new Outcome<>(null, null, true);
    }
  }

  /** The replica's answer: one outcome per read and per write, in the batch's order. */
  public record Answer(List<Outcome<Optional<Record>>> reads, List<Outcome<Void>> writes) {
    public Answer {
      reads = List.copyOf(reads);
      writes = List.copyOf(writes);
    }

    /** The failure of the first write that failed, or null when every write was stored. */
    public RuntimeException firstWriteFailure() {
      return writes.stream()
          .map(Outcome::failure)
          .filter(Objects::nonNull)
          .findFirst()
          .orElse(null);
    }
  }

  /**
   * Serves {@code batch} from {@code storage}: each read on its own, the writes {@code refusal}
   * lets through as one storage batch (a failure of it fails each of them), the others refused.
   * Never fails as a whole.
   *
   * @param refusal why a write must not be stored (a version too far ahead), if it must not
   */
  static CompletableFuture<Answer> serve(
      StorageEngine storage,
      ReplicaBatch batch,
      Function<Record, Optional<? extends RuntimeException>> refusal) {
    List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>(batch.reads().size());
    for (Key key : batch.reads()) {
      reads.add(attempt(() -> storage.get(key)));
    }
    List<Outcome<Void>> refused = new ArrayList<>(batch.writes().size());
    List<Entry> accepted = new ArrayList<>(batch.writes().size());
    for (Entry write : batch.writes()) {
      Optional<? extends RuntimeException> no = refusal.apply(write.record());
      refused.add(no.isPresent() ? Outcome.failed(no.get()) : null);
      if (no.isEmpty()) {
        accepted.add(write);
      }
    }
    CompletableFuture<Void> stored =
        accepted.isEmpty()
            ? CompletableFuture.completedFuture(null)
            : attempt(() -> storage.putAll(accepted));
    List<CompletableFuture<?>> all = new ArrayList<>(reads);
    all.add(stored);
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .handle((ok, ignored) -> answer(reads, refused, stored));
  }

  private static Answer answer(
      List<CompletableFuture<Optional<Record>>> reads,
      List<Outcome<Void>> refused,
      CompletableFuture<Void> stored) {
    List<Outcome<Optional<Record>>> readOutcomes = new ArrayList<>(reads.size());
    long bytes = 0;
    for (CompletableFuture<Optional<Record>> read : reads) {
      Outcome<Optional<Record>> outcome = outcome(read);
      long size =
          outcome.value() == null ? 0 : outcome.value().map(r -> r.value().length).orElse(0);
      if (bytes > 0 && bytes + size > ANSWER_BYTES) {
        readOutcomes.add(Outcome.omittedRead());
      } else {
        bytes += size;
        readOutcomes.add(outcome);
      }
    }
    Outcome<Void> storedOutcome = outcome(stored);
    List<Outcome<Void>> writeOutcomes = new ArrayList<>(refused.size());
    for (Outcome<Void> refusedOutcome : refused) {
      writeOutcomes.add(refusedOutcome != null ? refusedOutcome : storedOutcome);
    }
    return new Answer(readOutcomes, writeOutcomes);
  }

  private static <T> Outcome<T> outcome(CompletableFuture<T> done) {
    try {
      return Outcome.of(done.join());
    } catch (RuntimeException e) {
      Throwable cause = Failures.unwrap(e);
      return Outcome.failed(
          cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause));
    }
  }

  private static <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
