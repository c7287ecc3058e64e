package io.kvorum.node.consensus;

import io.github.resilience4j.core.IntervalFunction;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Finishes in the background the rounds of conditional writes that failed after their accepts may
 * have stored the value on an acceptor ({@link PaxosRequest}'s accepts that commit): such a value
 * was chosen (the proposer's acceptance and that one make a majority), but the replicas that missed
 * it learn it from no one, as they would from the hints of a commit through the write path. A
 * linearizable read of the key finishes it (proposes the chosen value again and commits it to every
 * replica, hinting those it cannot reach); it is tried again after a growing pause (1 s doubling up
 * to 30 s) until it succeeds or the hint window has passed, as a hint is kept. One at a time per
 * key, and at most {@value #MAX_KEYS} keys at once: more are left to the next round of their key, a
 * linearizable read, read repair or anti-entropy (counted as abandoned).
 */
final class Unfinished {
  static final int MAX_KEYS = 100_000;
  private static final IntervalFunction PAUSES =
      IntervalFunction.ofExponentialBackoff(1_000, 2.0, 30_000);

  private final Rounds rounds;
  private final Duration within;
  private final Set<Key> pending = ConcurrentHashMap.newKeySet();
  private final Counter finished;
  private final Counter abandoned;

  /**
   * @param within how long to keep trying: the hint window
   */
  Unfinished(Rounds rounds, Duration within, MeterRegistry registry) {
    this.rounds = rounds;
    this.within = within;
    this.finished = counter("finished", registry);
    this.abandoned = counter("abandoned", registry);
  }

  private static Counter counter(String outcome, MeterRegistry registry) {
    return Counter.builder("kvorum.paxos.finishes")
        .description(
            "conditional writes that failed after their accepts may have stored the value on a"
                + " replica, finished in the background by a linearizable read of the key, by"
                + " outcome: finished, abandoned (the hint window passed, or too many at once)")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** Finishes {@code key}'s round in the background, committing with {@code quorum}'s ack. */
  void add(Key key, Quorum quorum) {
    if (pending.size() >= MAX_KEYS) {
      abandoned.increment();
      return;
    }
    if (pending.add(key)) {
      attempt(key, quorum, 1, rounds.deadline().nanoTime() + within.toNanos());
    }
  }

  private void attempt(Key key, Quorum quorum, int attempt, long untilNanos) {
    new PaxosRequest(
            rounds, key, ConditionalWrite.read(), quorum, null, rounds.deadlineFromNow(), null)
        .start()
        .whenComplete(
            (read, error) -> {
              long pause = TimeUnit.MILLISECONDS.toNanos(PAUSES.apply(attempt));
              if (error == null || rounds.deadline().nanoTime() + pause > untilNanos) {
                pending.remove(key);
                (error == null ? finished : abandoned).increment();
                return;
              }
              rounds
                  .deadline()
                  .scheduler()
                  .schedule(
                      () -> attempt(key, quorum, attempt + 1, untilNanos),
                      pause,
                      TimeUnit.NANOSECONDS);
            });
  }
}
