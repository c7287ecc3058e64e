package io.kvorum.node.transport.grpc;

import io.grpc.ConnectivityState;
import io.grpc.stub.ClientCalls;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.topology.Member;
import io.kvorum.node.topology.Topology;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerTransport;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link PeerTransport} over gRPC: channels to every peer on the node's event loops ({@link
 * PeerChannels}); each operation as its protocol's mapping says ({@link WireProtocols}): the small,
 * many requests of client traffic batched on one long-lived Exchange stream per channel ({@link
 * ReplicaStream}), cursors as server-streaming calls ({@link GrpcScanCursor}), the rest as unary
 * calls. Every message passes the node's {@link WireEdge}, which carries the clock and the peers'
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
   * How long a call of the catch-up deadline (a hello) waits for a channel that was backing off to
   * reconnect: a peer on a LAN that listens connects within milliseconds.
   */
  static final Duration FRESH_ATTEMPT = Duration.ofMillis(500);

  private final Duration callTimeout;
  private final Duration catchUpTimeout;
  private final PeerChannels channels;
  private final WireProtocols wire;

  /**
   * With mutual TLS to every peer when {@code tls} is present: this node presents its certificate
   * and accepts a peer only if the CA signed its certificate and it names the host dialled.
   *
   * @param callTimeout the {@link Deadline#REQUEST} deadline: a replica read or write, one batch of
   *     a scan
   * @param catchUpTimeout the {@link Deadline#CATCH_UP} deadline: a hello, which waits for the peer
   *     to deliver its hints, and a join
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
      Duration catchUpTimeout,
      int maxMessageBytes,
      EventLoops loops,
      boolean channelPerLoop,
      Optional<GrpcTls> tls,
      PeerProtocol protocol) {
    this(
        topology,
        clock,
        callTimeout,
        catchUpTimeout,
        maxMessageBytes,
        loops,
        channelPerLoop,
        tls,
        protocol,
        Optional.empty());
  }

  /**
   * A transport whose connections leave from {@code localHost} ({@code --grpc-host}); from the
   * address the system picks when empty.
   */
  public GrpcPeerTransport(
      Topology topology,
      Clock clock,
      Duration callTimeout,
      Duration catchUpTimeout,
      int maxMessageBytes,
      EventLoops loops,
      boolean channelPerLoop,
      Optional<GrpcTls> tls,
      PeerProtocol protocol,
      Optional<String> localHost) {
    NodeId self = topology.self();
    this.callTimeout = callTimeout;
    this.catchUpTimeout = catchUpTimeout;
    this.wire = WireProtocols.standard(self, protocol);
    this.channels =
        new PeerChannels(
            self,
            loops,
            new WireEdge(clock),
            callTimeout,
            maxMessageBytes,
            channelPerLoop,
            tls,
            localHost);
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
  @SuppressWarnings("unchecked") // the registry maps each operation to a codec of its types
  public <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request) {
    PeerChannel channel = channels.channel(peer);
    return switch (wire.codec(operation)) {
      case WireCodecs.Exchanged<?, ?> codec ->
          exchange(channel, peer, (WireCodecs.Exchanged<Q, A>) codec, request);
      case WireCodecs.Unary<?, ?, ?, ?> codec ->
          operation.deadline() == Deadline.CATCH_UP
              ? afresh(channel, peer, (WireCodecs.Unary<Q, A, ?, ?>) codec, request)
              : unary(channel, peer, (WireCodecs.Unary<Q, A, ?, ?>) codec, request);
      case WireCodecs.Cursor<?, ?> codec ->
          throw new IllegalArgumentException(operation + " is a cursor operation");
    };
  }

  private <Q, A> CompletableFuture<A> exchange(
      PeerChannel channel, NodeId peer, WireCodecs.Exchanged<Q, A> codec, Q request) {
    ReplicaRequest.Builder message = ReplicaRequest.newBuilder();
    codec.putRequest(message, request);
    return channel
        .call(message)
        .thenApply(
            response -> {
              try {
                return codec.takeAnswer(peer, response);
              } catch (IllegalArgumentException e) {
                throw channel.unavailable(codec.operation() + ": " + e.getMessage(), e);
              }
            });
  }

  /**
   * A call of the catch-up deadline (a hello) on a fresh connection attempt. A channel still
   * backing off from a refusal made before the peer listened would fail the call at once with that
   * old refusal (gRPC keeps a channel in TRANSIENT_FAILURE until it connects), and two nodes
   * starting together could each miss the other's hello, both reporting ready with channels that
   * fail every call until their back-off ends, seconds later. So such a channel reconnects now, and
   * the call waits for it up to {@link #FRESH_ATTEMPT} (what a peer that is really down costs a
   * starting node's catch-up).
   */
  private <Q, A> CompletableFuture<A> afresh(
      PeerChannel channel, NodeId peer, WireCodecs.Unary<Q, A, ?, ?> codec, Q request) {
    if (channel.state() != ConnectivityState.TRANSIENT_FAILURE) {
      return unary(channel, peer, codec, request);
    }
    channels.reconnectNow(peer);
    return channel
        .readyWithin(FRESH_ATTEMPT)
        .thenCompose(ready -> unary(channel, peer, codec, request));
  }

  private <Q, A, P, R> CompletableFuture<A> unary(
      PeerChannel channel, NodeId peer, WireCodecs.Unary<Q, A, P, R> codec, Q request) {
    String what = "its " + codec.operation().name();
    UnaryAnswer<R, A> answer =
        codec.ifNoAnswer() == null
            ? UnaryAnswer.of(
                peer, what, what + " ended without an answer", r -> codec.decodeAnswer(peer, r))
            : UnaryAnswer.orElse(peer, what, codec.ifNoAnswer(), r -> codec.decodeAnswer(peer, r));
    ReplicaGrpc.ReplicaStub stub =
        channel
            .stub()
            .withDeadlineAfter(
                codec.operation().deadline().of(callTimeout, catchUpTimeout).toMillis(),
                TimeUnit.MILLISECONDS);
    ClientCalls.asyncUnaryCall(
        stub.getChannel().newCall(codec.method(), stub.getCallOptions()),
        codec.encode(request),
        answer);
    return answer.result();
  }

  @Override
  public <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request) {
    return GrpcScanCursor.open(
        channels.channel(peer),
        operation.deadline().of(callTimeout, catchUpTimeout),
        wire.cursor(operation),
        request);
  }

  /**
   * A channel of its own to the node asked, closed once it answered: it is not a peer yet, and may
   * never be one under that address.
   */
  @Override
  @SuppressWarnings("unchecked") // the registry maps each operation to a codec of its types
  public <Q, A> CompletableFuture<A> callAt(
      String host, int port, Operation<Q, A> operation, Q request) {
    if (!(wire.codec(operation) instanceof WireCodecs.Unary<?, ?, ?, ?> codec)) {
      throw new IllegalArgumentException(operation + " is not a call of its own");
    }
    NodeId target = NodeId.of((host + "-" + port).replaceAll("[^A-Za-z0-9._-]", "_"));
    PeerChannel channel = channels.alone(new Member(target, host, port));
    CompletableFuture<A> answer =
        unary(channel, target, (WireCodecs.Unary<Q, A, ?, ?>) codec, request);
    // Closing waits for the channel to terminate: not on the event loop that completed the call.
    return answer.whenCompleteAsync((result, error) -> channel.close());
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
