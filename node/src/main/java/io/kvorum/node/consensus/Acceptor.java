package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Record;
import io.kvorum.node.storage.StorageEngine;
import java.util.concurrent.CompletableFuture;

/**
 * This node's Paxos acceptor for the keys it holds (conditional writes, SPEC §10): {@link
 * AcceptorState}'s transitions over the durable {@link AcceptorStore}. A promise carries the key's
 * ordinary record as this replica stores it, so a proposer sees plain writes too. Every reply is
 * sent only once the state it answers from is durable.
 */
public final class Acceptor {
  private final StorageEngine records;
  private final AcceptorStore states;
  private final boolean recordsDurableAtOnce;

  /**
   * @param recordsDurableAtOnce whether a put of {@code records} completes only once durable
   *     ({@code --sync-writes true}), so that it makes an acceptance written before it durable too
   */
  public Acceptor(StorageEngine records, AcceptorStore states, boolean recordsDurableAtOnce) {
    this.records = records;
    this.states = states;
    this.recordsDurableAtOnce = recordsDurableAtOnce;
  }

  public CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
    return records.get(key).thenCompose(stored -> states.step(key, s -> s.prepare(ballot, stored)));
  }

  /**
   * As {@link #prepare}, for a round of this node's own proposer, without a sync of its own: the
   * promise binds this acceptor only towards that proposer, which a crash of the machine ends too,
   * and whose acceptance (synced) comes after it in the log. Forgotten in a crash, it is a prepare
   * that never arrived (docs/decisions/a-conditional-write-is-committed-by-its-accepts.md).
   */
  public CompletableFuture<Reply> prepareForOwnRound(Key key, Ballot ballot) {
    return records
        .get(key)
        .thenCompose(stored -> states.stepBeforeSync(key, s -> s.prepare(ballot, stored)));
  }

  /**
   * Accepts {@code proposal} if no higher ballot was promised; with {@code commit} (the proposer
   * knows that this acceptance makes a majority), then also stores its value as the key's record,
   * as a commit would, and says so in the answer. A value that cannot be stored (a full disk) is
   * answered accepted and not committed: the proposer commits it through the write path.
   *
   * <p>Where a put of a record is durable when it completes, the acceptance is written without a
   * sync of its own: the record's synced write comes after it in the same write-ahead log and makes
   * both durable, one sync instead of two in a row. A refusal writes nothing; if the record cannot
   * be stored, the log is synced before the acceptance is answered.
   */
  public CompletableFuture<Reply> accept(Key key, Proposal proposal, boolean commit) {
    if (!commit || proposal.value().isEmpty()) {
      return states.step(key, s -> s.accept(proposal));
    }
    Record value = proposal.value().get();
    CompletableFuture<Reply> accepted =
        recordsDurableAtOnce
            ? states.stepBeforeSync(key, s -> s.accept(proposal))
            : states.step(key, s -> s.accept(proposal));
    return accepted
        .thenCompose(reply -> store(key, value, reply))
        .thenCompose(
            stored ->
                recordsDurableAtOnce
                        && stored instanceof Reply.Accepted answer
                        && !answer.committed()
                    ? states.sync().thenApply(synced -> stored)
                    : CompletableFuture.completedFuture(stored));
  }

  /** Stores {@code value} as the key's record if {@code reply} accepted it; says whether it did. */
  private CompletableFuture<Reply> store(Key key, Record value, Reply reply) {
    return reply instanceof Reply.Accepted
        ? records
            .put(key, value)
            .handle((stored, error) -> new Reply.Accepted(reply.ballot(), error == null))
        : CompletableFuture.completedFuture(reply);
  }

  /** Stores a chosen value as {@code key}'s record here. */
  public CompletableFuture<Void> commit(Key key, Record value) {
    return records.put(key, value);
  }
}
