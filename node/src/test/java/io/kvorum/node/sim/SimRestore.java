package io.kvorum.node.sim;

import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Quorum;
import io.kvorum.node.core.Record;
import io.kvorum.node.sim.SimNemesis.Fault;
import io.kvorum.node.sim.check.Violation;
import io.kvorum.node.topology.Owners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * A restore into another cluster, as {@code kvorum-node load} (and {@code restore}) does it: the
 * old cluster destroyed, a new one of another size started, every member's snapshot sent to it in
 * batches through its nodes' load path ({@link io.kvorum.node.coordinator.Coordinator#load}), each
 * batch sent again after a failure or no answer, amid the draw's faults for as long as they struck
 * the old cluster, then healed. Once healed and repaired, the new cluster must answer exactly the
 * newest record of each key over the snapshots: every owner holding it (version, value, expiry),
 * nothing newer anywhere, nothing outside its replicas, no key no snapshot held, and a read of
 * every key through every node answering it.
 */
final class SimRestore {
  /** How long the load may take once the faults healed. */
  private static final Duration LOAD_WITHIN = Duration.ofSeconds(120);

  private final SimCluster cluster;
  private final List<List<Entry>> batches = new ArrayList<>();
  private final Duration requestTimeout;
  private int next;
  private int attempts;
  private int retries;
  private Throwable lastFailure;

  private SimRestore(SimCluster cluster, Duration requestTimeout) {
    this.cluster = cluster;
    this.requestTimeout = requestTimeout;
  }

  /**
   * Restores {@code snapshots} into {@code fresh} (not started yet) amid {@code faults}, then
   * checks it.
   *
   * @param log where the restore's faults and figures go
   * @return what the checks found
   */
  static List<Violation> run(
      SimCluster fresh,
      SimSnapshots snapshots,
      List<Key> keys,
      Scenario.Draw draw,
      Set<Fault> faults,
      List<String> log) {
    SimRestore restore = new SimRestore(fresh, draw.requestTimeout());
    fresh.startAll();
    if (!fresh.runUntil(fresh::allReady, Duration.ofSeconds(60))) {
      throw new AssertionError("the cluster to restore into did not become ready within 60 s");
    }
    restore.batch(snapshots, 1 + fresh.scheduler().random().nextInt(6));
    SimNemesis nemesis =
        new SimNemesis(
            fresh,
            faults,
            draw.faultGap().toNanos(),
            draw.sync().periodic() ? draw.sync().interval().toNanos() * 10 : 0);
    nemesis.start();
    restore.sendNext();
    // The faults strike for as long as they did in the old cluster, then heal: a load that keeps
    // failing goes on then, as an operator runs it again once the cluster is whole.
    fresh.run(draw.duration());
    nemesis.stop();
    nemesis.healAll();
    boolean loaded = fresh.runUntil(() -> restore.next == restore.batches.size(), LOAD_WITHIN);
    log.add(
        "restore into "
            + fresh.size()
            + " nodes: "
            + restore.batches.size()
            + " batches, "
            + restore.retries
            + " sent again; faults "
            + nemesis.log());
    if (!loaded) {
      throw new AssertionError(
          "the load did not finish within "
              + LOAD_WITHIN
              + ": batch "
              + restore.next
              + " failed "
              + restore.attempts
              + " times in a row, the last with "
              + restore.lastFailure);
    }
    Simulation.awaitChanges(fresh);
    Simulation.settle(fresh);
    List<Violation> violations = new ArrayList<>(restore.held(snapshots.newest(), keys));
    violations.addAll(restore.reads(snapshots.newest(), keys));
    return violations;
  }

  /** Every snapshot's records in batches of up to {@code size}, member after member, by key. */
  private void batch(SimSnapshots snapshots, int size) {
    for (Map<Key, Record> records : snapshots.taken().values()) {
      List<Entry> batch = new ArrayList<>();
      for (Map.Entry<Key, Record> record : records.entrySet()) {
        batch.add(new Entry(record.getKey(), record.getValue()));
        if (batch.size() == size) {
          batches.add(batch);
          batch = new ArrayList<>();
        }
      }
      if (!batch.isEmpty()) {
        batches.add(batch);
      }
    }
  }

  /**
   * Sends the next batch to a node picked at random, all its records at once; on success the one
   * after it, else the same again after a back-off (the loader's retries, or an operator running it
   * again through another node).
   */
  private void sendNext() {
    if (next == batches.size()) {
      return;
    }
    List<Entry> batch = batches.get(next);
    List<SimNode> nodes = cluster.nodes();
    SimNode node = nodes.get(cluster.scheduler().random().nextInt(nodes.size()));
    cluster
        .request(
            node,
            requestTimeout.multipliedBy(2),
            server ->
                CompletableFuture.allOf(
                    batch.stream()
                        .map(e -> server.coordinator().load(e.key(), e.record()))
                        .toArray(CompletableFuture[]::new)))
        .whenComplete(
            (done, error) -> {
              if (error == null) {
                next++;
                attempts = 0;
                // Held to a rate (--rate), so that the faults strike while it loads.
                cluster
                    .scheduler()
                    .after(
                        cluster.scheduler().random().nextInt(300) * 1_000_000L,
                        null,
                        this::sendNext);
              } else {
                lastFailure = error;
                retries++;
                attempts++;
                long backOff = Math.min(2_000, 100L << Math.min(attempts, 5));
                cluster
                    .scheduler()
                    .after(
                        (backOff + cluster.scheduler().random().nextInt(100)) * 1_000_000L,
                        null,
                        this::sendNext);
              }
            });
  }

