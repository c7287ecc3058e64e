package io.kvorum.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvorum.node.core.ClusterChangeException;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.node.storage.memory.InMemoryStorageEngine;
import io.kvorum.node.testing.ManualScheduler;
import io.kvorum.node.topology.ClusterState;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.MemberState;
import io.kvorum.node.topology.Owners;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerTransport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The requests and steps of a membership change, on one node in virtual time ({@link
 * ManualScheduler}), its peers played by a transport that acknowledges (or not) what it is sent.
 */
@Timeout(10)
class ChangeStepsTest {
  private static final Member N0 = new Member(NodeId.of("n0"), "127.0.0.1", 1);
  private static final Member N1 = new Member(NodeId.of("n1"), "127.0.0.1", 2);
  private static final Member N2 = new Member(NodeId.of("n2"), "127.0.0.1", 3);
  private static final Duration SETTLE = Duration.ofSeconds(2);

  @TempDir Path dir;

  private final ManualScheduler scheduler = new ManualScheduler();
  private final Peers peers = new Peers();

  /**
   * Peers that answer gossip with the state they were sent (they acknowledge it), unless told to
   * hold back, then with the state they hold; that have nothing to hand off; and that are reachable
   * unless said down.
   */
  private static final class Peers implements PeerTransport {
    final Set<NodeId> holdingBack = ConcurrentHashMap.newKeySet();
    final Set<NodeId> down = ConcurrentHashMap.newKeySet();
    final List<NodeId> opened = new CopyOnWriteArrayList<>();
    volatile ClusterState held;

    @Override
    @SuppressWarnings("unchecked")
    public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
      if (operation != MembershipProtocol.GOSSIP || down.contains(peer)) {
        return new CompletableFuture<>();
      }
      ClusterState sent = ((MembershipProtocol.Gossip) request).state();
      return CompletableFuture.completedFuture(
          (A) (holdingBack.contains(peer) && held != null ? held : sent));
    }

    @Override
    public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
      opened.add(peer);
      return new ScanCursor() {
        @Override
        public CompletableFuture<List<Entry>> next(int maxEntries, long maxBytes) {
          return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public void close() {}
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
      return down.contains(peer) ? new PeerState(false, "down") : new PeerState(true, "up");
    }

    @Override
    public void onPeerReachable(Consumer<NodeId> listener) {}

    @Override
    public void peerAnnounced(NodeId peer) {}

    @Override
    public void close() {}
  }

  private final InMemoryStorageEngine storage = new InMemoryStorageEngine();

  private MembershipService service(Membership membership) {
    return new MembershipService(
        membership,
        new MembershipStore(dir),
        storage,
        peers,
        ChangeRepair.NONE,
        new MembershipService.Settings(1 << 20, Duration.ofSeconds(1), SETTLE),
        scheduler,
        scheduler,
        scheduler,
        () -> 0,
        scheduler::nanoTime);
  }

  @Test
  void aNodeNotAdmittedYetAdmitsNoOther() {
    // What a node started with --join holds until it is admitted: itself alone, at epoch 0.
    ClusterState asking =
        new ClusterState(
            0, List.of(new ClusterState.Node(N0, MemberState.NORMAL)), Optional.empty());
    Membership membership = new Membership(N0.id(), asking, Optional.empty());
    try (MembershipService service = service(membership)) {
      CompletableFuture<ClusterState> admitted = service.admit(N1);
      scheduler.runReady();

      assertThat(admitted)
          .failsWithin(Duration.ZERO)
          .withThrowableThat()
          .withCauseInstanceOf(UnavailableException.class)
          .withMessageContaining("not a normal member");
      assertThat(membership.state()).isEqualTo(asking);
    }
  }

  @Test
  void aJoinMovesItsReadsOnceStreamedAndCompletesOnceEveryMemberHasThat() {
    ClusterState before = ClusterState.seed(List.of(N0, N1));
    ClusterState started = before.withJoining(N2, 0);
    Membership membership = new Membership(N2.id(), started, Optional.empty());
    peers.held = before;
    peers.holdingBack.add(N1.id());
    try (MembershipService service = service(membership)) {
      service.start();
      scheduler.advance(Duration.ofSeconds(10));
      assertThat(peers.opened).as("n1 has not acknowledged the start").isEmpty();

      peers.held = started;
      scheduler.advance(SETTLE.plusSeconds(1));
      assertThat(peers.opened).containsExactlyInAnyOrder(N0.id(), N1.id());
      ClusterState moved = membership.state();
      assertThat(moved.epoch()).isEqualTo(started.epoch() + 1);
      assertThat(moved.change().orElseThrow().readsMoved()).isTrue();
      assertThat(moved.nodes()).isEqualTo(started.nodes());

      scheduler.advance(Duration.ofSeconds(30));
      assertThat(membership.state())
          .as("n1 has not acknowledged that the reads moved")
          .isEqualTo(moved);

      peers.holdingBack.clear();
      scheduler.advance(Duration.ofSeconds(1));
      assertThat(membership.state()).as("acknowledged, still settling").isEqualTo(moved);
      scheduler.advance(SETTLE);
      ClusterState done = membership.state();
      assertThat(done.epoch()).isEqualTo(moved.epoch() + 1);
      assertThat(done.change()).isEmpty();
      assertThat(done.state(N2.id())).contains(MemberState.NORMAL);
      assertThat(service.joined()).isDone();
      assertThat(peers.opened).as("nothing streamed twice").hasSize(2);
    }
  }

