package io.kvorum.node.transport.grpc;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoop;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Topology;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.Record;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.ReadRequest;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.WriteRequest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * {@link PeerTransport} over gRPC: one channel per peer, bound to one of the process's inter-node
 * event loops; replica reads and writes batched on one long-lived stream per peer ({@link
 * ReplicaStream}), scans as server-streaming calls, hello as a unary call. Every message passes the
 * node's {@link WireEdge}, which carries the clock and the replicas' errors. Connections are kept
 * alive with HTTP/2 pings, so a peer that freezes is noticed within seconds even when no request is
 * waiting on it.
 */
public final class GrpcPeerTransport implements PeerTransport {
  private final GrpcEventLoops eventLoops;
  private final NodeId self;
  private final Duration callTimeout;
  private final Duration helloTimeout;
  private final Map<NodeId, PeerChannel> peers;
  private final List<Consumer<NodeId>> reachableListeners = new CopyOnWriteArrayList<>();

  /**
   * @param callTimeout deadline of one replica read or write, and of waiting for one scan batch
   * @param helloTimeout deadline of a hello, which waits for the peer to deliver its hints
   * @param maxMessageBytes the largest message accepted (a value plus its key and framing)
   * @param ioThreads event-loop threads of the process's inter-node traffic ({@link
   *     GrpcEventLoops})
   */
  public GrpcPeerTransport(
      Topology topology,
      Clock clock,
      Duration callTimeout,
      Duration helloTimeout,
      int maxMessageBytes,
      int ioThreads) {
    this.eventLoops = GrpcEventLoops.acquire(ioThreads);
    this.self = topology.self();
    this.callTimeout = callTimeout;
    this.helloTimeout = helloTimeout;
    WireEdge edge = new WireEdge(clock);
    this.peers =
        topology.peers().stream()
            .collect(
                Collectors.toUnmodifiableMap(
                    Member::id, member -> connect(member, edge, maxMessageBytes)));
  }

  private PeerChannel connect(Member member, WireEdge edge, int maxMessageBytes) {
    EventLoop loop = eventLoops.next();
    ManagedChannel channel =
        eventLoops
            .configure(NettyChannelBuilder.forAddress(member.host(), member.grpcPort()), loop)
            .usePlaintext()
            .directExecutor()
            // gRPC's shortest: a silent peer is dropped after 10 s without a byte and 3 s more.
            .keepAliveTime(10, TimeUnit.SECONDS)
            .keepAliveTimeout(3, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            // A batch (of answers or scanned entries) holds up to a batch's worth of small
            // ones, or a single one of the largest.
            .maxInboundMessageSize(maxMessageBytes + ProtoMapping.BATCH_BYTES)
            .build();
    return new PeerChannel(member.id(), channel, loop, edge, callTimeout, this::reachable);
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
    return new GrpcScanCursor(channel(peer), callTimeout, range);
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
  public PeerState state(NodeId peer) {
    ConnectivityState state = channel(peer).state();
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
    channel(peer).reconnectNow();
  }

  private PeerChannel channel(NodeId peer) {
    PeerChannel channel = peers.get(peer);
    if (channel == null) {
      throw new PeerUnavailableException(peer, "it is not in the topology", null);
    }
    return channel;
  }

  @Override
  public void close() {
    try {
      peers.values().forEach(PeerChannel::close);
    } finally {
      eventLoops.release();
    }
  }
}
