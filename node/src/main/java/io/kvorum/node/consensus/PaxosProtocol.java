package io.kvorum.node.consensus;

import io.kvorum.node.clock.FutureVersions;
import io.kvorum.node.consensus.round.Ballot;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.consensus.round.Outcome;
import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.consensus.round.Reply;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.Version;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The Paxos protocol of conditional writes (SPEC §10): a proposer asks the acceptors of a key to
 * promise a ballot and then to accept a proposal. Its operations and its handler ({@link #serve});
 * {@link Acceptors} calls them.
 */
public final class PaxosProtocol {
  /**
   * Asks a peer's acceptor to promise a ballot for a key; the reply is a promise (with what the
   * acceptor holds for the key) or a refusal naming the higher ballot it holds. Answered once the
   * acceptor's new state is durable.
   */
  public static final Operation<Prepare, Reply> PREPARE = Operation.of("prepare");

  /**
   * Asks a peer's acceptor to accept a proposal for a key, or refuses it, and to store its value as
   * the key's record too if the proposer's acceptor accepted it already and the two make a
   * majority. Answered once durable.
   */
  public static final Operation<Accept, Reply> ACCEPT = Operation.of("accept");

  /**
   * Asks an owner to finish, for the membership change of an epoch, the conditional writes its
   * acceptor holds accepted for keys the change gives a new replica ({@link PaxosRepair}), one
   * batch of its states at a time. Each batch runs rounds of its own, so it may take longer than a
   * request.
   */
  public static final Operation<Repair, Repaired> REPAIR =
      Operation.<Repair, Repaired>of("paxos-repair").within(Deadline.LONG_BATCH);

  /**
   * Hands a conditional write to the node that proposes for its key ({@link Proposers}): the
   * receiver runs it as a request of its own, one after another with its other writes of the key,
   * and answers how it ended.
   */
  public static final Operation<Propose, Proposed> PROPOSE = Operation.of("propose");

  private PaxosProtocol() {}

  /**
   * A conditional write handed over: {@code write} to {@code key} at {@code quorum}, decided within
   * {@code timeout} (what is left of the request's); {@code origin} handed it over when its clock
   * read {@code sent}, which identifies it (a node's clock never reads the same version twice).
   */
  public record Propose(
      Key key,
      ConditionalWrite write,
      Quorum quorum,
      Duration timeout,
      NodeId origin,
      Version sent) {}

  /** How a conditional write handed over ended. */
  public sealed interface Proposed {
    /** Applied or refused ({@link Outcome.Applied}, {@link Outcome.Refused}). */
    record Decided(Outcome outcome) implements Proposed {
      public Decided {
        if (!(outcome instanceof Outcome.Applied || outcome instanceof Outcome.Refused)) {
          throw new IllegalArgumentException("a write handed over ended " + outcome);
        }
      }
    }

    /** Not decided in time: it may or may not have applied (504); {@code why} says why. */
    record Undecided(String why) implements Proposed {}
  }

  /** A prepare: promise {@code ballot} for {@code key}. */
  public record Prepare(Key key, Ballot ballot) {}

  /**
   * An accept: accept {@code proposal} for {@code key}; {@code commit}: the proposer's own acceptor
   * accepted it, durably, and that acceptance and the receiver's make a majority of the key's
   * acceptors, so a receiver that accepts it knows it chosen and stores its value as the key's
   * record before answering ({@link Reply.Accepted#committed()}).
   */
  public record Accept(Key key, Proposal proposal, boolean commit) {}

  /**
   * A batch of Paxos repair: the states after {@code after} (from the first when empty), for the
   * change of {@code epoch}.
   */
  public record Repair(long epoch, Optional<Key> after) {}

  /**
   * A batch repaired: {@code finished} keys got a round; {@code next} is where the next batch
   * starts, empty once every state was seen.
   */
  public record Repaired(int finished, Optional<Key> next) {}

  /**
   * Serves {@code acceptor} to the peers' proposers, {@code proposals} to the peers that hand this
   * node a key's conditional writes, and {@code repair} to the driver of a membership change. A
   * proposal whose value is versioned too far ahead of this node's wall clock is refused, as a
   * replica refuses such a write ({@link FutureVersions}): its commit would be.
   */
  public static void serve(
      PeerHandlers handlers,
      Acceptor acceptor,
      FutureVersions future,
      PaxosRepair repair,
      Proposers.Served proposals) {
    handlers
        .on(REPAIR, ask -> repair.repairHere(ask.epoch(), ask.after()))
        .on(PROPOSE, proposals::propose)
        .on(PREPARE, prepare -> acceptor.prepare(prepare.key(), prepare.ballot()))
        .on(
            ACCEPT,
            accept -> {
              Optional<Record> value = accept.proposal().value();
              Optional<ClockOffsetException> refusal = value.flatMap(future::refusal);
              return refusal.isPresent()
                  ? CompletableFuture.failedFuture(refusal.get())
                  : acceptor.accept(accept.key(), accept.proposal(), accept.commit());
            });
  }
}
