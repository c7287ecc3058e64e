package io.kvorum.node.transport.grpc;

import com.google.protobuf.ByteString;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.kvorum.node.cluster.ClusterState;
import io.kvorum.node.cluster.ClusterStateCodec;
import io.kvorum.node.cluster.Member;
import io.kvorum.node.cluster.Zone;
import io.kvorum.node.core.Entry;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KeyRange;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.netty.EventLoops;
import io.kvorum.node.transport.ReplicaService;
import io.kvorum.proto.replica.v1.GossipRequest;
import io.kvorum.proto.replica.v1.GossipResponse;
import io.kvorum.proto.replica.v1.HandoffRequest;
import io.kvorum.proto.replica.v1.HelloRequest;
import io.kvorum.proto.replica.v1.HelloResponse;
import io.kvorum.proto.replica.v1.JoinRequest;
import io.kvorum.proto.replica.v1.PingRequest;
import io.kvorum.proto.replica.v1.PingResponse;
import io.kvorum.proto.replica.v1.ReplicaGrpc;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.kvorum.proto.replica.v1.ScanBatch;
import io.kvorum.proto.replica.v1.ScanRequest;
import io.kvorum.proto.replica.v1.SegmentsRequest;
import io.kvorum.proto.replica.v1.TreeHashesRequest;
import io.kvorum.proto.replica.v1.TreeHashesResponse;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gRPC face of this node's {@link ReplicaService}. Runs on the node's event loops (direct
 * executor) and never blocks: storage work that may touch the disk completes on the storage
 * executor, a read answered from memory at once. A failure is handed to gRPC as the domain error it
 * is; the node's {@link WireEdge} codes it (and stamps the clock on every message), so nothing here
 * deals with either.
 */
final class ReplicaEndpoint extends ReplicaGrpc.ReplicaImplBase {
  private static final Logger log = LoggerFactory.getLogger(ReplicaEndpoint.class);

  private final NodeId self;
  private final ReplicaService service;
  private final EventLoops loops;
  private final PeerProtocol protocol;
  private final Set<ServedExchange> exchanges = ConcurrentHashMap.newKeySet();

  ReplicaEndpoint(NodeId self, ReplicaService service, EventLoops loops, PeerProtocol protocol) {
    this.self = self;
    this.service = service;
    this.loops = loops;
    this.protocol = protocol;
  }

  @Override
  public void ping(PingRequest request, StreamObserver<PingResponse> responses) {
    CompletableFuture<Long> wall;
    try {
      wall = service.ping();
    } catch (RuntimeException e) {
      wall = CompletableFuture.failedFuture(e);
    }
    wall.whenComplete(
        (millis, error) -> {
          if (error != null) {
            responses.onError(Failures.unwrap(error));
          } else {
            PingResponse.Builder answer = PingResponse.newBuilder().setWallMillis(millis);
            service
                .storageReport()
                .ifPresent(
                    storage ->
                        answer.setRecords(storage.records()).setDiskUsedBytes(storage.diskBytes()));
            responses.onNext(answer.build());
            responses.onCompleted();
          }
        });
  }

  @Override
  public StreamObserver<ReplicaRequestBatch> exchange(
      StreamObserver<ReplicaResponseBatch> responses) {
    // gRPC opens the call on the event loop of its connection: the stream works on that loop.
    ServedExchange exchange =
        new ServedExchange(
            service,
            (ServerCallStreamObserver<ReplicaResponseBatch>) responses,
            loops.current().orElseGet(loops::next),
            exchanges::remove);
    exchanges.add(exchange);
    return exchange;
  }

  /**
   * The node is stopping: every Exchange stream takes no more requests and ends once those it took
   * are answered, so that the server need not wait for its peers to end streams they keep open.
   */
  void endExchanges() {
    exchanges.forEach(ServedExchange::end);
  }

  @Override
  public void scan(ScanRequest request, StreamObserver<ScanBatch> responses) {
    pump(
        responses,
        () ->
            service.scan(
                new KeyRange(
                    ProtoMapping.key(request.getStart()),
                    request.hasEnd()
                        ? Optional.of(ProtoMapping.key(request.getEnd()))
                        : Optional.empty())));
  }

  @Override
  public void treeHashes(TreeHashesRequest request, StreamObserver<TreeHashesResponse> responses) {
    NodeId peer = caller(request.getNodeId(), responses);
    if (peer == null) {
      return;
    }
    int[] positions = request.getPositionsList().stream().mapToInt(p -> p).toArray();
    CompletableFuture<long[]> hashes;
    try {
      hashes = service.treeHashes(peer, request.getLevel(), positions);
    } catch (RuntimeException e) {
      responses.onError(e);
      return;
    }
    hashes.whenComplete(
        (answer, error) -> {
          if (error != null) {
            responses.onError(Failures.unwrap(error));
            return;
          }
          TreeHashesResponse.Builder response = TreeHashesResponse.newBuilder();
          for (long hash : answer) {
            response.addHashes(hash);
          }
          responses.onNext(response.build());
          responses.onCompleted();
        });
  }

  @Override
  public void segments(SegmentsRequest request, StreamObserver<ScanBatch> responses) {
    NodeId peer = caller(request.getNodeId(), responses);
    if (peer == null) {
      return;
    }
    int[] segments = request.getSegmentsList().stream().mapToInt(s -> s).toArray();
    pump(responses, () -> service.segments(peer, segments));
  }

