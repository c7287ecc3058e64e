package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.AcceptorState;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
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

  public CompletableFuture<Reply> accept(Key key, Proposal proposal) {
    return states.step(key, s -> s.accept(proposal));
  }
}
