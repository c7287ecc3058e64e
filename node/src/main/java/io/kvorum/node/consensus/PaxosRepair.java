package io.kvorum.node.consensus;

import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.membership.ChangeRepair;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.transport.PeerTransport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Paxos repair, as Cassandra 4.1 runs it before a topology change completes
 * (docs/decisions/paxos-repair-before-a-change-moves-reads.md). A value accepted by a majority of a
 * key's acceptors before a membership change is chosen, but if its proposer died before committing
 * it, only those acceptors know it, and a change streams records, not acceptor states: once the
 * change completes, a majority of the new owners could miss it. So the change's driver asks every
 * owner ({@link #repair}), before the records stream, to finish each value its acceptor holds
 * accepted for a key the change gives a new replica ({@link #repairHere}): a linearizable read of
 * the key, whose round goes to the key's acceptors of the change, the pending replica included (one
 * more answer for it: {@link Owners#participants}), so it finds any value chosen before the change,
 * proposes it again and commits it to the owners before and after, or finds it settled on enough of
 * them already.
 *
 * <p>An owner that cannot repair (down, of an older release) is skipped as long as every majority
 * of a key's acceptors keeps one that can: at most {@code from} minus a majority of the owners, the
 * node a removal takes away counted among them; otherwise the repair fails and the drive is resumed
 * later.
 */
public final class PaxosRepair implements ChangeRepair {
  private static final Logger log = LoggerFactory.getLogger(PaxosRepair.class);

  /** Paxos states looked at per call, their rounds run at once. */
  static final int BATCH = 64;

  private final Membership membership;
  private final AcceptorStore states;
  private final PeerTransport peers;
  private final IntSupplier group;
  private final Counter rounds;
  private volatile BiFunction<Key, Quorum, ? extends CompletableFuture<?>> finish;

  /**
   * @param group how many of a key's replicas decide its conditional writes (the default {@code
   *     from})
   */
  public PaxosRepair(
      Membership membership,
      AcceptorStore states,
      PeerTransport peers,
      IntSupplier group,
      MeterRegistry registry) {
    this.membership = membership;
    this.states = states;
    this.peers = peers;
    this.group = group;
    this.rounds =
        Counter.builder("kvorum.paxos.repairs")
            .description(
                "keys whose accepted conditional write this node finished before a membership"
                    + " change moved on (Paxos repair)")
            .register(registry);
  }

  /**
   * The rounds repair runs: the node's linearizable read ({@code quorum}'s ack, for a value it
   * finishes), given once the node's coordinator is built; a repair asked for before answers
   * unavailable.
   */
  public void finishWith(BiFunction<Key, Quorum, ? extends CompletableFuture<?>> read) {
    this.finish = read;
  }

  /** Repairs one batch of this node's Paxos states for the change of {@code epoch}. */
  public CompletableFuture<PaxosProtocol.Repaired> repairHere(long epoch, Optional<Key> after) {
    Owners owners = membership.owners();
    long changing = owners.state().change().map(ClusterState.Change::epoch).orElse(-1L);
    if (changing != epoch) {
      return CompletableFuture.failedFuture(
          new InvalidRequestException(
              null, "no membership change of epoch " + epoch + " is in progress here"));
    }
    BiFunction<Key, Quorum, ? extends CompletableFuture<?>> read = finish;
    if (read == null) {
      return CompletableFuture.failedFuture(
          new UnavailableException("this node does not coordinate conditional writes yet"));
    }
    int from = group.getAsInt();
    Quorum quorum = new Quorum(Quorum.majorityOf(from), from);
    return states
        .keys(after, BATCH)
        .thenCompose(
            keys -> {
              List<CompletableFuture<Integer>> each = new ArrayList<>(keys.size());
              for (Key key : keys) {
                each.add(
                    states
                        .state(key)
                        .thenCompose(
                            state ->
                                state.accepted().flatMap(p -> p.value()).isEmpty()
                                        || owners.participants(key, from).pending().isEmpty()
                                    ? CompletableFuture.completedFuture(0)
                                    : read.apply(key, quorum).thenApply(done -> 1)));
              }
              return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                  .thenApply(
                      all -> {
                        int finished = each.stream().mapToInt(CompletableFuture::join).sum();
                        rounds.increment(finished);
                        return new PaxosProtocol.Repaired(
                            finished,
                            keys.size() < BATCH
                                ? Optional.empty()
                                : Optional.of(keys.get(keys.size() - 1)));
                      });
            });
  }

  @Override
  public CompletableFuture<Void> repair(ClusterState state, ClusterState.Change change) {
    NodeId removed = change.kind() == ClusterState.Kind.REMOVE ? change.node() : null;
    List<NodeId> owners = state.owners().stream().filter(id -> !id.equals(removed)).toList();
    int from = Math.min(group.getAsInt(), state.owners().size());
    int spare = from - Quorum.majorityOf(from) - (removed == null ? 0 : 1);
    Map<NodeId, CompletableFuture<Long>> each = new LinkedHashMap<>();
    for (NodeId owner : owners) {
      each.put(owner, repairAll(owner, change.epoch(), Optional.empty(), 0));
    }
    return CompletableFuture.allOf(each.values().toArray(CompletableFuture[]::new))
        .handle(
            (all, any) -> {
              Map<NodeId, String> failed = new LinkedHashMap<>();
              long finished = 0;
              for (Map.Entry<NodeId, CompletableFuture<Long>> owner : each.entrySet()) {
                CompletableFuture<Long> done = owner.getValue();
                if (done.isCompletedExceptionally()) {
                  failed.put(
                      owner.getKey(),
                      String.valueOf(Failures.unwrap(done.exceptionNow()).getMessage()));
                } else {
                  finished += done.join();
                }
              }
              if (failed.size() > spare) {
                throw new IllegalStateException(
                    "Paxos repair failed on "
                        + failed
                        + ": a value accepted there alone could be missed once the change"
                        + " completes");
              }
              if (!failed.isEmpty()) {
                log.warn(
                    "{}: Paxos repair skipped {}, whose keys' other acceptors repaired them",
                    change,
                    failed);
              }
              log.info(
                  "{}: Paxos repair finished {} conditional writes on {} owners",
                  change,
                  finished,
                  owners.size() - failed.size());
              return null;
            });
  }

  /** Repairs every batch of {@code owner}'s states after {@code after}. */
  private CompletableFuture<Long> repairAll(
      NodeId owner, long epoch, Optional<Key> after, long finished) {
    CompletableFuture<PaxosProtocol.Repaired> batch =
        owner.equals(membership.self())
            ? repairHere(epoch, after)
            : peers.call(owner, PaxosProtocol.REPAIR, new PaxosProtocol.Repair(epoch, after));
    return batch.thenCompose(
        done ->
            done.next().isEmpty()
                ? CompletableFuture.completedFuture(finished + done.finished())
                : repairAll(owner, epoch, done.next(), finished + done.finished()));
  }
}
