package io.kvorum.node.transport.grpc;

import io.grpc.Attributes;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.NegotiationType;
import io.grpc.netty.NettyChannelBuilder;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.topology.Member;
import io.kvorum.node.transport.PeerTransport.PeerState;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This node's channels to its peers, kept to the current members: a channel to each peer on every
 * loop of the group (the first one the primary), or one channel per peer on a loop in turn; a call
 * goes out on the channel of the loop it is made on, else on the primary, whose returns to READY
 * are reported to the listeners. Every channel passes the node's {@link WireEdge}, uses mutual TLS
 * when it is configured, and pings a silent peer.
 */
final class PeerChannels implements AutoCloseable {
  private final NodeId self;
  private final EventLoops loops;
  private final WireEdge edge;
  private final Duration callTimeout;
  private final int maxMessageBytes;
  private final boolean channelPerLoop;
  private final Optional<GrpcTls> tls;
  private final Optional<String> localHost;
  private final Map<NodeId, List<PeerChannel>> peers = new ConcurrentHashMap<>();
  private final Map<NodeId, Member> addresses = new ConcurrentHashMap<>();
  private final List<Consumer<NodeId>> reachableListeners = new CopyOnWriteArrayList<>();

  /**
   * @param callTimeout the deadline of each replica read and write on the channels' streams
   * @param maxMessageBytes the largest message accepted (a value plus its key and framing)
   * @param channelPerLoop a channel per peer on each loop; else one per peer
   * @param localHost the address connections leave from ({@code --grpc-host}); empty for the one
   *     the system picks
   */
  PeerChannels(
      NodeId self,
      EventLoops loops,
      WireEdge edge,
      Duration callTimeout,
      int maxMessageBytes,
      boolean channelPerLoop,
      Optional<GrpcTls> tls,
      Optional<String> localHost) {
    this.localHost = localHost;
    this.self = self;
    this.loops = loops;
    this.edge = edge;
    this.callTimeout = callTimeout;
    this.maxMessageBytes = maxMessageBytes;
    this.channelPerLoop = channelPerLoop;
    this.tls = tls;
  }

  /**
   * Keeps channels to exactly {@code members} (but this node): opens them to new members and to
   * members whose address changed, closes those to members gone.
   */
  synchronized void members(List<Member> members) {
    Map<NodeId, Member> wanted = new HashMap<>();
    for (Member member : members) {
      if (!member.id().equals(self)) {
        wanted.put(member.id(), member);
      }
    }
    for (NodeId gone : List.copyOf(addresses.keySet())) {
      Member now = wanted.get(gone);
      Member was = addresses.get(gone);
      // A member's zone is no part of its address: a move keeps its channels and calls.
      if (now == null || !now.host().equals(was.host()) || now.grpcPort() != was.grpcPort()) {
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
            member.id(), connectOn(channelPerLoop ? loops.loops() : List.of(loops.next()), member));
      }
    }
  }

  /** A channel to {@code member} on each of {@code on}; the first one is the primary. */
  private List<PeerChannel> connectOn(List<EventLoop> on, Member member) {
    List<PeerChannel> channels = new ArrayList<>(on.size());
    for (EventLoop loop : on) {
      channels.add(connect(member, loop, channels.isEmpty()));
    }
    return List.copyOf(channels);
  }

  /**
   * A channel of its own to {@code member}, kept by no table and reporting nothing: the caller
   * closes it.
   */
  PeerChannel alone(Member member) {
    return connect(member, loops.next(), false);
  }

  /**
   * @param primary whether this channel reports the peer's returns (the others follow it)
   */
  private PeerChannel connect(Member member, EventLoop loop, boolean primary) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(member.host(), member.grpcPort())
            .eventLoopGroup(loop)
            .channelType(loops.socketChannelType());
    localHost.ifPresent(host -> builder.localSocketPicker(new LeavingFrom(host)));
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

  /** Calls {@code listener} each time a peer's connection returns to READY. */
  void onReachable(Consumer<NodeId> listener) {
    reachableListeners.add(listener);
  }

  /**
   * The channel to {@code peer} on the calling thread's loop, else the primary.
   *
   * @throws PeerUnavailableException if {@code peer} is not a member
   */
  PeerChannel channel(NodeId peer) {
    List<PeerChannel> channels = peers.get(peer);
    if (channels == null) {
      throw new PeerUnavailableException(peer, "it is not a member", null);
    }
    for (int i = 1; i < channels.size(); i++) {
      if (channels.get(i).loop().inEventLoop()) {
        return channels.get(i);
      }
    }
    return channels.get(0);
  }

  /** Whether {@code peer}'s primary connection is up or coming up. */
  PeerState state(NodeId peer) {
    List<PeerChannel> channels = peers.get(peer);
    if (channels == null) {
      return new PeerState(false, "not a member");
    }
    ConnectivityState state = channels.get(0).state();
    boolean reachable =
        state != ConnectivityState.TRANSIENT_FAILURE && state != ConnectivityState.SHUTDOWN;
    return new PeerState(reachable, "connection " + state.name().toLowerCase(Locale.ROOT));
  }

  /**
   * Skips the rest of the reconnect back-off of {@code peer}'s channels: it is known to be back.
   */
  void reconnectNow(NodeId peer) {
    peers.getOrDefault(peer, List.of()).forEach(PeerChannel::reconnectNow);
  }

  @Override
  public void close() {
    peers.values().forEach(channels -> channels.forEach(PeerChannel::close));
  }

  /** Binds each connection's local end to one address, any port: the node's one identity. */
  private static final class LeavingFrom extends NettyChannelBuilder.LocalSocketPicker {
    private final String host;

    LeavingFrom(String host) {
      this.host = host;
    }

    @Override
    public SocketAddress createSocketAddress(SocketAddress remote, Attributes attributes) {
      return new InetSocketAddress(host, 0);
    }
  }
}
