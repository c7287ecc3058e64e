package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteString;
import io.grpc.ConnectivityState;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.ClusterStateCodec;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.consensus.Ballot;
import io.kvorum.node.consensus.Proposal;
import io.kvorum.node.consensus.Reply;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.proto.replica.v1.AcceptRequest;
import io.kvorum.proto.replica.v1.GossipRequest;
import io.kvorum.proto.replica.v1.GossipResponse;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.JoinRequest;
import io.kvorum.proto.replica.v1.PingRequest;
import io.kvorum.proto.replica.v1.PingResponse;
import io.kvorum.proto.replica.v1.PrepareRequest;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.TreeHashesRequest;
import io.kvorum.proto.replica.v1.TreeHashesResponse;
import io.kvorum.proto.replica.v1.WriteRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link PeerTransport} over gRPC: channels to every peer on the node's event loops ({@link
 * PeerChannels}); replica reads and writes batched on one long-lived stream per channel ({@link
 * ReplicaStream}), scans as server-streaming calls (and so the records of hash-tree segments and
 * hand-offs, {@link GrpcScanCursor}), hello, ping, gossip, join and tree hashes as unary calls.
 * Every message passes the node's {@link WireEdge}, which carries the clock and the replicas'
 * errors. Connections are kept alive with HTTP/2 pings, so a peer that freezes is noticed within
 * seconds even when no request is waiting on it.
 *
 * <p><b>Which connection.</b> With one channel per loop, each peer gets a channel on every loop of
 * the group, and a call made on one of those loops (an HTTP request being served there) goes out on
 * that loop's channel: its batch is sent, and its answer read and completed, on the thread that
 * made the call, with no hand-off to another thread. Calls from other threads use the first
 * channel. Otherwise each peer gets one channel, on a loop in turn.
 */
public final class GrpcPeerTransport implements PeerTransport {
  /**
   * How long a hello waits for a channel that was backing off to reconnect: a peer on a LAN that
   * listens connects within milliseconds.
   */
  static final Duration FRESH_ATTEMPT = Duration.ofMillis(500);

  private final NodeId self;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final PeerChannels channels;
  private final PeerProtocol protocol;
  private final Map<NodeId, StorageReport> reportedStorage = new ConcurrentHashMap<>();

  /**
   * With mutual TLS to every peer when {@code tls} is present: this node presents its certificate
   * and accepts a peer only if the CA signed its certificate and it names the host dialled.
   *
   * @param callTimeout deadline of one replica read or write, and of waiting for one scan batch
   * @param helloTimeout deadline of a hello, which waits for the peer to deliver its hints
   * @param maxMessageBytes the largest message accepted (a value plus its key and framing)
   * @param loops the event loops the channels live on (the caller keeps them running until this
   *     transport is closed)
   * @param channelPerLoop one channel per peer on each loop, used by calls made on that loop; else
   *     one channel per peer
   * @param tls the certificates of mutual TLS, or empty for plain text
   * @param protocol the protocol this node speaks in its hellos, and the peers' it talks to
   */
  public GrpcPeerTransport(
      Topology topology,
      Clock clock,
      Duration callTimeout,
      Duration helloTimeout,
      int maxMessageBytes,
      EventLoops loops,
      boolean channelPerLoop,
      Optional<GrpcTls> tls,
      PeerProtocol protocol) {
    this.self = topology.self();
    this.protocol = protocol;
    this.callTimeout = callTimeout;
    this.helloTimeout = helloTimeout;
    this.channels =
        new PeerChannels(
            self, loops, new WireEdge(clock), callTimeout, maxMessageBytes, channelPerLoop, tls);
    members(topology.members());
  }

  /**
   * Keeps channels to exactly {@code members} (but this node): opens them to new members and to
   * members whose address changed, closes those to members gone.
   */
  @Override
  public void members(List<Member> members) {
    channels.members(members);
  }

