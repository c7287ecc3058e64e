package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteString;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.ClusterStateCodec;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.proto.replica.v1.GossipRequest;
import io.kvorum.proto.replica.v1.GossipResponse;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.JoinRequest;
import io.kvorum.proto.replica.v1.PingRequest;
import io.kvorum.proto.replica.v1.PingResponse;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.TreeHashesRequest;
import io.kvorum.proto.replica.v1.TreeHashesResponse;
import io.kvorum.proto.replica.v1.WriteRequest;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link PeerTransport} over gRPC: channels to every peer on the node's event loops; replica reads
 * and writes batched on one long-lived stream per channel ({@link ReplicaStream}), scans as
 * server-streaming calls (and so the records of hash-tree segments), hello, ping and tree hashes as
 * unary calls. Every message passes the node's {@link WireEdge}, which carries the clock and the
 * replicas' errors. Connections are kept alive with HTTP/2 pings, so a peer that freezes is noticed
 * within seconds even when no request is waiting on it.
 *
 * <p><b>Which connection.</b> With one channel per loop, each peer gets a channel on every loop of
 * the group, and a call made on one of those loops (an HTTP request being served there) goes out on
 * that loop's channel: its batch is sent, and its answer read and completed, on the thread that
 * made the call, with no hand-off to another thread. Calls from other threads use the first
 * channel. Otherwise each peer gets one channel, on a loop in turn.
 */
public final class GrpcPeerTransport implements PeerTransport {
  private final EventLoops loops;
  private final NodeId self;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final Map<NodeId, List<PeerChannel>> peers = new ConcurrentHashMap<>();
  private final Map<NodeId, Member> addresses = new ConcurrentHashMap<>();
  private final WireEdge edge;
  private final int maxMessageBytes;
  private final boolean channelPerLoop;
  private final List<Consumer<NodeId>> reachableListeners = new CopyOnWriteArrayList<>();
  private final Optional<GrpcTls> tls;
  private final Map<NodeId, StorageReport> reportedStorage = new ConcurrentHashMap<>();

  /**
   * @param callTimeout deadline of one replica read or write, and of waiting for one scan batch
   * @param helloTimeout deadline of a hello, which waits for the peer to deliver its hints
   * @param maxMessageBytes the largest message accepted (a value plus its key and framing)
   * @param loops the event loops the channels live on (the caller keeps them running until this
   *     transport is closed)
   * @param channelPerLoop one channel per peer on each loop, used by calls made on that loop; else
   *     one channel per peer
   */
  public GrpcPeerTransport(
      Topology topology,
      Clock clock,
      Duration callTimeout,
      Duration helloTimeout,
      int maxMessageBytes,
      EventLoops loops,
      boolean channelPerLoop) {
    this(
        topology,
        clock,
        callTimeout,
        helloTimeout,
        maxMessageBytes,
        loops,
        channelPerLoop,
        Optional.empty());
  }

  /**
   * As above, with mutual TLS to every peer when {@code tls} is present: this node presents its
   * certificate and accepts a peer only if the CA signed its certificate and it names the host
   * dialled.
   */
  public GrpcPeerTransport(
      Topology topology,
      Clock clock,
      Duration callTimeout,
      Duration helloTimeout,
      int maxMessageBytes,
      EventLoops loops,
      boolean channelPerLoop,
      Optional<GrpcTls> tls) {
    this.loops = loops;
    this.tls = tls;
    this.self = topology.self();
    this.callTimeout = callTimeout;
    this.helloTimeout = helloTimeout;
    this.edge = new WireEdge(clock);
    this.maxMessageBytes = maxMessageBytes;
    this.channelPerLoop = channelPerLoop;
    members(topology.members());
  }

  /**
   * Keeps channels to exactly {@code members} (but this node): opens them to new members and to
   * members whose address changed, closes those to members gone.
   */
  @Override
  public synchronized void members(List<Member> members) {
    Map<NodeId, Member> wanted = new HashMap<>();
    for (Member member : members) {
      if (!member.id().equals(self)) {
        wanted.put(member.id(), member);
      }
    }
    for (NodeId gone : List.copyOf(addresses.keySet())) {
      Member now = wanted.get(gone);
      if (now == null || !now.equals(addresses.get(gone))) {
        addresses.remove(gone);
        List<PeerChannel> channels = peers.remove(gone);
        if (channels != null) {
          channels.forEach(PeerChannel::close);
        }
      }
    }
    for (Member member : wanted.values()) {
      if (!addresses.containsKey(member.id())) {
        addresses.put(member.id(), member);
        peers.put(
            member.id(),
            connectOn(
                channelPerLoop ? loops.loops() : List.of(loops.next()),
                member,
                edge,
                maxMessageBytes));
      }
    }
  }

