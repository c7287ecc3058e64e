package io.kvorum.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.CapturedLog;
import io.kvorum.node.testing.ManualScheduler;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerTransport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The membership service runs in the time it is given (issue 41): with a scheduler whose tasks the
 * test runs on its own thread and that scheduler's virtual clock as the monotonic clock, a join's
 * settle wait and a stream's batch deadline pass when virtual time says, in a test that takes
 * milliseconds of real time; no thread of the service waits.
 */
@Timeout(10)
class MembershipVirtualTimeTest {
  private static final Member N0 = new Member(NodeId.of("n0"), "127.0.0.1", 1);
  private static final Member N1 = new Member(NodeId.of("n1"), "127.0.0.1", 2);
  private static final Member JOINER = new Member(NodeId.of("n2"), "127.0.0.1", 3);
  private static final Duration SETTLE = Duration.ofSeconds(5);

  @TempDir Path dir;

  /** Peers that are reachable, never answer gossip, and whose hand-offs never send a batch. */
  private static final class SilentPeers implements PeerTransport {
    final List<NodeId> opened = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<List<Entry>>> batchesAsked = new CopyOnWriteArrayList<>();
    final List<NodeId> closed = new CopyOnWriteArrayList<>();

    @Override
    public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
      return new CompletableFuture<>();
    }

    @Override
    public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
      opened.add(peer);
      return new ScanCursor() {
        @Override
        public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
          CompletableFuture<List<Entry>> batch = new CompletableFuture<>();
          batchesAsked.add(batch);
          return batch;
        }

        @Override
        public void close() {
          closed.add(peer);
        }
      };
    }

    @Override
    public <Q, A> CompletableFuture<A> callAt(
        String host, int port, Operation<Q, A> operation, Q request) {
      return new CompletableFuture<>();
    }

    @Override
    public void members(List<Member> members) {}

    @Override
    public PeerState state(NodeId peer) {
      return new PeerState(true, "closed");
    }

    @Override
    public void onPeerReachable(Consumer<NodeId> listener) {}

    @Override
    public void peerAnnounced(NodeId peer) {}

    @Override
    public void close() {}
  }

  @Test
  void aJoinSettlesAndItsStreamsMissTheirBatchDeadlineInVirtualTime() {
    ClusterState joining = ClusterState.seed(List.of(N0, N1)).withJoining(JOINER, 0);
    Membership membership = new Membership(JOINER.id(), joining, Optional.empty());
    // Both members already acknowledged the join: the driver waits for the settle time only.
    membership.seen(N0.id(), joining.epoch());
    membership.seen(N1.id(), joining.epoch());
    SilentPeers peers = new SilentPeers();
    ManualScheduler scheduler = new ManualScheduler();
    try (CapturedLog log = CapturedLog.of(ChangeDriver.class);
        MembershipService service =
            new MembershipService(
                membership,
                new MembershipStore(dir),
                new InMemoryStorageEngine(),
                peers,
                ChangeRepair.NONE,
                new MembershipService.Settings(1 << 20, Duration.ofSeconds(1), SETTLE),
                scheduler,
                scheduler,
                scheduler,
                () -> 0,
                scheduler::nanoTime)) {
      service.start();
      scheduler.runReady();

      scheduler.advance(SETTLE.minusMillis(1));
      assertThat(peers.opened).as("still settling").isEmpty();
      scheduler.advance(Duration.ofMillis(1));
      assertThat(peers.opened).containsExactlyInAnyOrder(N0.id(), N1.id());
      assertThat(log.lines(Level.INFO)).anySatisfy(line -> assertThat(line).contains("streaming"));

      scheduler.advance(Duration.ofSeconds(60).minusMillis(1));
      assertThat(peers.batchesAsked).hasSize(2).noneMatch(CompletableFuture::isDone);
      assertThat(log.lines(Level.WARN)).isEmpty();
      scheduler.advance(Duration.ofMillis(1));
      assertThat(peers.batchesAsked).allMatch(CompletableFuture::isCancelled);
      assertThat(peers.closed).containsExactlyInAnyOrder(N0.id(), N1.id());
      assertThat(log.lines(Level.WARN))
          .singleElement()
          .satisfies(
              line ->
                  assertThat(line)
                      .contains("join of n2")
                      .contains("stopped, to be resumed")
                      .contains("took over 60 s"));
      assertThat(membership.state().change()).isPresent();
    }
  }
}
