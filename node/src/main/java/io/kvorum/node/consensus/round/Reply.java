package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import java.util.Optional;

/** An acceptor's answer to a proposer, always naming the ballot it answers. */
public sealed interface Reply {
  Ballot ballot();

  /** A promise to take no ballot below this one, with what the acceptor holds for the key. */
  record Promise(Ballot ballot, Optional<Proposal> accepted, Optional<Record> stored)
      implements Reply {}

  /** The proposal at this ballot is accepted. */
  record Accepted(Ballot ballot) implements Reply {}

  /** Refused: the acceptor promised or accepted {@code higher} already. */
  record Rejected(Ballot ballot, Ballot higher) implements Reply {}
}
