package io.kvorum.node.sim;

import io.kvorum.node.consensus.round.Proposal;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.server.KvorumServer;
import io.kvorum.node.testing.DirectoryTrees;
import io.kvorum.node.testing.TestConfig;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * A whole simulated cluster on one thread in virtual time: its {@link SimScheduler}, its {@link
 * SimNetwork}, its {@link SimNode}s (data directories under one temporary directory, on {@code
 * /dev/shm} where there is one), and the way its clients reach the nodes: a request is a message to
 * the node (it waits while the node is paused, is refused while it is down), and its answer a
 * message back, or no answer within the client's deadline.
 */
final class SimCluster implements AutoCloseable {
  private final SimScheduler scheduler;
  private final SimNetwork network;
  private final List<SimNode> all = new ArrayList<>();
  private final Path directory;
  private final UnaryOperator<TestConfig> tweak;
  private final boolean ownsScheduler;
  private Applied applied = (key, record, node) -> {};
  private Accepted accepted = (key, proposal, node) -> {};

  private SimCluster(
      SimScheduler scheduler,
      Path directory,
      UnaryOperator<TestConfig> tweak,
      boolean ownsScheduler) {
    this.scheduler = scheduler;
    this.network = new SimNetwork(scheduler);
    this.directory = directory;
    this.tweak = tweak;
    this.ownsScheduler = ownsScheduler;
  }

  /**
   * A cluster of {@code size} nodes (n1…), none started, each configured by the test defaults and
   * {@code tweak}.
   */
  static SimCluster create(long seed, int size, UnaryOperator<TestConfig> tweak) {
    SimScheduler scheduler = new SimScheduler(seed, 200_000_000L);
    return new SimCluster(scheduler, temporaryDirectory(seed), tweak, true).withMembers(size);
  }

  /**
   * Another cluster of {@code size} nodes, none started, on this one's scheduler (time goes on) and
   * a network of its own: where a backup of this one is restored. Closing it leaves the scheduler
   * to this one.
   */
  SimCluster another(int size) {
    return new SimCluster(scheduler, directory.resolve("another"), tweak, false).withMembers(size);
  }

  private SimCluster withMembers(int size) {
    List<Member> members = IntStream.rangeClosed(1, size).mapToObj(SimCluster::member).toList();
    for (Member member : members) {
      add(configured(member).topology(new Topology(member.id(), members)));
    }
    return this;
  }

  private static Member member(int i) {
    return new Member(NodeId.of("n" + i), "n" + i + ".sim", 9090);
  }

  private TestConfig configured(Member member) {
    return tweak.apply(
        TestConfig.in(directory.resolve(member.id().value())).id(member.id().value()));
  }

  private SimNode add(TestConfig config) {
    SimNode node = new SimNode(config.build(), network);
    node.disk().onApplied((key, record) -> applied.applied(key, record, node.id()));
    node.disk().onAccepted((key, proposal) -> accepted.accepted(key, proposal, node.id()));
    all.add(node);
    return node;
  }

  /** Hears of every record any node's storage is offered, the nodes that join later too. */
  void onApplied(Applied listener) {
    this.applied = listener;
  }

  /** A record a node's storage was offered. */
  @FunctionalInterface
  interface Applied {
    void applied(Key key, Record record, NodeId node);
  }

  /** Hears of every proposal any node's acceptors accept, once durable. */
  void onAccepted(Accepted listener) {
    this.accepted = listener;
  }

  /** A proposal a node's acceptors accepted. */
  @FunctionalInterface
  interface Accepted {
    void accepted(Key key, Proposal proposal, NodeId node);
  }

  /**
   * A new node, started with {@code --join} through {@code via}: it asks to be admitted, then
   * streams its records in (SPEC §8).
   */
  SimNode join(SimNode via) {
    Member member = member(all.size() + 1);
    String host = via.config().topology().member(via.id()).orElseThrow().host();
    SimNode node =
        add(
            configured(member)
                .topology(new Topology(member.id(), List.of(member)))
                .join(host, 9090));
    node.start();
    return node;
  }