  /** A channel to {@code member} on each of {@code on}; the first one is the primary. */
  private List<PeerChannel> connectOn(
      List<EventLoop> on, Member member, WireEdge edge, int maxMessageBytes) {
    List<PeerChannel> channels = new ArrayList<>(on.size());
    for (EventLoop loop : on) {
      channels.add(connect(member, loop, channels.isEmpty(), edge, maxMessageBytes));
    }
    return List.copyOf(channels);
  }

  /**
   * @param primary whether this channel reports the peer's returns (the others follow it)
   */
  private PeerChannel connect(
      Member member, EventLoop loop, boolean primary, WireEdge edge, int maxMessageBytes) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(member.host(), member.grpcPort())
            .eventLoopGroup(loop)
            .channelType(loops.socketChannelType());
    tls.ifPresentOrElse(
        t -> builder.sslContext(t.client()).negotiationType(NegotiationType.TLS),
        builder::usePlaintext);
    ManagedChannel channel =
        builder
            .directExecutor()
            // gRPC's shortest: a silent peer is dropped after 10 s without a byte and 3 s more.
            .keepAliveTime(10, TimeUnit.SECONDS)
            .keepAliveTimeout(3, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            // A batch (of answers or scanned entries) holds up to a batch's worth of small
            // ones, or a single one of the largest.
            .maxInboundMessageSize(maxMessageBytes + ProtoMapping.BATCH_BYTES)
            .build();
    return new PeerChannel(
        member.id(), channel, loop, edge, callTimeout, primary ? this::reachable : peer -> {});
  }

  private void reachable(NodeId peer) {
    reachableListeners.forEach(listener -> listener.accept(peer));
  }

  @Override
  public CompletableFuture<Optional<Record>> read(NodeId peer, Key key) {
    return channel(peer)
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
    return channel(peer)
        .call(
            ReplicaRequest.newBuilder()
                .setWrite(
                    WriteRequest.newBuilder()
                        .setKey(ProtoMapping.bytes(key.bytes()))
                        .setRecord(ProtoMapping.toProto(record))))
        .thenApply(response -> null);
  }

  @Override
  public ScanCursor scan(NodeId peer, KeyRange range) {
    return GrpcScanCursor.scan(channel(peer), callTimeout, range);
  }

  @Override
  public ScanCursor handoff(NodeId peer, long epoch, NodeId to, Key start) {
    return GrpcScanCursor.handoff(channel(peer), SEGMENT_BATCH_TIMEOUT, epoch, to, start);
  }

  @Override
  public CompletableFuture<long[]> treeHashes(NodeId peer, int level, int[] positions) {
    TreeHashesRequest.Builder request =
        TreeHashesRequest.newBuilder().setNodeId(self.value()).setLevel(level);
    for (int position : positions) {
      request.addPositions(position);
    }
    CompletableFuture<long[]> hashes = new CompletableFuture<>();
    channel(peer)
        .stub()
        .withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .treeHashes(
            request.build(),
            new StreamObserver<>() {
              @Override
              public void onNext(TreeHashesResponse response) {
                hashes.complete(response.getHashesList().stream().mapToLong(h -> h).toArray());
              }

              @Override
              public void onError(Throwable error) {
                hashes.completeExceptionally(WireEdge.fromStatus(peer, "its tree hashes", error));
              }

              @Override
              public void onCompleted() {
                hashes.completeExceptionally(
                    new PeerUnavailableException(peer, "it answered no tree hashes", null));
              }
            });
    return hashes;
  }

  @Override
  public ScanCursor segments(NodeId peer, int[] segments) {
    return GrpcScanCursor.segments(channel(peer), SEGMENT_BATCH_TIMEOUT, self.value(), segments);
  }

