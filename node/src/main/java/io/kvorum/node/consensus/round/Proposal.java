package io.kvorum.node.consensus.round;

import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import java.util.Optional;

/**
 * A value proposed, or accepted, at a ballot: the key's whole next state, a record (a value or a
 * tombstone) or nothing (a key never written, proposed again as it was found).
 *
 * @param parent the version of the value this one was computed from ({@link Version#ZERO} when the
 *     key was absent), empty when not known: a proposer whose earlier round lost a race can tell
 *     from it whether its own write came before this value or was never chosen
 */
public record Proposal(Ballot ballot, Optional<Record> value, Optional<Version> parent) {}