  @Test
  void aJoinWhoseReadsMovedIsNotAbortedButCompletedByAMemberWhenItsNodeIsDown() {
    ClusterState moved = ClusterState.seed(List.of(N0, N1)).withJoining(N2, 0).readsMoved();
    Membership membership = new Membership(N0.id(), moved, Optional.empty());
    peers.down.add(N2.id());
    try (MembershipService service = service(membership)) {
      CompletableFuture<ClusterState.Change> removal = service.startRemoval(N2.id());
      scheduler.runReady();
      assertThat(removal)
          .failsWithin(Duration.ZERO)
          .withThrowableThat()
          .withCauseInstanceOf(ClusterChangeException.class)
          .withMessageContaining("reads of the join of n2")
          .withMessageContaining("remove 'n2' once it has");

      service.start();
      scheduler.runReady();
      scheduler.advance(SETTLE.plusSeconds(1));
      ClusterState done = membership.state();
      assertThat(done.epoch()).isEqualTo(moved.epoch() + 1);
      assertThat(done.change()).isEmpty();
      assertThat(done.state(N2.id())).contains(MemberState.NORMAL);
      assertThat(peers.opened).as("the reads moved: nothing left to stream").isEmpty();
    }
  }

  @Test
  void aMemberLeavesTheDriveOfAJoinWhoseReadsMovedToItsNodeWhileThatIsUp() {
    ClusterState moved = ClusterState.seed(List.of(N0, N1)).withJoining(N2, 0).readsMoved();
    Membership membership = new Membership(N0.id(), moved, Optional.empty());
    try (MembershipService service = service(membership)) {
      service.start();
      scheduler.advance(Duration.ofSeconds(30));

      assertThat(membership.state()).isEqualTo(moved);
    }
  }

  @Test
  void aLeavingNodeLeavesOnceAnotherMemberCompletedItsDecommission() {
    ClusterState moved =
        ClusterState.seed(List.of(N0, N1, N2))
            .withLeaving(N2.id(), ClusterState.Kind.DECOMMISSION, 0)
            .readsMoved();
    Membership membership = new Membership(N2.id(), moved, Optional.empty());
    try (MembershipService service = service(membership)) {
      service.start();
      scheduler.runReady();
      assertThat(service.left()).isNotDone();

      // n0 completed it while this node could not reach it (it had stored the completion, say).
      membership.adopt(moved.completed());
      scheduler.advance(Duration.ofSeconds(1));

      assertThat(service.left()).isDone();
      assertThat(new MembershipStore(dir).decommissioned()).isTrue();
    }
  }

  @Test
  void nothingIsHandedOffOnceTheReadsMoved() {
    ClusterState started = ClusterState.seed(List.of(N0, N1)).withJoining(N2, 0);
    Membership membership = new Membership(N0.id(), started.readsMoved(), Optional.empty());
    try (MembershipService service = service(membership)) {
      ScanCursor handoff = service.handoff(started.epoch(), N2.id(), Key.of(new byte[] {0}));

      assertThat(handoff.next(10, 1 << 20))
          .failsWithin(Duration.ZERO)
          .withThrowableThat()
          .withMessageContaining("no membership change of epoch 2 is streaming here");
    }
  }

  @Test
  void oldOwnersDropWhatTheyNoLongerOwnOnlyOnceEveryMemberHasTheCompletionUpOrNot() {
    ClusterState done =
        ClusterState.seed(List.of(N0, N1)).withJoining(N2, 0).readsMoved().completed();
    Membership membership = new Membership(N0.id(), done, Optional.empty());
    Owners owners = new Owners(done);
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      Key key = Key.utf8("k" + i);
      keys.add(key);
      storage.put(key, Record.value(Version.of(1, 0), new byte[] {1}, 0, 1)).join();
    }
    List<Key> lost = keys.stream().filter(k -> !owners.readers(k, 1).contains(N0.id())).toList();
    assertThat(lost).isNotEmpty();
    // n1 was cut off while the change completed: it may still write here on the old epoch.
    peers.down.add(N1.id());
    try (MembershipService service = service(membership)) {
      service.start();
      scheduler.advance(Duration.ofSeconds(30));
      assertThat(held(keys)).as("n1 has not acknowledged the completion").isEqualTo(keys);

      peers.down.clear();
      scheduler.advance(SETTLE.plusSeconds(3));
      List<Key> kept = new ArrayList<>(keys);
      kept.removeAll(lost);
      assertThat(held(keys)).isEqualTo(kept);
    }
  }

  private List<Key> held(List<Key> keys) {
    return keys.stream().filter(key -> storage.get(key).join().isPresent()).toList();
  }
}