  @Override
  public CompletableFuture<Long> hello(NodeId peer) {
    PeerChannel channel = channel(peer);
    CompletableFuture<Long> delivered = new CompletableFuture<>();
    channel
        .stub()
        .withDeadlineAfter(helloTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .hello(
            HelloRequest.newBuilder().setNodeId(self.value()).build(),
            new StreamObserver<>() {
              @Override
              public void onNext(HelloResponse response) {
                delivered.complete(response.getHintsDelivered());
              }

              @Override
              public void onError(Throwable error) {
                delivered.completeExceptionally(WireEdge.fromStatus(peer, "hello", error));
              }

              @Override
              public void onCompleted() {
                delivered.complete(0L);
              }
            });
    return delivered;
  }

  @Override
  public CompletableFuture<ClusterState> gossip(NodeId peer, ClusterState state) {
    CompletableFuture<ClusterState> answer = new CompletableFuture<>();
    channel(peer)
        .stub()
        .withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .gossip(
            GossipRequest.newBuilder()
                .setNodeId(self.value())
                .setClusterState(ByteString.copyFrom(ClusterStateCodec.encode(state)))
                .build(),
            stateObserver(peer, "gossip", answer));
    return answer;
  }

  /**
   * A channel of its own to the member asked, closed once it answered: it is not a peer yet, and
   * may never be one under that address.
   */
  @Override
  public CompletableFuture<ClusterState> join(String host, int port, Member member) {
    PeerChannel channel =
        connect(new Member(member.id(), host, port), loops.next(), false, edge, maxMessageBytes);
    CompletableFuture<ClusterState> answer = new CompletableFuture<>();
    channel
        .stub()
        .withDeadlineAfter(helloTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .join(
            JoinRequest.newBuilder()
                .setNodeId(member.id().value())
                .setHost(member.host())
                .setGrpcPort(member.grpcPort())
                .build(),
            stateObserver(member.id(), "join via " + host + ":" + port, answer));
    // Closing waits for the channel to terminate: not on the event loop that completed the call.
    return answer.whenCompleteAsync((state, error) -> channel.close());
  }

  private static StreamObserver<GossipResponse> stateObserver(
      NodeId peer, String what, CompletableFuture<ClusterState> answer) {
    return new StreamObserver<>() {
      @Override
      public void onNext(GossipResponse response) {
        try {
          answer.complete(ClusterStateCodec.decode(response.getClusterState().toByteArray()));
        } catch (IllegalArgumentException e) {
          answer.completeExceptionally(
              new PeerUnavailableException(peer, what + ": " + e.getMessage(), e));
        }
      }

      @Override
      public void onError(Throwable error) {
        answer.completeExceptionally(WireEdge.fromStatus(peer, what, error));
      }

      @Override
      public void onCompleted() {
        answer.completeExceptionally(
            new PeerUnavailableException(peer, what + " ended without an answer", null));
      }
    };
  }

  @Override
  public CompletableFuture<Long> ping(NodeId peer) {
    CompletableFuture<Long> wall = new CompletableFuture<>();
    channel(peer)
        .stub()
        .withDeadlineAfter(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .ping(
            PingRequest.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(PingResponse response) {
                if (response.hasRecords() && response.hasDiskUsedBytes()) {
                  reportedStorage.put(
                      peer, new StorageReport(response.getRecords(), response.getDiskUsedBytes()));
                }
                wall.complete(response.getWallMillis());
              }

              @Override
              public void onError(Throwable error) {
                wall.completeExceptionally(WireEdge.fromStatus(peer, "ping", error));
              }

              @Override
              public void onCompleted() {
                wall.completeExceptionally(
                    new PeerUnavailableException(peer, "its ping ended without an answer", null));
              }
            });
    return wall;
  }

  @Override
  public Optional<StorageReport> reportedStorage(NodeId peer) {
    return Optional.ofNullable(reportedStorage.get(peer));
  }

  @Override
  public PeerState state(NodeId peer) {
    List<PeerChannel> channels = peers.get(peer);
    if (channels == null) {
      return new PeerState(false, "not a member");
    }
    ConnectivityState state = channels.get(0).state();
    boolean reachable =
        state != ConnectivityState.TRANSIENT_FAILURE && state != ConnectivityState.SHUTDOWN;
    return new PeerState(reachable, "connection " + state.name().toLowerCase(Locale.ROOT));
  }

  @Override
  public void onPeerReachable(Consumer<NodeId> listener) {
    reachableListeners.add(listener);
  }

  @Override
  public void peerAnnounced(NodeId peer) {
    peers.getOrDefault(peer, List.of()).forEach(PeerChannel::reconnectNow);
  }

  /** The channel to {@code peer} on the calling thread's loop, else the first one. */
  private PeerChannel channel(NodeId peer) {
    List<PeerChannel> channels = channels(peer);
    for (int i = 1; i < channels.size(); i++) {
      if (channels.get(i).loop().inEventLoop()) {
        return channels.get(i);
      }
    }
    return channels.get(0);
  }

  private List<PeerChannel> channels(NodeId peer) {
    List<PeerChannel> channels = peers.get(peer);
    if (channels == null) {
      throw new PeerUnavailableException(peer, "it is not a member", null);
    }
    return channels;
  }

  @Override
  public void close() {
    peers.values().forEach(channels -> channels.forEach(PeerChannel::close));
  }
}