  private static Path temporaryDirectory(long seed) {
    Path shm = Path.of("/dev/shm");
    try {
      return Files.isDirectory(shm) && Files.isWritable(shm)
          ? Files.createTempDirectory(shm, "kvorum-sim-" + seed + "-")
          : Files.createTempDirectory("kvorum-sim-" + seed + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  SimScheduler scheduler() {
    return scheduler;
  }

  SimNetwork network() {
    return network;
  }

  /** The nodes that have not left the cluster, in the order they were added. */
  List<SimNode> nodes() {
    return all.stream().filter(n -> !n.departed()).toList();
  }

  /** Node {@code i} of {@link #nodes}, counting from 1. */
  SimNode node(int i) {
    return nodes().get(i - 1);
  }

  int size() {
    return nodes().size();
  }

  /** What every node's storage holds of {@code key}, by node; a node holding nothing is absent. */
  SortedMap<NodeId, Record> held(Key key) {
    SortedMap<NodeId, Record> held = new TreeMap<>();
    for (SimNode node : nodes()) {
      node.held(key).ifPresent(r -> held.put(node.id(), r));
    }
    return held;
  }

  /** Starts every node that is down and has not left. */
  void startAll() {
    nodes().stream().filter(n -> !n.up()).forEach(SimNode::start);
  }

  /** Runs the simulation for {@code time} of virtual time. */
  void run(Duration time) {
    scheduler.runUntil(scheduler.now() + time.toNanos());
  }

  /**
   * Runs until {@code done} holds, checked every 10 ms of virtual time, for at most {@code max}.
   *
   * @return whether it came to hold
   */
  boolean runUntil(BooleanSupplier done, Duration max) {
    long until = scheduler.now() + max.toNanos();
    while (!done.getAsBoolean()) {
      if (scheduler.now() >= until) {
        return false;
      }
      scheduler.runUntil(Math.min(until, scheduler.now() + 10_000_000L));
    }
    return true;
  }

  /** Whether every node that is up reports ready. */
  boolean allReady() {
    return nodes().stream().allMatch(n -> n.server().map(KvorumServer::ready).orElse(true));
  }

  /**
   * A client's request to {@code node}: {@code call} runs on the node as a message arriving there,
   * and its answer comes back as a message; a node down refuses it, and without an answer within
   * {@code deadline} (the node crashed, or is frozen) it fails with {@link TimeoutException}.
   */
  <T> CompletableFuture<T> request(
      SimNode node, Duration deadline, Function<KvorumServer, CompletableFuture<T>> call) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    SimScheduler.Event timeout =
        scheduler.after(
            deadline.toNanos(),
            null,
            () ->
                answer.completeExceptionally(
                    new TimeoutException("no answer within " + deadline.toMillis() + " ms")));
    answer.whenComplete((value, error) -> timeout.cancelled = true);
    SimScheduler.Owner incarnation = node.incarnation();
    if (incarnation == null) {
      answer.completeExceptionally(
          new PeerUnavailableException(node.id(), "connection refused", null));
      return answer;
    }
    scheduler.after(
        clientLatency(),
        incarnation,
        () -> {
          CompletableFuture<T> result;
          try {
            KvorumServer server = node.server().orElseThrow();
            // As the HTTP edge: 503 until the node has caught up with its peers.
            result =
                server.ready()
                    ? call.apply(server)
                    : CompletableFuture.failedFuture(
                        new UnavailableException(
                            "the node is starting: catching up with its peers"));
          } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
          }
          result.whenComplete(
              (value, error) ->
                  scheduler.after(
                      clientLatency(),
                      null,
                      () -> {
                        if (error == null) {
                          answer.complete(value);
                        } else {
                          answer.completeExceptionally(error);
                        }
                      }));
        });
    return answer;
  }

  private long clientLatency() {
    return 20_000 + scheduler.random().nextLong(200_000);
  }

  /** Drops every node (no graceful stop: nothing is left to run) and deletes their directories. */
  @Override
  public void close() {
    all.forEach(n -> n.crash(SimNode.Crash.KILL));
    if (ownsScheduler) {
      scheduler.close();
    }
    try {
      DirectoryTrees.remove(directory);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
