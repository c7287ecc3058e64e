package io.kvorum.node.testing;

import io.kvorum.node.antientropy.RepairProtocol;
import io.kvorum.node.clock.ClockProtocol;
import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A {@link PeerTransport} whose every answer the test decides: each call is recorded, then
 * succeeds, fails (with {@link PeerUnavailableException}, or what {@link #failWith} says), or hangs
 * until the test releases it, as a script says. Reads answer what {@link #readAnswers} says; a
 * peer's reachability is set by hand.
 */
public final class ScriptedPeerTransport implements PeerTransport {
  /**
   * What a call was: its operation ("read", "write", "hello", "ping", "scan"), peer, key and
   * record.
   */
  public record Call(String operation, NodeId peer, Key key, Record record) {}

  /** What becomes of a call. */
  public enum Outcome {
    SUCCEED,
    FAIL,
    HANG
  }

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();
  private final Set<NodeId> unreachable = ConcurrentHashMap.newKeySet();
  private final List<NodeId> announced = new CopyOnWriteArrayList<>();
  private final List<Consumer<NodeId>> listeners = new CopyOnWriteArrayList<>();
  private final Map<NodeId, Outcome> byPeer = new ConcurrentHashMap<>();
  private volatile Function<Call, Outcome> script = call -> null;
  private volatile Function<Call, Optional<Record>> readAnswers = call -> Optional.empty();
  private volatile Function<Object, Reply> acceptors =
      request -> {
        throw new IllegalStateException("no Paxos reply is scripted: script a failure");
      };
  private volatile Function<PaxosProtocol.Propose, PaxosProtocol.Proposed> proposers =
      request -> {
        throw new InvalidRequestException(null, "a request without an operation it knows");
      };
  private volatile Function<Call, RuntimeException> failures =
      call -> unavailable(call.peer(), "scripted failure");
  private volatile Executor completions = Runnable::run;
  private volatile boolean closed;

  private record Held(Call call, CompletableFuture<Object> future, Object value) {}

  /** Every call to {@code peer} from now on ends with {@code outcome}. */
  public ScriptedPeerTransport answer(NodeId peer, Outcome outcome) {
    byPeer.put(peer, outcome);
    return this;
  }

  /**
   * Decides each call's outcome; a null outcome falls back to the peer's (default: succeed). The
   * script sees the call already recorded in {@link #calls()}.
   */
  public ScriptedPeerTransport script(Function<Call, Outcome> script) {
    this.script = script;
    return this;
  }

  /** What successful reads answer. */
  public ScriptedPeerTransport readAnswers(Function<Call, Optional<Record>> answers) {
    this.readAnswers = answers;
    return this;
  }

  /** What the peers' Paxos acceptors answer a prepare or an accept that succeeds. */
  public ScriptedPeerTransport acceptors(Function<Object, Reply> answers) {
    this.acceptors = answers;
    return this;
  }

  /**
   * What the peers' proposers answer a conditional write handed over ({@link
   * PaxosProtocol#PROPOSE}); by default they refuse it as unknown (INVALID), as a node of a release
   * before hand-over does.
   */
  public ScriptedPeerTransport proposers(
      Function<PaxosProtocol.Propose, PaxosProtocol.Proposed> answers) {
    this.proposers = answers;
    return this;
  }

  /**
   * What failing calls fail with (default: {@link PeerUnavailableException}), e.g. a peer's own
   * typed error such as a full disk.
   */
  public ScriptedPeerTransport failWith(Function<Call, RuntimeException> failures) {
    this.failures = failures;
    return this;
  }

  /** Completes calls on {@code executor} instead of the caller's thread. */
  public ScriptedPeerTransport completeOn(Executor executor) {
    this.completions = executor;
    return this;
  }

  public void reachable(NodeId peer, boolean reachable) {
    if (reachable) {
      unreachable.remove(peer);
    } else {
      unreachable.add(peer);
    }
  }

  /** Tells the listeners registered through {@link #onPeerReachable} that {@code peer} is back. */
  public void announceReachable(NodeId peer) {
    listeners.forEach(listener -> listener.accept(peer));
  }

  public List<Call> calls() {
    return List.copyOf(calls);
  }

  public List<Call> calls(String operation) {
    return calls.stream().filter(c -> c.operation().equals(operation)).toList();
  }

  /** Peers passed to {@link #peerAnnounced}, in order. */
  public List<NodeId> announced() {
    return List.copyOf(announced);
  }

  /** How many calls are hanging. */
  public int hanging() {
    return held.size();
  }

  /** Lets every hanging call succeed; answers how many there were. */
  public int releaseAll() {
    return finishHeld(true);
  }

  /** Fails every hanging call; answers how many there were. */
  public int failAll() {
    return finishHeld(false);
  }

  private int finishHeld(boolean succeed) {
    List<Held> now = new ArrayList<>();
    for (Held h = held.poll(); h != null; h = held.poll()) {
      now.add(h);
    }
    for (Held h : now) {
      if (succeed) {
        h.future().complete(h.value());
      } else {
        h.future().completeExceptionally(unavailable(h.call().peer(), "failed by the test"));
      }
    }
    return now.size();
  }

  public boolean isClosed() {
    return closed;
  }

  /**
   * Records the call and answers as scripted: reads what {@link #readAnswers} says, writes nothing,
   * hellos 0 hints, pings the wall clock, tree hashes zeros; Paxos phases what {@link #acceptors}
   * says (by default they fail unless a failure is scripted); an operation this transport does not
   * script fails as if it were not carried.
   */
  @Override
  @SuppressWarnings("unchecked") // each operation's answer is of its own type
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    Call call = new Call(operation.name(), peer, key(request), record(request));
    Supplier<?> answer =
        switch (operation.name()) {
          case "read" -> () -> readAnswers.apply(call);
          case "write" -> () -> null;
          case "hello" -> () -> 0L;
          case "ping" ->
              () -> new ClockProtocol.PeerTime(System.currentTimeMillis(), Optional.empty());
          case "tree_hashes" ->
              () -> new long[((RepairProtocol.Hashes) request).positions().length];
          case "prepare", "accept" -> () -> acceptors.apply(request);
          case "propose" -> () -> proposers.apply((PaxosProtocol.Propose) request);
          default -> null;
        };
    if (answer == null) {
      return CompletableFuture.failedFuture(
          unavailable(peer, "this transport carries no " + operation.name()));
    }
    return perform(call, (Supplier<A>) answer);
  }

  @Override
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    return CompletableFuture.failedFuture(
        unavailable(NodeId.of("scripted"), "this transport carries no " + operation.name()));
  }

  /** A scan or the records of segments: one scripted batch, empty when it succeeds. */
  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    if (!operation.name().equals("scan") && !operation.name().equals("segments")) {
      return ScanCursor.failed(unavailable(peer, "this transport carries no " + operation.name()));
    }
    Key start = request instanceof KeyRange range ? range.start() : null;
    CompletableFuture<List<Entry>> first =
        perform(new Call(operation.name(), peer, start, null), List::<Entry>of);
    return new ScanCursor() {
      @Override
      public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
        return first;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public void members(List<Member> members) {}

  private static Key key(Object request) {
    return switch (request) {
      case Key key -> key;
      case Entry entry -> entry.key();
      case PaxosProtocol.Prepare prepare -> prepare.key();
      case PaxosProtocol.Accept accept -> accept.key();
      case PaxosProtocol.Propose propose -> propose.key();
      default -> null;
    };
  }

  private static Record record(Object request) {
    return switch (request) {
      case Entry entry -> entry.record();
      case PaxosProtocol.Accept accept -> accept.proposal().value().orElse(null);
      default -> null;
    };
  }

  @SuppressWarnings("unchecked")
  private <T> CompletableFuture<T> perform(Call call, Supplier<T> value) {
    calls.add(call);
    Outcome outcome = script.apply(call);
    if (outcome == null) {
      outcome = byPeer.getOrDefault(call.peer(), Outcome.SUCCEED);
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    switch (outcome) {
      case SUCCEED -> {
        try {
          T answer = value.get();
          completions.execute(() -> result.complete(answer));
        } catch (RuntimeException e) { // the peer's handler failed: its answer is that failure
          completions.execute(() -> result.completeExceptionally(e));
        }
      }
      case FAIL -> {
        RuntimeException error = failures.apply(call);
        completions.execute(() -> result.completeExceptionally(error));
      }
      case HANG -> held.add(new Held(call, (CompletableFuture<Object>) result, value.get()));
    }
    return result;
  }

  private static PeerUnavailableException unavailable(NodeId peer, String reason) {
    return new PeerUnavailableException(peer, reason, null);
  }

  @Override
  public PeerState state(NodeId peer) {
    return unreachable.contains(peer)
        ? new PeerState(false, "down")
        : new PeerState(true, "connected");
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    listeners.add(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    announced.add(peer);
  }

  @Override
  public void close() {
    closed = true;
  }
}
