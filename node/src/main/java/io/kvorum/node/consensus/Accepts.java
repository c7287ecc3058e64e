package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.quorum.QuorumCall;
import io.kvorum.node.topology.Owners;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One round's accepts, and whether they committed the value
 * (docs/decisions/a-conditional-write-is-committed-by-its-accepts.md). Where this node is one of at
 * most three acceptors (a majority of two) and the value belongs on exactly them, its own acceptor
 * accepts first: once that is durable, any other acceptance makes a majority, so the others are
 * asked to store the value as they accept it, and the write needs no commit of its own. Otherwise
 * the accepts go to every acceptor at once and the value is committed through the write path.
 */
final class Accepts {
  private final Acceptors paxos;
  private final Key key;
  private final Proposal proposal;
  private final int acceptors;
  private final boolean ownFirst;
  private final Set<NodeId> stored = ConcurrentHashMap.newKeySet();
  private volatile boolean committing;

  /** How many other acceptors' copies {@link #held} may answer on; 0 until it is asked. */
  private int wanted;

  /** Completes once {@link #wanted} other acceptors stored the value; fails if they never do. */
  private final CompletableFuture<Void> storedElsewhere = new CompletableFuture<>();

  Accepts(Acceptors paxos, Key key, Owners.Participants participants, Proposal proposal) {
    List<NodeId> all = participants.all();
    this.paxos = paxos;
    this.key = key;
    this.proposal = proposal;
    this.acceptors = all.size();
    this.ownFirst =
        participants.pending().isEmpty()
            && participants.required() <= 2
            && all.contains(paxos.self())
            && proposal.value().filter(v -> v.replicas() == all.size()).isPresent();
  }

  /**
   * Sends the accepts: hands {@code phase} the call of each acceptor, at once, or once this node's
   * acceptor has answered.
   */
  void send(Consumer<Function<NodeId, CompletableFuture<Reply>>> phase) {
    if (!ownFirst) {
      phase.accept(to -> paxos.accept(to, key, proposal, false));
      return;
    }
    paxos
        .accept(paxos.self(), key, proposal, false)
        .whenComplete(
            (own, error) -> {
              boolean commit = error == null && own instanceof Reply.Accepted;
              committing |= commit;
              phase.accept(
                  to ->
                      !to.equals(paxos.self())
                          ? paxos.accept(to, key, proposal, commit)
                          : error == null
                              ? CompletableFuture.completedFuture(own)
                              : CompletableFuture.failedFuture(error));
            });
  }

  /** Takes an acceptor's answer to these accepts. */
  void answered(NodeId acceptor, Reply reply) {
    if (storedBy(reply)) {
      synchronized (this) {
        stored.add(acceptor);
        if (wanted > 0 && stored.size() >= wanted) {
          storedElsewhere.complete(null);
        }
      }
    }
  }

  private boolean storedBy(Reply reply) {
    return reply instanceof Reply.Accepted accepted
        && accepted.committed()
        && accepted.ballot().equals(proposal.ballot());
  }

  /**
   * How many of {@code answers} say their acceptor stored the value. Counted from the answers
   * themselves once all are in: {@link QuorumCall#settled} completes before the last answer is
   * handed to {@link #answered}.
   */
  private long storedAmong(List<QuorumCall.Answer<Reply>> answers) {
    return answers.stream().filter(a -> storedBy(a.value())).count();
  }

  /** Whether accepts that ask their acceptors to store the value went out. */
  boolean committing() {
    return committing;
  }

  /**
   * Whether, once this node stores the value too, {@code ack} of the value's {@code from} replicas
   * hold it: this node's acceptor accepted it, and the other acceptors that answered so far stored
   * it as they accepted it.
   */
  boolean storedOnceHere(int ack, int from) {
    return committing && from == acceptors && stored.size() + 1 >= ack;
  }

  /**
   * Completes once the value is held by {@code ack} replicas: this node's copy stored ({@code
   * here}) beside the other acceptors' that {@link #storedOnceHere} counted, or {@code ack} other
   * acceptors' copies, whichever comes first (with both other acceptors quick, this node's own
   * write is off the answer's path). Fails with {@code here}'s failure once neither can be.
   */
  CompletableFuture<Void> held(CompletableFuture<Void> here, int ack, QuorumCall<Reply> calls) {
    CompletableFuture<Void> elsewhere = storedElsewhere(ack, calls);
    CompletableFuture<Void> either = new CompletableFuture<>();
    elsewhere.thenRun(() -> either.complete(null));
    here.whenComplete(
        (ok, error) -> {
          if (error == null) {
            either.complete(null);
          } else {
            elsewhere.whenComplete(
                (alsoOk, also) -> {
                  if (also != null) {
                    either.completeExceptionally(error);
                  }
                });
          }
        });
    return either;
  }

  /**
   * Completes once {@code ack} of the other acceptors stored the value as they accepted it; fails
   * once every acceptor of {@code calls} answered or failed without that many.
   */
  private CompletableFuture<Void> storedElsewhere(int ack, QuorumCall<Reply> calls) {
    synchronized (this) {
      wanted = ack;
      if (stored.size() >= ack) {
        storedElsewhere.complete(null);
      }
    }
    calls
        .settled()
        .thenAccept(
            answers -> {
              if (storedAmong(answers) >= ack) {
                storedElsewhere.complete(null);
              } else {
                storedElsewhere.completeExceptionally(
                    new IllegalStateException("fewer than " + ack + " other acceptors stored it"));
              }
            });
    return storedElsewhere;
  }

  /**
   * Once every acceptor answered {@code calls} or failed: if one did not store the value (it
   * refused the accept, missed it, or is of 0.2.0), writes it to all through {@code writes}, which
   * hints a replica it cannot reach, as a commit did.
   */
  void commitTheRest(
      QuorumCall<Reply> calls,
      Record value,
      ConditionalWriteCoordinator.Commit writes,
      PaxosMetrics metrics) {
    calls
        .settled()
        .thenAccept(
            answers -> {
              if (storedAmong(answers) + 1 < acceptors) {
                metrics.commit();
                writes.write(key, value, new Quorum(1, acceptors));
              }
            });
  }
}