  /** What each node's storage holds against what the restore must hold. */
  private List<Violation> held(SortedMap<Key, Record> want, List<Key> keys) {
    Owners owners = new Owners(cluster.node(1).server().orElseThrow().admin().clusterState());
    long now = cluster.node(1).wallMillis();
    List<Violation> violations = new ArrayList<>();
    for (Key key : keys) {
      Map<NodeId, Record> held = cluster.held(key);
      Record wanted = want.get(key);
      String problem = problem(wanted, held, owners, now, key);
      if (problem != null) {
        violations.add(new Violation("Restore", key.toString(), problem + "; held: " + held));
      }
    }
    return violations;
  }

  private String problem(
      Record wanted, Map<NodeId, Record> held, Owners owners, long now, Key key) {
    if (wanted == null) {
      return held.isEmpty() ? null : "no snapshot held the key, yet the restored cluster does";
    }
    for (Map.Entry<NodeId, Record> record : held.entrySet()) {
      if (record.getValue().supersedes(wanted)) {
        return record.getKey() + " holds a record newer than any snapshot's " + wanted;
      }
    }
    for (Map.Entry<NodeId, Record> record : held.entrySet()) {
      List<NodeId> its =
          owners.readers(key, Math.min(record.getValue().replicas(), cluster.size()));
      if (!its.contains(record.getKey())) {
        return record.getKey() + " holds " + record.getValue() + " outside its replicas " + its;
      }
    }
    List<NodeId> replicas = owners.readers(key, Math.min(wanted.replicas(), cluster.size()));
    if (!wanted.isLive(now)) {
      boolean live = held.values().stream().anyMatch(r -> r.isLive(now));
      return live ? "the snapshots' newest " + wanted + " is dead, yet a value reads" : null;
    }
    for (NodeId node : replicas) {
      Record got = held.get(node);
      if (got == null || !sameWrite(got, wanted)) {
        return node + " holds " + got + ", not the snapshots' newest " + wanted;
      }
    }
    return null;
  }

  /** The same write as loaded: its version, value and expiry (its replicas as the new size has). */
  private static boolean sameWrite(Record got, Record wanted) {
    return got.version().equals(wanted.version())
        && got.tombstone() == wanted.tombstone()
        && got.expiresAtMillis() == wanted.expiresAtMillis()
        && java.util.Arrays.equals(got.value(), wanted.value());
  }

  /** A read of every key through every node, at all its replicas: each answers the restore. */
  private List<Violation> reads(SortedMap<Key, Record> want, List<Key> keys) {
    int from = Math.min(3, cluster.size());
    List<Read> reads = new ArrayList<>();
    for (SimNode node : cluster.nodes()) {
      for (Key key : keys) {
        reads.add(
            new Read(
                node.id(),
                key,
                cluster.request(
                    node,
                    requestTimeout.multipliedBy(2),
                    s -> s.coordinator().get(key, new Quorum(from, from)))));
      }
    }
    cluster.runUntil(
        () -> reads.stream().allMatch(r -> r.answer().isDone()), Duration.ofSeconds(30));
    long now = cluster.node(1).wallMillis();
    List<Violation> violations = new ArrayList<>();
    for (Read read : reads) {
      Record wanted = want.get(read.key());
      Optional<Record> expected = Optional.ofNullable(wanted).filter(r -> r.isLive(now));
      String wrong = read.wrong(expected);
      if (wrong != null && !(wanted != null && expiresAround(wanted, now))) {
        violations.add(
            new Violation(
                "Restore", read.key().toString(), "through " + read.node() + ": " + wrong));
      }
    }
    return violations;
  }

  /** A read through {@code node} after the restore. */
  private record Read(NodeId node, Key key, CompletableFuture<Optional<Record>> answer) {
    /** What is wrong with its answer against {@code expected}; null when nothing. */
    String wrong(Optional<Record> expected) {
      if (!answer.isDone()) {
        return "no answer";
      }
      if (answer.isCompletedExceptionally()) {
        return "failed: " + answer.exceptionNow();
      }
      Optional<Record> read = answer.join();
      boolean same =
          read.isPresent() == expected.isPresent()
              && (read.isEmpty() || sameWrite(read.get(), expected.get()));
      return same ? null : "read " + read + ", not " + expected;
    }
  }

  /** Whether {@code record} expired during the reads, so that either answer is right. */
  private static boolean expiresAround(Record record, long now) {
    return record.hasExpiry() && Math.abs(record.expiresAtMillis() - now) < 2_000;
  }
}
