package io.kvorum.node.consensus;

import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.transport.PeerTransport;
import java.util.concurrent.CompletableFuture;

/**
 * Reaches the Paxos acceptor of any node: this node's directly, every other through the transport;
 * and the proposer of another node, to hand it a key's write ({@link Proposers}).
 */
public final class Acceptors {
  private final NodeId self;
  private final Acceptor local;
  private final PeerTransport peers;

  public Acceptors(NodeId self, Acceptor local, PeerTransport peers) {
    this.self = self;
    this.local = local;
    this.peers = peers;
  }

  public NodeId self() {
    return self;
  }

  /**
   * Asks {@code node}'s acceptor to promise {@code ballot} for {@code key}, for a round of this
   * node's proposer (this node's acceptor promises without a sync of its own: {@link
   * Acceptor#prepareForOwnRound}).
   */
  public CompletableFuture<Reply> prepare(NodeId node, Key key, Ballot ballot) {
    return self.equals(node)
        ? local.prepareForOwnRound(key, ballot)
        : peers.call(node, PaxosProtocol.PREPARE, new PaxosProtocol.Prepare(key, ballot));
  }

  /**
   * Asks {@code node}'s acceptor to accept {@code proposal} for {@code key}, and with {@code
   * commit} to store its value as the key's record too ({@link PaxosProtocol.Accept}).
   */
  public CompletableFuture<Reply> accept(NodeId node, Key key, Proposal proposal, boolean commit) {
    return self.equals(node)
        ? local.accept(key, proposal, commit)
        : peers.call(node, PaxosProtocol.ACCEPT, new PaxosProtocol.Accept(key, proposal, commit));
  }

  /** Hands a conditional write to {@code node}, the key's proposer ({@link Proposers}). */
  CompletableFuture<PaxosProtocol.Proposed> handOver(NodeId node, PaxosProtocol.Propose propose) {
    return peers.call(node, PaxosProtocol.PROPOSE, propose);
  }

  /** Whether calls to {@code node} are expected to get through now. */
  boolean reachable(NodeId node) {
    return peers.state(node).reachable();
  }

  /** Stores a chosen value as {@code key}'s record on this node. */
  public CompletableFuture<Void> commitHere(Key key, Record value) {
    return local.commit(key, value);
  }
}
