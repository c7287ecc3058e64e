package io.kvorum.node.consensus;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.membership.Membership;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Which node proposes a key's conditional writes, and in what order.
 *
 * <p>Rounds of one key from several proposers duel: each prepare may void the promises another
 * round holds, and on a hot key (hundreds of writes a second through every node) most rounds lose
 * and their requests end in 504 at their deadline. So:
 *
 * <ul>
 *   <li>A node runs its own requests of a key one after another ({@link #inTurn}): they never race
 *       each other, and a request waiting for its turn keeps its deadline. A request whose round
 *       found too few acceptors answering lets the next one go as it retries, so a fault holds no
 *       queue back; so does one handed over.
 *   <li>When a round here loses to another proposer's ballot before it sent its write in accepts,
 *       the key is marked contended for {@link #CONTENDED_FOR} and the request is handed over
 *       ({@link #handOver}) to the key's proposer: the first of its acceptors, in the placement's
 *       order, that this node can reach (so every node that sees the same peers up picks the same
 *       one). Later requests of a contended key go there at once. The proposer runs them in turn
 *       with its own, so a hot key's writes queue on one node instead of racing on three.
 *   <li>A key never contended is proposed by whichever node coordinates it, with no extra hop. A
 *       key whose proposer could not decide a write handed to it (it answered 504 or did not
 *       answer) is no longer marked: its next writes are proposed here again.
 * </ul>
 *
 * <p>Which node proposes never matters to safety, since Paxos is safe with any number of proposers;
 * this only keeps them from racing. A request is handed over only while no round of it has sent its
 * write in accepts, so the proposer that takes it over runs a write nobody may have chosen yet. A
 * proposer of a release without hand-over refuses it as unknown (INVALID), and a hand-over this
 * node's circuit breaker or bulkhead refuses is never sent: the request then runs here. Any other
 * failure of the proposer is the request's answer, as it would be of its own request (it may have
 * applied).
 */
public final class Proposers {
  /** Where a request may go on after a lost round instead of here: {@link #handOver}. */
  @FunctionalInterface
  interface HandOver {
    /** Whether it took the request, to complete {@code result} with its answer there. */
    boolean took(
        Key key,
        ConditionalWrite write,
        Quorum quorum,
        long deadlineNanos,
        CompletableFuture<Outcome> result);
  }

  /** How long a key stays contended after a round of it lost here. */
  static final Duration CONTENDED_FOR = Duration.ofSeconds(10);

  /** The most keys marked contended at once; the oldest mark goes first. */
  static final int MAX_CONTENDED_KEYS = 10_000;

  /** A request with less time left than this is not handed over: it would time out on the way. */
  static final Duration MIN_HAND_OVER = Duration.ofMillis(5);

  private final Acceptors acceptors;
  private final Clock clock;
  private final Membership membership;
  private final IntSupplier group;
  private final LongSupplier nanoTime;
  private final PaxosMetrics metrics;
  private final Map<Key, Long> contended =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Long> eldest) {
          return size() > MAX_CONTENDED_KEYS;
        }
      };

  /** The requests of each key with one running here, those waiting in the order they came. */
  private final Map<Key, ArrayDeque<PaxosRequest>> turns = new HashMap<>();

  /**
   * @param group how many of a key's replicas are its acceptors ({@link Rounds})
   * @param nanoTime the clock of request deadlines
   */
  Proposers(
      Acceptors acceptors,
      Clock clock,
      Membership membership,
      IntSupplier group,
      LongSupplier nanoTime,
      PaxosMetrics metrics) {
    this.acceptors = acceptors;
    this.clock = clock;
    this.membership = membership;
    this.group = group;
    this.nanoTime = nanoTime;
    this.metrics = metrics;
  }

  /** Whether a round of {@code key} lost here to another proposer within {@link #CONTENDED_FOR}. */
  boolean contended(Key key) {
    synchronized (contended) {
      Long until = contended.get(key);
      if (until == null) {
        return false;
      }
      if (nanoTime.getAsLong() - until >= 0) {
        contended.remove(key);
        return false;
      }
      return true;
    }
  }

  /**
   * Begins {@code request}, {@link PaxosRequest#arm}ed already, once the requests of its key that
   * came before it here have ended.
   */
  void inTurn(Key key, PaxosRequest request) {
    boolean first;
    synchronized (turns) {
      ArrayDeque<PaxosRequest> waiting = turns.get(key);
      first = waiting == null;
      if (first) {
        turns.put(key, new ArrayDeque<>());
      } else {
        waiting.add(request);
      }
    }
    if (first) {
      begin(key, request);
    }
  }

  /**
   * Runs {@code request}, and the next of its key once it ended, was handed over, or retries after
   * a round short of a quorum (a peer down or cut off): that one does not hold the others back,
   * which then run as they would without turns.
   */
  private void begin(Key key, PaxosRequest request) {
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            next(key);
          }
        };
    request.whenUndecided(release);
    request.round();
    request.result().whenComplete((outcome, error) -> release.run());
  }

  /** Begins the next request of {@code key} still waiting for an answer. */
  private void next(Key key) {
    while (true) {
      PaxosRequest following;
      synchronized (turns) {
        ArrayDeque<PaxosRequest> waiting = turns.get(key);
        following = waiting.poll();
        if (following == null) {
          turns.remove(key);
          return;
        }
      }
      if (!following.result().isDone()) { // else it timed out while it waited
        begin(key, following);
        return;
      }
    }
  }

  /**
   * Marks {@code key} contended and hands {@code write} over to the key's proposer, if that is
   * another node this node can reach and there is time left.
   *
   * @param result completed with the request's answer there
   * @param here runs the request on this node after all, when the hand-over certainly ran nothing
   *     there ({@link #neverRun})
   * @return whether it was handed over; false when it goes on here
   */
  boolean handOver(
      Key key,
      ConditionalWrite write,
      Quorum quorum,
      long deadlineNanos,
      CompletableFuture<Outcome> result,
      Supplier<CompletableFuture<Outcome>> here) {
    synchronized (contended) {
      contended.remove(key); // to the end of the eviction order
      contended.put(key, nanoTime.getAsLong() + CONTENDED_FOR.toNanos());
    }
    Optional<NodeId> proposer = proposerOf(key);
    long left = deadlineNanos - nanoTime.getAsLong();
    if (proposer.isEmpty() || left < MIN_HAND_OVER.toNanos()) {
      return false;
    }
    NodeId node = proposer.get();
    metrics.handedOver();
    PaxosProtocol.Propose propose =
        new PaxosProtocol.Propose(
            key, write, quorum, Duration.ofNanos(left), acceptors.self(), clock.now());
    acceptors
        .handOver(node, propose)
        .thenApply(proposed -> outcome(node, quorum, proposed))
        .exceptionallyCompose(
            error ->
                neverRun(Failures.unwrap(error))
                    ? here.get()
                    : CompletableFuture.failedFuture(Failures.unwrap(error)))
        .whenComplete(
            (outcome, error) -> {
              if (error != null) {
                synchronized (contended) { // the proposer could not decide it: go on here
                  contended.remove(key);
                }
                result.completeExceptionally(Failures.unwrap(error));
              } else {
                result.complete(outcome);
              }
            });
    return true;
  }

  /**
   * Whether a hand-over that failed so certainly ran nothing on the proposer: refused unread
   * (INVALID: a release without hand-over), or never sent (an open circuit breaker, a full
   * bulkhead). Any other failure may come after the proposer ran the write.
   */
  private static boolean neverRun(Throwable failure) {
    return FailureKind.of(failure) == FailureKind.INVALID_REQUEST
        || (failure instanceof PeerUnavailableException refused && refused.unsent());
  }

  private Outcome outcome(NodeId node, Quorum quorum, PaxosProtocol.Proposed proposed) {
    return switch (proposed) {
      case PaxosProtocol.Proposed.Decided decided -> decided.outcome();
      case PaxosProtocol.Proposed.Undecided undecided ->
          throw new NotEnoughReplicasException(
              Quorum.majorityOf(quorum.from()),
              0,
              Map.of(node, "the key's proposer could not decide it: " + undecided.why()),
              List.of());
    };
  }

  /**
   * The node that proposes {@code key}'s writes when they contend: the first of its acceptors this
   * node can reach; empty when that is this node.
   */
  Optional<NodeId> proposerOf(Key key) {
    for (NodeId node : membership.owners().participants(key, group.getAsInt()).all()) {
      if (node.equals(acceptors.self())) {
        return Optional.empty();
      }
      if (acceptors.reachable(node)) {
        return Optional.of(node);
      }
    }
    return Optional.empty();
  }

  /**
   * This node's proposer as its peers reach it ({@link PaxosProtocol#PROPOSE}): the writes they
   * hand over, run once the node's coordinator is built; one handed over before answers unavailable
   * (503), having done nothing.
   */
  public static final class Served {
    private volatile Function<PaxosProtocol.Propose, CompletableFuture<PaxosProtocol.Proposed>> run;

    /** Runs the writes handed over with {@code run} from now on. */
    public void runWith(
        Function<PaxosProtocol.Propose, CompletableFuture<PaxosProtocol.Proposed>> run) {
      this.run = run;
    }

    CompletableFuture<PaxosProtocol.Proposed> propose(PaxosProtocol.Propose propose) {
      Function<PaxosProtocol.Propose, CompletableFuture<PaxosProtocol.Proposed>> serving = run;
      return serving == null
          ? CompletableFuture.failedFuture(
              new UnavailableException("this node does not coordinate requests yet"))
          : serving.apply(propose);
    }
  }
}
