package io.kvorum.node.coordinator;

import io.kvorum.node.clock.Clock;
import io.kvorum.node.clock.ClockOffsets;
import io.kvorum.node.consensus.Acceptors;
import io.kvorum.node.consensus.ConditionalWriteCoordinator;
import io.kvorum.node.consensus.PaxosProtocol;
import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.consensus.round.ConditionalWrite;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.membership.Membership;
import io.kvorum.node.quorum.RequestDeadline;
import io.kvorum.node.replica.Replicas;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.replication.ReadRepairer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;

/**
 * What a client request needs from the cluster: versioned writes and deletes, conditional ones
 * decided by Paxos, quorum reads that resolve tombstones and expiry, and cluster-wide ranges. Any
 * node coordinates any key. What an operator asks of the cluster is {@link ClusterAdmin}'s.
 */
public final class Coordinator {
  private final Membership membership;
  private final Clock clock;
  private final ClockOffsets offsets;
  private final WriteCoordinator writes;
  private final ConditionalWriteCoordinator conditionalWrites;
  private final ReadCoordinator reads;
  private final RangeCoordinator ranges;
  private final BatchCoordinator batches;
  private final ForwardedRequests forwarded;
  private final int replicationFactor;

  /**
   * @param offsets whether this node's clock may version writes
   * @param deadline how long a request waits for its quorum, and the scheduler that keeps its
   *     timeout, asked on the thread that starts it (cheapest on that thread when it is an event
   *     loop)
   * @param random uniform in [0, 1): the jitter of conditional writes' back-off
   * @param replicationFactor copies of a key when a request does not say
   */
  public Coordinator(
      Membership membership,
      Replicas replicas,
      Acceptors acceptors,
      HintedHandoff handoff,
      Clock clock,
      ClockOffsets offsets,
      RequestDeadline deadline,
      DoubleSupplier random,
      MeterRegistry registry,
      int replicationFactor) {
    this.membership = membership;
    this.replicationFactor = replicationFactor;
    this.clock = clock;
    this.offsets = offsets;
    Duration requestTimeout = deadline.timeout();
    this.writes =
        new WriteCoordinator(
            membership,
            replicas,
            handoff,
            deadline,
            offsets::unmeasured,
            requestTimeout.dividedBy(2));
    this.conditionalWrites =
        new ConditionalWriteCoordinator(
            membership,
            acceptors,
            writes::write,
            clock,
            deadline,
            random,
            this::defaultFrom,
            handoff.window(),
            offsets.maxOffset(),
            registry);
    ReadRepairer repairer = new ReadRepairer(replicas, registry);
    this.reads = new ReadCoordinator(membership, replicas, repairer, deadline);
    this.batches =
        new BatchCoordinator(
            membership,
            replicas,
            handoff,
            repairer,
            deadline,
            offsets::unmeasured,
            requestTimeout.dividedBy(2));
    this.ranges = new RangeCoordinator(membership, replicas, replicationFactor, clock::wallMillis);
    this.forwarded = new ForwardedRequests(membership, replicas.self(), registry);
  }

  /**
   * The {@code from} of a request that does not say: min(replication factor, cluster size), so
   * clusters of up to three nodes keep a copy on every node by default.
   */
  public int defaultFrom() {
    return Math.min(replicationFactor, clusterSize());
  }

  /** How many members own data now: the largest valid {@code from}. */
  public int clusterSize() {
    return membership.owners().size();
  }

  /**
   * The newest live record of {@code key} (its value and version), absent if it was never written,
   * was deleted, or has expired.
   */
  public CompletableFuture<Optional<Record>> get(Key key, Quorum quorum) {
    forwarded.count(key, quorum.from());
    return reads
        .read(key, quorum)
        .thenApply(newest -> newest.filter(r -> r.isLive(clock.wallMillis())));
  }

  /**
   * As {@link #get}, linearizably (SPEC §10, as Cassandra's {@code SERIAL}): read through the key's
   * Paxos acceptors, finishing any conditional write in progress on the key first, so it never
   * returns a value older than a conditional write already acknowledged. A Paxos round versions its
   * ballot with this node's clock, so it is refused as a write is when the clock may not.
   *
   * @param quorum the request's {@code ack} and {@code from}, for a value it finishes: committed as
   *     the conditional write it finishes would be
   */
  public CompletableFuture<Optional<Record>> getLinearizable(Key key, Quorum quorum) {
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    return conditionalWrites.read(key, quorum);
  }

  /**
   * Stores {@code value} under {@code key}.
   *
   * @param ttl how long the value lives; {@link Duration#ZERO} for ever
   * @return the version the value was written at, once {@code ack} replicas took it
   */
  public CompletableFuture<Version> put(Key key, byte[] value, Duration ttl, Quorum quorum) {
    forwarded.count(key, quorum.from());
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    Version version = clock.now();
    long expiresAt = ttl.isZero() ? Record.NO_EXPIRY : version.physicalMillis() + ttl.toMillis();
    return writes
        .write(key, Record.value(version, value, expiresAt, quorum.from()), quorum)
        .thenApply(done -> version);
  }

  /**
   * Deletes {@code key}: a tombstone that wins over every earlier write.
   *
   * @return the tombstone's version, once {@code ack} replicas took it
   */
  public CompletableFuture<Version> delete(Key key, Quorum quorum) {
    forwarded.count(key, quorum.from());
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    Version version = clock.now();
    return writes
        .write(key, Record.tombstone(version, tombstoneReplicas(quorum)), quorum)
        .thenApply(done -> version);
  }

