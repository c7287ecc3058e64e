package io.kvorum.node.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.api.ConditionalResult;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientException;
import io.kvorum.api.Versioned;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.awaitility.Awaitility;

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

  /**
   * The status a request answered: 200 when it returned, else the status of its {@link
   * KvorumClientException}.
   */
  public static int status(Runnable request) {
    try {
      request.run();
      return 200;
    } catch (KvorumClientException e) {
      return e.status();
    }
  }

  /**
   * Workers that increment one counter until {@code target} increments applied, each through every
   * node in turn (node {@code (worker + op) % nodes}), skipping a node that is down; the test stops
   * and starts nodes meanwhile and then checks what was applied against the counter's end value.
   */
  public static final class Increments implements AutoCloseable {
    private final AtomicInteger applied = new AtomicInteger();
    private final AtomicInteger target;
    private final AtomicInteger unknown = new AtomicInteger();
    private final Map<Long, Integer> written = new ConcurrentHashMap<>();
    private final List<Long> doubled = new ArrayList<>();
    private final ExecutorService workers;
    private final List<Future<?>> running = new ArrayList<>();

    /**
     * Starts {@code workers} workers.
     *
     * @param client the client of node {@code i}, for {@code i} in {@code [0, nodes)}
     * @param up whether node {@code i} is up
     */
    public Increments(
        byte[] key,
        int workers,
        int target,
        int nodes,
        IntFunction<KvorumClient> client,
        IntPredicate up) {
      this.target = new AtomicInteger(target);
      this.workers = Executors.newFixedThreadPool(workers);
      for (int w = 0; w < workers; w++) {
        int worker = w;
        running.add(
            this.workers.submit(
                () -> {
                  for (int op = 0; applied.get() < this.target.get(); op++) {
                    int node = (worker + op) % nodes;
                    if (!up.test(node)) {
                      continue;
                    }
                    long value = increment(client.apply(node), key);
                    if (value > 0) {
                      applied.incrementAndGet();
                      if (written.putIfAbsent(value, worker) != null) {
                        synchronized (doubled) {
                          doubled.add(value);
                        }
                      }
                    } else if (value == UNKNOWN) {
                      unknown.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
    }

    /** How many increments applied so far. */
    public int applied() {
      return applied.get();
    }

    /** The workers stop once {@code count} increments applied (instead of the target given). */
    public void stopAt(int count) {
      target.set(count);
    }

    /** Waits until at least {@code count} increments applied. */
    public void awaitApplied(int count) {
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> applied.get() >= count);
    }

    /** Waits until the workers reached their target. */
    public void finish(Duration limit) throws Exception {
      for (Future<?> worker : running) {
        worker.get(limit.toMillis(), TimeUnit.MILLISECONDS);
      }
    }

    /**
     * Asserts that no two applied increments wrote the same value (none doubled), that the counter
     * ended at their number plus at most those whose answer was lost (a 504 or a broken connection:
     * they may or may not have applied), and that no applied increment wrote beyond the end value.
     */
    public void assertNoneLostOrDoubled(long endValue) {
      assertNoneLostOrDoubled(0, endValue);
    }

    /** As {@link #assertNoneLostOrDoubled(long)}, for a counter that was at {@code startValue}. */
    public void assertNoneLostOrDoubled(long startValue, long endValue) {
      synchronized (doubled) {
        assertThat(doubled).as("values two applied increments both wrote").isEmpty();
      }
      assertThat(endValue - startValue)
          .as(
              "the counter after %d applied and %d unknown increments",
              applied.get(), unknown.get())
          .isBetween((long) applied.get(), (long) applied.get() + unknown.get());
      assertThat(written.keySet()).allMatch(v -> v > startValue && v <= endValue);
    }

    @Override
    public void close() {
      workers.shutdownNow();
    }
  }
}
