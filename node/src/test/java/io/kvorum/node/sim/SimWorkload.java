package io.kvorum.node.sim;

import io.kvorum.node.consensus.round.Condition;
import io.kvorum.node.coordinator.Coordinator;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.Version;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.sim.check.ClientOp;
import io.kvorum.node.sim.check.OpKind;
import io.kvorum.node.sim.check.RangeEntry;
import io.kvorum.node.sim.check.Recording;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The simulated clients: each sends one request at a time to a node it picks at random, of a kind,
 * key and {@code ack/from} it picks at random (plain and conditional writes, deletes, values with a
 * time to live, reads at every quorum, ranges), then thinks a little and sends the next, until
 * stopped. Every written value is unique. Each operation goes to the {@link Recording} as its
 * client saw it: the answer, a definite refusal (412, 400), or no definite answer (anything else: a
 * 504, a 503, a 507 after which some replicas may have applied the write, no answer).
 *
 * <p>A client that got no answer in time gives up after the request timeout plus {@link #SLACK} if
 * its node crashed or froze meanwhile (no server can answer then); otherwise it waits, so that an
 * answer later than the deadline shows as such.
 */
final class SimWorkload {
  /** What an answer may take beyond the request timeout: the hops to the client and back. */
  static final Duration SLACK = Duration.ofMillis(100);

  /** The chances of each kind of request, in {@link OpKind} order. */
  record Mix(
      int put,
      int delete,
      int get,
      int putIfAbsent,
      int putIfMatch,
      int deleteIfMatch,
      int range,
      int getLinearizable) {
    static final Mix DEFAULT = new Mix(30, 8, 30, 8, 12, 4, 4, 0);

    /**
     * Conditional writes alone (and reads, linearizable ones among them), so that Linearizability
     * checks every key.
     */
    static final Mix CONDITIONAL = new Mix(0, 0, 10, 25, 45, 12, 3, 10);
  }

  private final SimCluster cluster;
  private final Recording.Recorder recorder;
  private final Random random;
  private final List<Key> keys;
  private final Mix mix;
  private final Duration timeout;
  private final double ttlChance;
  private final boolean antiEntropy;
  private final Map<Integer, Map<Key, Version>> seen = new HashMap<>();
  private final Set<ClientOp> coordinatorTroubled = new HashSet<>();
  private boolean readyNodesOnly;
  private boolean running;
  private int inFlight;
  private long written;

  SimWorkload(
      SimCluster cluster,
      Recording.Recorder recorder,
      int keyCount,
      Mix mix,
      Duration timeout,
      double ttlChance,
      boolean antiEntropy) {
    this.cluster = cluster;
    this.recorder = recorder;
    this.random = cluster.scheduler().random();
    this.keys = new ArrayList<>();
    for (int i = 0; i < keyCount; i++) {
      keys.add(Key.utf8("k" + i));
    }
    this.mix = mix;
    this.timeout = timeout;
    this.ttlChance = ttlChance;
    this.antiEntropy = antiEntropy;
  }

  List<Key> keys() {
    return keys;
  }

  /**
   * Clients send to nodes that are ready, as a load balancer that heeds the readiness check does
   * (and the placement-aware client, skipping members listed down), rather than to any node.
   */
  SimWorkload readyNodesOnly() {
    readyNodesOnly = true;
    return this;
  }

  /** The operations whose node crashed, started or froze while they were under way. */
  Set<ClientOp> coordinatorTroubled() {
    return coordinatorTroubled;
  }

  /** Starts {@code clients} clients, each sending its first request within 10 ms. */
  void start(int clients) {
    running = true;
    for (int c = 1; c <= clients; c++) {
      int client = c;
      cluster.scheduler().after(random.nextLong(10_000_000L), null, () -> next(client));
    }
  }

  /** The clients send nothing more; what is in flight still ends. */
  void stop() {
    running = false;
  }

  /** Requests sent and not yet answered or given up. */
  int inFlight() {
    return inFlight;
  }

  private void next(int client) {
    if (!running) {
      return;
    }
    OpKind kind = pickKind();
    List<SimNode> ready =
        readyNodesOnly
            ? cluster.nodes().stream()
                .filter(n -> n.server().map(KvorumServer::ready).orElse(false))
                .toList()
            : List.of();
    SimNode node =
        !ready.isEmpty()
            ? ready.get(random.nextInt(ready.size()))
            : cluster.node(1 + random.nextInt(cluster.size()));
    Key key = keys.get(random.nextInt(keys.size()));
    send(client, node, kind, key, pickQuorum())
        .whenComplete(
            (op, error) ->
                cluster.scheduler().after(random.nextLong(50_000_000L), null, () -> next(client)));
  }

  /** Sends one request and records it once it ended; completes with what was recorded. */
  CompletableFuture<ClientOp> send(int client, SimNode node, OpKind kind, Key key, Quorum asked) {
    long call = cluster.scheduler().now();
    byte[] value = kind.writesValue() ? unique(client) : null;
    Duration ttl =
        value != null && random.nextDouble() < ttlChance
            ? Duration.ofMillis(500 + random.nextInt(5_000))
            : Duration.ZERO;
    // An expiring value goes to every replica a key's values may be on: expired and purged on
    // fewer, it would let an older value's other copies read again, which kvorum does not cover
    // (docs/decisions/a-tombstone-covers-the-default-replicas.md).
    // With hints alone (no anti-entropy), a delete goes to all the replicas its tombstone belongs
    // on: one with a smaller from reaches the others by anti-entropy alone.
    boolean everyReplica = !ttl.isZero() || (kind.deletes() && !antiEntropy);
    Quorum q = everyReplica ? new Quorum(asked.ack(), replicationFactor()) : asked;
    ClientOp.Builder op =
        ClientOp.builder(kind, key).by(client, node.id()).quorum(kind == OpKind.RANGE ? null : q);
    Version expected = kind.expectsVersion() ? expectation(client, key) : null;
    op.value(value).expected(expected);
    CompletableFuture<?> answer =
        switch (kind) {
          case PUT -> ask(node, c -> c.put(key, value, ttl, q));
          case DELETE -> ask(node, c -> c.delete(key, q));
          case PUT_IF_ABSENT ->
              ask(node, c -> c.putIf(key, new Condition.IfAbsent(), value, ttl, q));
          case PUT_IF_MATCH ->
              ask(node, c -> c.putIf(key, new Condition.IfMatch(expected), value, ttl, q));
          case DELETE_IF_MATCH ->
              ask(node, c -> c.deleteIf(key, new Condition.IfMatch(expected), q));
          case GET -> ask(node, c -> c.get(key, q));
          case GET_LINEARIZABLE -> ask(node, c -> c.getLinearizable(key, q));
          case RANGE -> ask(node, c -> collect(c.range(KeyRange.from(key), rangeLimit(key))));
        };
    inFlight++;
    return answer.handle(
        (result, error) -> {
          inFlight--;
          ClientOp done = record(client, node, op, kind, key, call, result, error);
          if (node.troubledSince(call)) {
            coordinatorTroubled.add(done);
          }
          recorder.op(done);
          return done;
        });
  }

  private <T> CompletableFuture<T> ask(
      SimNode node, Function<Coordinator, CompletableFuture<T>> r) {
    return cluster.request(
        node, timeout.plus(SLACK).multipliedBy(10), s -> r.apply(s.coordinator()));
  }

  private ClientOp record(
      int client,
      SimNode node,
      ClientOp.Builder op,
      OpKind kind,
      Key key,
      long call,
      Object result,
      Throwable error) {
    long now = cluster.scheduler().now();
    long limit = call + timeout.plus(SLACK).toNanos();
    if (now > limit && node.troubledSince(call)) {
      // Its node crashed or froze: a real client gave up at its deadline, knowing nothing.
      return op.between(call, limit).unknown();
    }
    op.between(call, now);
    if (error != null) {
      return switch (Failures.unwrap(error)) {
        case ConditionFailedException e when kind.isConditional() -> {
          Version current = e.current().orElse(null);
          remember(client, key, current);
          yield op.refused(current);
        }
        case InvalidRequestException e -> op.refused(null);
        default -> op.unknown();
      };
    }
    return switch (kind) {
      case GET, GET_LINEARIZABLE -> {
        @SuppressWarnings("unchecked")
        Optional<Record> read = (Optional<Record>) result;
        read.ifPresent(r -> remember(client, key, r.version()));
        yield op.value(read.map(Record::value).orElse(null))
            .ok(read.map(Record::version).orElse(null));
      }
      case RANGE -> {
        @SuppressWarnings("unchecked")
        List<RangeEntry> entries = (List<RangeEntry>) result;
        yield op.entries(entries).ok(null);
      }
      default -> {
        Version version = (Version) result;
        remember(client, key, kind.deletes() ? null : version);
        yield op.ok(version);
      }
    };
  }

  /**
   * Half the ranges (by their first key, so that the seed's draws stay as they were) are read with
   * a limit of 1 to 8 entries, which pages the nodes' scans ({@code ReplicaScan#firstBatch}).
   */
  private static OptionalInt rangeLimit(Key key) {
    int hash = key.hashCode();
    return hash % 2 == 0 ? OptionalInt.of(1 + Math.floorMod(hash >> 1, 8)) : OptionalInt.empty();
  }

  /** Reads a range to its end (or its limit), batch after batch. */
  private static CompletableFuture<List<RangeEntry>> collect(ScanCursor cursor) {
    List<RangeEntry> entries = new ArrayList<>();
    return drain(cursor, entries).whenComplete((done, error) -> cursor.close());
  }

  private static CompletableFuture<List<RangeEntry>> drain(
      ScanCursor cursor, List<RangeEntry> into) {
    return cursor
        .next(16, 1 << 20)
        .thenCompose(
            batch -> {
              if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(into);
              }
              for (Entry e : batch) {
                into.add(new RangeEntry(e.key(), e.record().version(), e.record().value()));
              }
              return drain(cursor, into);
            });
  }

  private OpKind pickKind() {
    int[] weights = {
      mix.put(),
      mix.delete(),
      mix.get(),
      mix.putIfAbsent(),
      mix.putIfMatch(),
      mix.deleteIfMatch(),
      mix.range(),
      mix.getLinearizable()
    };
    OpKind[] kinds = {
      OpKind.PUT,
      OpKind.DELETE,
      OpKind.GET,
      OpKind.PUT_IF_ABSENT,
      OpKind.PUT_IF_MATCH,
      OpKind.DELETE_IF_MATCH,
      OpKind.RANGE,
      OpKind.GET_LINEARIZABLE
    };
    int total = 0;
    for (int w : weights) {
      total += w;
    }
    int pick = random.nextInt(total);
    for (int i = 0; i < weights.length; i++) {
      pick -= weights[i];
      if (pick < 0) {
        return kinds[i];
      }
    }
    throw new AssertionError();
  }

  /** {@code from} mostly the cluster's replication factor, sometimes fewer; any {@code ack}. */
  private Quorum pickQuorum() {
    int rf = replicationFactor();
    int from = random.nextInt(10) < 8 ? rf : 1 + random.nextInt(rf);
    return new Quorum(1 + random.nextInt(from), from);
  }

  private int replicationFactor() {
    return Math.min(3, cluster.size());
  }

  private Version expectation(int client, Key key) {
    Version known = seen.getOrDefault(client, Map.of()).get(key);
    return known != null ? known : Version.of(1, 0);
  }

  private void remember(int client, Key key, Version version) {
    Map<Key, Version> mine = seen.computeIfAbsent(client, c -> new HashMap<>());
    if (version == null) {
      mine.remove(key);
    } else {
      mine.put(key, version);
    }
  }

  private byte[] unique(int client) {
    return ("c" + client + "-" + ++written).getBytes(StandardCharsets.UTF_8);
  }
}