  /**
   * Writes {@code record}, made elsewhere (a snapshot being loaded), as it is: its version,
   * tombstone and expiry kept, so every replica keeps whichever of it and what it holds wins under
   * last-writer-wins, and writing it twice changes nothing. It goes to min(its replicas, cluster
   * size) of its key's replicas, which becomes its {@code from}, and succeeds once a majority of
   * them took it. This node's clock observes the version, so that later writes here are newer.
   */
  public CompletableFuture<Void> load(Key key, Record record) {
    int from = Math.min(record.replicas(), clusterSize());
    Record placed =
        from == record.replicas()
            ? record
            : new Record(
                record.version(),
                record.tombstone(),
                record.expiresAtMillis(),
                record.value(),
                from);
    clock.observe(record.version());
    return writes.write(key, placed, new Quorum(from / 2 + 1, from));
  }

  /**
   * Stores {@code value} under {@code key} if {@code condition} holds, linearizably (SPEC §10):
   * decided by a majority of the key's {@code from} replicas, committed to at least {@code ack} of
   * them.
   *
   * @return the version written; fails with {@link io.kvorum.node.core.ConditionFailedException}
   *     when the condition does not hold
   */
  public CompletableFuture<Version> putIf(
      Key key, Condition condition, byte[] value, Duration ttl, Quorum quorum) {
    return conditionally(
        key, ConditionalWrite.put(condition, value, ttl.toMillis(), quorum.from()), quorum);
  }

  /** Deletes {@code key} if {@code condition} holds, as {@link #putIf} writes. */
  public CompletableFuture<Version> deleteIf(Key key, Condition condition, Quorum quorum) {
    return conditionally(
        key, ConditionalWrite.delete(condition, tombstoneReplicas(quorum)), quorum);
  }

  /**
   * The replicas a tombstone belongs on: at least the default {@code from}, however few the delete
   * asked. A delete with a small {@code from} (1/1) of a key written to more replicas must not
   * leave the other copies of the value to come back once the tombstone is purged: the tombstone
   * spreads to them by anti-entropy and read repair as a record of theirs, and is purged only after
   * that (docs/decisions/a-tombstone-covers-the-default-replicas.md).
   */
  private int tombstoneReplicas(Quorum quorum) {
    return Math.max(quorum.from(), defaultFrom());
  }

  private CompletableFuture<Version> conditionally(Key key, ConditionalWrite write, Quorum quorum) {
    forwarded.count(key, quorum.from());
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    return conditionalWrites.write(key, write, quorum).thenApply(Record::version);
  }

  /**
   * Runs a conditional write another node handed over to this one, the key's proposer ({@link
   * ConditionalWriteCoordinator#proposeHere}), as {@link #putIf} runs its own; refused as they are
   * when this node's clock may not version writes.
   */
  public CompletableFuture<PaxosProtocol.Proposed> proposeHere(PaxosProtocol.Propose propose) {
    Optional<ClockOffsetException> refusal = offsets.refusal();
    if (refusal.isPresent()) {
      return CompletableFuture.failedFuture(refusal.get());
    }
    return conditionalWrites.proposeHere(propose);
  }

  /**
   * Runs a client's batch (SPEC §2): every item as it would run alone, at {@code quorum}, each
   * replica sent one message for all the items it holds. Not atomic: each item succeeds or fails on
   * its own, and the answer lists each one's result in the items' order. Never fails as a whole.
   */
  public CompletableFuture<List<BatchResult>> batch(List<BatchItem> items, Quorum quorum) {
    Optional<ClockOffsetException> refusal = offsets.refusal();
    List<BatchCoordinator.Op> ops = new ArrayList<>(items.size());
    for (BatchItem item : items) {
      ops.add(
          switch (item) {
            case BatchItem.Get get -> new BatchCoordinator.Op.Read(get.key());
            case BatchItem.Put put when refusal.isPresent() ->
                new BatchCoordinator.Op.Refused(put.key(), refusal.get());
            case BatchItem.Delete delete when refusal.isPresent() ->
                new BatchCoordinator.Op.Refused(delete.key(), refusal.get());
            case BatchItem.Put put -> {
              Version version = clock.now();
              long expiresAt =
                  put.ttl().isZero()
                      ? Record.NO_EXPIRY
                      : version.physicalMillis() + put.ttl().toMillis();
              yield new BatchCoordinator.Op.Write(
                  put.key(), Record.value(version, put.value(), expiresAt, quorum.from()));
            }
            case BatchItem.Delete delete ->
                new BatchCoordinator.Op.Write(
                    delete.key(), Record.tombstone(clock.now(), tombstoneReplicas(quorum)));
          });
    }
    List<CompletableFuture<Optional<Record>>> running = batches.run(ops, quorum);
    List<CompletableFuture<BatchResult>> results = new ArrayList<>(running.size());
    for (int i = 0; i < running.size(); i++) {
      boolean read = items.get(i) instanceof BatchItem.Get;
      results.add(
          running
              .get(i)
              .handle(
                  (record, error) ->
                      error != null
                          ? BatchResult.of(Optional.empty(), error)
                          : BatchResult.of(
                              read ? record.filter(r -> r.isLive(clock.wallMillis())) : record,
                              null)));
    }
    return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .thenApply(done -> results.stream().map(CompletableFuture::join).toList());
  }

  /**
   * Live entries of {@code range} across the cluster, in key order, at most {@code limit} of them;
   * close the cursor.
   */
  public ScanCursor range(KeyRange range, OptionalInt limit) {
    ScanCursor entries = ranges.range(range, limit);
    return limit.isPresent() ? entries.limit(limit.getAsInt()) : entries;
  }
}