  @Override
  public void handoff(HandoffRequest request, StreamObserver<ScanBatch> responses) {
    NodeId to = request.hasNodeId() ? caller(request.getNodeId(), responses) : null;
    if (request.hasNodeId() && to == null) {
      return;
    }
    pump(
        responses,
        () -> service.handoff(request.getEpoch(), to, ProtoMapping.key(request.getStart())));
  }

  /**
   * Opens a cursor and sends its batches; a cursor that cannot be opened fails the call (a bad
   * argument as an invalid request).
   */
  private static void pump(StreamObserver<ScanBatch> responses, Supplier<ScanCursor> open) {
    ScanCursor cursor;
    try {
      cursor = open.get();
    } catch (IllegalArgumentException e) {
      responses.onError(new InvalidRequestException(null, e.getMessage()));
      return;
    } catch (RuntimeException e) {
      responses.onError(e);
      return;
    }
    new ScanPump((ServerCallStreamObserver<ScanBatch>) responses, cursor).start();
  }

  /** Sends a cursor's batches while the client's flow-control window has room. */
  private static final class ScanPump {
    private final ServerCallStreamObserver<ScanBatch> out;
    private final ScanCursor cursor;
    private boolean fetching;
    private boolean done;

    ScanPump(ServerCallStreamObserver<ScanBatch> out, ScanCursor cursor) {
      this.out = out;
      this.cursor = cursor;
    }

    void start() {
      out.setOnCancelHandler(this::cancel);
      out.setOnReadyHandler(this::pump);
      pump();
    }

    private synchronized void pump() {
      if (done || fetching || !out.isReady()) {
        return;
      }
      fetching = true;
      cursor.next(ProtoMapping.BATCH_ENTRIES, ProtoMapping.BATCH_BYTES).whenComplete(this::send);
    }

    private void send(List<Entry> batch, Throwable error) {
      synchronized (this) {
        fetching = false;
        if (done) {
          return;
        }
        if (error != null) {
          finish();
          out.onError(Failures.unwrap(error));
          return;
        }
        if (batch.isEmpty()) {
          finish();
          out.onCompleted();
          return;
        }
        out.onNext(ProtoMapping.toProto(batch));
      }
      pump();
    }

    private synchronized void cancel() {
      finish();
    }

    private void finish() {
      done = true;
      cursor.close();
    }
  }

  @Override
  public void gossip(GossipRequest request, StreamObserver<GossipResponse> responses) {
    CompletableFuture<ClusterState> answer;
    try {
      answer =
          service.gossip(
              NodeId.of(request.getNodeId()),
              ClusterStateCodec.decode(request.getClusterState().toByteArray()));
    } catch (IllegalArgumentException e) {
      answer =
          CompletableFuture.failedFuture(new InvalidRequestException("gossip", e.getMessage()));
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answerState(answer, responses);
  }

  @Override
  public void join(JoinRequest request, StreamObserver<GossipResponse> responses) {
    CompletableFuture<ClusterState> answer;
    try {
      answer =
          service.join(
              new Member(
                  NodeId.of(request.getNodeId()),
                  request.getHost(),
                  request.getGrpcPort(),
                  Zone.of(request.getZone())));
    } catch (IllegalArgumentException e) {
      answer = CompletableFuture.failedFuture(new InvalidRequestException("join", e.getMessage()));
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answerState(answer, responses);
  }

  private static void answerState(
      CompletableFuture<ClusterState> answer, StreamObserver<GossipResponse> responses) {
    answer.whenComplete(
        (state, error) -> {
          if (error != null) {
            responses.onError(Failures.unwrap(error));
          } else {
            responses.onNext(
                GossipResponse.newBuilder()
                    .setClusterState(ByteString.copyFrom(ClusterStateCodec.encode(state)))
                    .build());
            responses.onCompleted();
          }
        });
  }

  /**
   * The calling node named by a request's {@code node_id}, or null after answering {@code
   * responses} that it is not a node id.
   */
  private static NodeId caller(String nodeId, StreamObserver<?> responses) {
    try {
      return NodeId.of(nodeId);
    } catch (IllegalArgumentException e) {
      responses.onError(new InvalidRequestException("node_id", e.getMessage()));
      return null;
    }
  }

  @Override
  public void hello(HelloRequest request, StreamObserver<HelloResponse> responses) {
    NodeId peer = caller(request.getNodeId(), responses);
    if (peer == null) {
      return;
    }
    Optional<String> refusal = protocol.refusal(peer, request.getProtocol());
    if (refusal.isPresent()) {
      responses.onError(new InvalidRequestException("protocol", refusal.get()));
      return;
    }
    log.info("{} says hello; delivering the hints held for it", peer);
    service
        .hello(peer)
        .whenComplete(
            (delivered, error) -> {
              if (error != null) {
                responses.onError(Failures.unwrap(error));
              } else {
                responses.onNext(
                    HelloResponse.newBuilder()
                        .setNodeId(self.value())
                        .setHintsDelivered(delivered)
                        .setProtocol(protocol.wire())
                        .build());
                responses.onCompleted();
              }
            });
  }
}
