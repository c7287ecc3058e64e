package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import java.util.Optional;

/** An acceptor's answer to a proposer, always naming the ballot it answers. */
public sealed interface Reply {
  Ballot ballot();

  /**
   * What an acceptor holds for a key: its last accepted proposal and its ordinary record of the
   * key.
   */
  record Held(Optional<Proposal> accepted, Optional<Record> stored) {}

  /** A promise to take no ballot below this one, with what the acceptor holds for the key. */
  record Promise(Ballot ballot, Optional<Proposal> accepted, Optional<Record> stored)
      implements Reply {}

  /**
   * The proposal at this ballot is accepted; {@code committed}: its value is stored as the key's
   * record too, as an accept that knew the proposal chosen asks ({@code PaxosProtocol.Accept}).
   */
  record Accepted(Ballot ballot, boolean committed) implements Reply {
    public Accepted(Ballot ballot) {
      this(ballot, false);
    }
  }

  /**
   * Refused: the acceptor promised or accepted {@code higher} already. A refused prepare says what
   * the acceptor holds ({@code held}), so that a proposer whose round lost can still learn a value
   * a quorum holds settled (a refusal needs no round of its own); a refused accept, and an acceptor
   * of an older release, says nothing.
   */
  record Rejected(Ballot ballot, Ballot higher, Optional<Held> held) implements Reply {
    public Rejected(Ballot ballot, Ballot higher) {
      this(ballot, higher, Optional.empty());
    }
  }
}