  @Override
  public CompletableFuture<Optional<Record>> read(NodeId peer, Key key) {
    return channels
        .channel(peer)
        .call(
            ReplicaRequest.newBuilder()
                .setRead(ReadRequest.newBuilder().setKey(ProtoMapping.bytes(key.bytes()))))
        .thenApply(
            response ->
                response.getRead().hasRecord()
                    ? Optional.of(ProtoMapping.fromProto(response.getRead().getRecord()))
                    : Optional.empty());
  }

  @Override
  public CompletableFuture<Void> write(NodeId peer, Key key, Record record) {
    return channels
        .channel(peer)
        .call(
            ReplicaRequest.newBuilder()
                .setWrite(
                    WriteRequest.newBuilder()
                        .setKey(ProtoMapping.bytes(key.bytes()))
                        .setRecord(ProtoMapping.toProto(record))))
        .thenApply(response -> null);
  }

  @Override
  public CompletableFuture<Reply> prepare(NodeId peer, Key key, Ballot ballot) {
    return paxos(
        peer,
        ReplicaRequest.newBuilder()
            .setPrepare(
                PrepareRequest.newBuilder()
                    .setKey(ProtoMapping.bytes(key.bytes()))
                    .setBallot(PaxosMapping.toProto(ballot))));
  }

  @Override
  public CompletableFuture<Reply> accept(NodeId peer, Key key, Proposal proposal) {
    return paxos(
        peer,
        ReplicaRequest.newBuilder()
            .setAccept(
                AcceptRequest.newBuilder()
                    .setKey(ProtoMapping.bytes(key.bytes()))
                    .setProposal(PaxosMapping.toProto(proposal))));
  }

  /**
   * A Paxos request on the Exchange stream; an answer that is not a Paxos reply is the peer's bug.
   */
  private CompletableFuture<Reply> paxos(NodeId peer, ReplicaRequest.Builder request) {
    return channels
        .channel(peer)
        .call(request)
        .thenApply(
            response -> {
              if (!response.hasPaxos()) {
                throw new StorageException(
                    StorageException.Kind.FAILURE,
                    peer + " answered a Paxos request with " + response.getResultCase(),
                    null,
                    null);
              }
              return PaxosMapping.fromProto(response.getPaxos());
            });
  }

  @Override
  public ScanCursor scan(NodeId peer, KeyRange range) {
    return GrpcScanCursor.scan(channels.channel(peer), callTimeout, range);
  }

  @Override
  public ScanCursor handoff(NodeId peer, long epoch, NodeId to, Key start) {
    return GrpcScanCursor.handoff(channels.channel(peer), SEGMENT_BATCH_TIMEOUT, epoch, to, start);
  }

  @Override
  public ScanCursor segments(NodeId peer, int[] segments) {
    return GrpcScanCursor.segments(
        channels.channel(peer), SEGMENT_BATCH_TIMEOUT, self.value(), segments);
  }

