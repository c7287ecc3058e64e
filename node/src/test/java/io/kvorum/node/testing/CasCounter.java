package io.kvorum.node.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Versioned;
import java.io.UncheckedIOException;
import java.util.Optional;

/** A counter kept by compare-and-set through the HTTP API, for tests of conditional writes. */
public final class CasCounter {
  /** What {@link #increment} answers when the write was refused, or failed without applying. */
  public static final long NOT_APPLIED = 0;

  /**
   * What {@link #increment} answers when the write may or may not have applied (504, no answer).
   */
  public static final long UNKNOWN = -1;

  private CasCounter() {}

  /**
   * Reads the counter and writes it plus one if nobody wrote it in between.
   *
   * @return the value written, {@link #NOT_APPLIED} or {@link #UNKNOWN}
   */
  public static long increment(KvorumClient client, byte[] key) {
    try {
      Optional<Versioned> current = client.getVersioned(key);
      long next = value(current) + 1;
      byte[] bytes = Long.toString(next).getBytes(UTF_8);
      ConditionalResult result =
          current.isEmpty()
              ? client.putIfAbsent(key, bytes)
              : client.putIfMatch(key, bytes, current.get().etag());
      return result.applied() ? next : NOT_APPLIED;
    } catch (KvorumClientException e) {
      // A 503 (the node is stopping or starting) writes nothing; a 504 may have.
      return e.status() == 504 ? UNKNOWN : NOT_APPLIED;
    } catch (UncheckedIOException e) {
      return UNKNOWN;
    }
  }

  /** The counter's value in {@code current}, 0 when absent. */
  public static long value(Optional<Versioned> current) {
    return current.map(v -> Long.parseLong(new String(v.value(), UTF_8))).orElse(0L);
  }
}
