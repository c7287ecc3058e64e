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

  public Acceptor(StorageEngine records, AcceptorStore states) {
    this.records = records;
    this.states = states;
  }

  public CompletableFuture<Reply> prepare(Key key, Ballot ballot) {
    return records.get(key).thenCompose(stored -> states.step(key, s -> s.prepare(ballot, stored)));
  }

  /**
   * Accepts {@code proposal} if no higher ballot was promised; with {@code commit} (the proposer
   * knows that this acceptance makes a majority), then also stores its value as the key's record,
   * as a commit would, and says so in the answer. A value that cannot be stored (a full disk) is
   * answered accepted and not committed: the proposer commits it through the write path.
   */
  public CompletableFuture<Reply> accept(Key key, Proposal proposal, boolean commit) {
    CompletableFuture<Reply> accepted = states.step(key, s -> s.accept(proposal));
    if (!commit || proposal.value().isEmpty()) {
      return accepted;
    }
    Record value = proposal.value().get();
    return accepted.thenCompose(
        reply ->
            reply instanceof Reply.Accepted
                ? records
                    .put(key, value)
                    .handle((stored, error) -> new Reply.Accepted(reply.ballot(), error == null))
                : CompletableFuture.completedFuture(reply));
  }

  /** Stores a chosen value as {@code key}'s record here. */
  public CompletableFuture<Void> commit(Key key, Record value) {
    return records.put(key, value);
  }
}