  @Override
  public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
    TreeHashesRequest.Builder request =
        TreeHashesRequest.newBuilder().setNodeId(self.value()).setLevel(level);
    for (int position : positions) {
      request.addPositions(position);
    }
    UnaryAnswer<TreeHashesResponse, long[]> hashes =
        UnaryAnswer.of(
            peer,
            "its tree hashes",
            "it answered no tree hashes",
            response -> response.getHashesList().stream().mapToLong(h -> h).toArray());
    stub(channels.channel(peer), callTimeout).treeHashes(request.build(), hashes);
    return hashes.result();
  }

  /**
   * Says hello on a fresh connection attempt. A channel still backing off from a refusal made
   * before the peer listened would fail the hello at once with that old refusal (gRPC keeps a
   * channel in TRANSIENT_FAILURE until it connects), and two nodes starting together could each
   * miss the other's hello, both reporting ready with channels that fail every call until their
   * back-off ends, seconds later. So such a channel reconnects now, and the hello waits for it up
   * to {@link #FRESH_ATTEMPT} (what a peer that is really down costs a starting node's catch-up).
   */
  @Override
  public CompletableFuture<Long> hello(NodeId peer) {
    PeerChannel channel = channels.channel(peer);
    if (channel.state() != ConnectivityState.TRANSIENT_FAILURE) {
      return sayHello(channel, peer);
    }
    channels.reconnectNow(peer);
    return channel.readyWithin(FRESH_ATTEMPT).thenCompose(ready -> sayHello(channel, peer));
  }

  /**
   * A peer that answers with a protocol this node cannot talk to fails the hello (refused as
   * invalid: not the peer's fault for its breaker), logged once and counted by {@link
   * PeerProtocol}.
   */
  private CompletableFuture<Long> sayHello(PeerChannel channel, NodeId peer) {
    UnaryAnswer<HelloResponse, HelloResponse> answer =
        UnaryAnswer.orElse(peer, "hello", HelloResponse.getDefaultInstance(), r -> r);
    stub(channel, helloTimeout)
        .hello(
            HelloRequest.newBuilder().setNodeId(self.value()).setProtocol(protocol.wire()).build(),
            answer);
    return answer
        .result()
        .thenApply(
            response -> {
              Optional<String> refusal = protocol.refusal(peer, response.getProtocol());
              if (refusal.isPresent()) {
                throw new InvalidRequestException(null, refusal.get());
              }
              return response.getHintsDelivered();
            });
  }

  @Override
  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    UnaryAnswer<GossipResponse, ClusterState> answer = stateAnswer(peer, "gossip");
    stub(channels.channel(peer), callTimeout)
        .gossip(
            GossipRequest.newBuilder()
                .setNodeId(self.value())
                .setClusterState(ByteString.copyFrom(ClusterStateCodec.encode(state)))
                .build(),
            answer);
    return answer.result();
  }

  /**
   * A channel of its own to the member asked, closed once it answered: it is not a peer yet, and
   * may never be one under that address.
   */
  @Override
  public CompletableFuture<ClusterState> join(String host, int port, Member member) {
    PeerChannel channel = channels.alone(new Member(member.id(), host, port));
    UnaryAnswer<GossipResponse, ClusterState> answer =
        stateAnswer(member.id(), "join via " + host + ":" + port);
    stub(channel, helloTimeout)
        .join(
            JoinRequest.newBuilder()
                .setNodeId(member.id().value())
                .setHost(member.host())
                .setGrpcPort(member.grpcPort())
                .setZone(member.zone().name())
                .build(),
            answer);
    // Closing waits for the channel to terminate: not on the event loop that completed the call.
    return answer.result().whenCompleteAsync((state, error) -> channel.close());
  }

  private static UnaryAnswer<GossipResponse, ClusterState> stateAnswer(NodeId peer, String what) {
    return UnaryAnswer.of(
        peer,
        what,
        what + " ended without an answer",
        response -> ClusterStateCodec.decode(response.getClusterState().toByteArray()));
  }

  @Override
  public CompletableFuture<Long> ping(NodeId peer) {
    UnaryAnswer<PingResponse, Long> wall =
        UnaryAnswer.of(
            peer,
            "ping",
            "its ping ended without an answer",
            response -> {
              if (response.hasRecords() && response.hasDiskUsedBytes()) {
                reportedStorage.put(
                    peer, new StorageReport(response.getRecords(), response.getDiskUsedBytes()));
              }
              return response.getWallMillis();
            });
    stub(channels.channel(peer), callTimeout).ping(PingRequest.getDefaultInstance(), wall);
    return wall.result();
  }

  private static ReplicaGrpc.ReplicaStub stub(PeerChannel channel, Duration deadline) {
    return channel.stub().withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public Optional<StorageReport> reportedStorage(NodeId peer) {
    return Optional.ofNullable(reportedStorage.get(peer));
  }

  @Override
  public PeerState state(NodeId peer) {
    return channels.state(peer);
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    channels.onReachable(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    channels.reconnectNow(peer);
  }

  @Override
  public void close() {
    channels.close();
  }
}
