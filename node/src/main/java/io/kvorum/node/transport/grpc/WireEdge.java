package io.kvorum.node.transport.grpc;

import com.google.protobuf.Descriptors;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.kvorum.node.clock.Clock;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.kvorum.node.core.Version;
import io.kvorum.proto.replica.v1.CallFailure;
import io.kvorum.proto.replica.v1.ReplicaError;
import io.kvorum.proto.replica.v1.ReplicaRequestBatch;
import io.kvorum.proto.replica.v1.ReplicaResponseBatch;
import io.kvorum.proto.replica.v1.ScanBatch;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge every inter-node message of this node crosses, in either direction, whatever protocol it
 * belongs to (Exchange batches, the requests and answers of every other call, the batches of
 * cursors, and the trailers of failed calls). It is installed as an interceptor on the node's
 * server ({@link #server()}) and on every channel to a peer ({@link #client()}), so no message can
 * pass without it.
 *
 * <p><b>The clock</b> (SPEC §5): every message sent is stamped with this node's current clock;
 * every message received moves the clock past the sender's stamp before anyone reads the message.
 *
 * <p><b>Errors</b>, one table each way (as etcd's {@code rpctypes}): a replica's own failure
 * travels as the {@link ReplicaError.Code} of its {@link FailureKind} ({@link #CODES}) and is
 * raised at the caller as the same kind of error ({@link #fromWire}); a failure to get an answer at
 * all is the transport's and becomes {@link PeerUnavailableException}.
 *
 * <table>
 *   <caption>errors across the wire</caption>
 *   <tr><th>kind on the replica<th>code<th>status (the other calls)<th>raised at the caller
 *   <tr><td>{@link FailureKind#OVERLOADED}<td>OVERLOADED<td>RESOURCE_EXHAUSTED
 *       <td>{@link OverloadedException}
 *   <tr><td>{@link FailureKind#INVALID_REQUEST}<td>INVALID<td>INVALID_ARGUMENT
 *       <td>{@link InvalidRequestException}
 *   <tr><td>{@link FailureKind#NO_SPACE}<td>NO_SPACE<td>RESOURCE_EXHAUSTED
 *       <td>{@link StorageException} NO_SPACE
 *   <tr><td>{@link FailureKind#UNAVAILABLE}<td>UNAVAILABLE<td>UNAVAILABLE
 *       <td>{@link UnavailableException}
 *   <tr><td>{@link FailureKind#CLOCK_OFFSET} (a version too far ahead)<td>CLOCK_OFFSET
 *       <td>FAILED_PRECONDITION<td>{@link ClockOffsetException}, with its offsets
 *   <tr><td>any other kind (storage failure, a bug), logged at warn<td>INTERNAL<td>INTERNAL
 *       <td>{@link StorageException} FAILURE
 *   <tr><td>(no answer: no connection, deadline, broken stream, a status without the trailer)
 *       <td>—<td>any<td>{@link PeerUnavailableException}
 * </table>
 *
 * <p>Exchange carries the code in each failed response; the other calls end with the status above
 * and a {@link CallFailure} trailer holding the code and the server's clock.
 */
final class WireEdge {
  private static final Logger log = LoggerFactory.getLogger(WireEdge.class);

  /** The trailer of a Scan or Hello that the server failed. */
  static final Metadata.Key<CallFailure> FAILURE =
      ProtoUtils.keyForProto(CallFailure.getDefaultInstance());

  private final Clock clock;

  WireEdge(Clock clock) {
    this.clock = clock;
  }

  /** For the node's server: stamps what it sends, observes what it receives, codes failures. */
  ServerInterceptor server() {
    return new ServerSide();
  }

  /** For every channel to a peer: stamps what it sends, observes what it receives. */
  ClientInterceptor client() {
    return new ClientSide();
  }

  // ---- the clock ------------------------------------------------------------------------------

  /**
   * The {@code hlc} field of every message type of the wire, found once per type: each message of
   * the inter-node protocol has one (the proto file's rule), and the transport's own batches are
   * read and written without reflection.
   */
  private static final ConcurrentMap<Descriptors.Descriptor, Descriptors.FieldDescriptor> HLC =
      new ConcurrentHashMap<>();

  private static Descriptors.FieldDescriptor hlcField(Message message) {
    return HLC.computeIfAbsent(
        message.getDescriptorForType(),
        type -> {
          Descriptors.FieldDescriptor field = type.findFieldByName("hlc");
          if (field == null || field.getJavaType() != Descriptors.FieldDescriptor.JavaType.LONG) {
            throw new IllegalArgumentException(notOurs(message));
          }
          return field;
        });
  }

  @SuppressWarnings("unchecked") // each message is rebuilt as its own type
  private <T> T stamped(T message) {
    long hlc = clock.current().value();
    Object stamped =
        switch (message) {
          case ReplicaRequestBatch m -> m.toBuilder().setHlc(hlc).build();
          case ReplicaResponseBatch m -> m.toBuilder().setHlc(hlc).build();
          case ScanBatch m -> m.toBuilder().setHlc(hlc).build();
          case Message m -> m.toBuilder().setField(hlcField(m), hlc).build();
          default -> throw new IllegalArgumentException(notOurs(message));
        };
    return (T) stamped;
  }

  private void observe(Object message) {
    follow(
        switch (message) {
          case ReplicaRequestBatch m -> m.getHlc();
          case ReplicaResponseBatch m -> m.getHlc();
          case ScanBatch m -> m.getHlc();
          case Message m -> (long) (Long) m.getField(hlcField(m));
          default -> throw new IllegalArgumentException(notOurs(message));
        });
  }

  /** Follows a peer's stamp; a missing (0) or garbled (negative) one teaches nothing. */
  private void follow(long hlc) {
    if (hlc > 0) {
      clock.observe(new Version(hlc));
    }
  }

  private static String notOurs(Object message) {
    return "not an inter-node message: " + message.getClass().getName();
  }

  // ---- errors: replica to wire ----------------------------------------------------------------

  /**
   * The code each kind of failure travels as; any other kind (a storage failure, a bug, a failure
   * the replica met calling others) is the replica's INTERNAL failure.
   */
  private static final Map<FailureKind, ReplicaError.Code> CODES =
      new EnumMap<>(
          Map.of(
              FailureKind.OVERLOADED, ReplicaError.Code.OVERLOADED,
              FailureKind.INVALID_REQUEST, ReplicaError.Code.INVALID,
              FailureKind.NO_SPACE, ReplicaError.Code.NO_SPACE,
              FailureKind.UNAVAILABLE, ReplicaError.Code.UNAVAILABLE,
              FailureKind.CLOCK_OFFSET, ReplicaError.Code.CLOCK_OFFSET));

  /** How a replica's failure travels. */
  static ReplicaError toWire(Throwable failure) {
    Throwable cause = Failures.unwrap(failure);
    ReplicaError.Code code = CODES.getOrDefault(FailureKind.of(cause), ReplicaError.Code.INTERNAL);
    if (code == ReplicaError.Code.INTERNAL) {
      log.warn("a replica request failed", cause);
    }
    ReplicaError.Builder error =
        ReplicaError.newBuilder().setCode(code).setMessage(String.valueOf(cause.getMessage()));
    if (cause instanceof ClockOffsetException e) {
      error.setOffsetMillis(e.offsetMillis()).setMaxOffsetMillis(e.maxOffsetMillis());
    }
    return error.build();
  }

  /** The status a failed Scan or Hello ends with (the trailer carries the exact code). */
  private static Status status(ReplicaError.Code code) {
    return switch (code) {
      case OVERLOADED, NO_SPACE -> Status.RESOURCE_EXHAUSTED;
      case INVALID -> Status.INVALID_ARGUMENT;
      case UNAVAILABLE -> Status.UNAVAILABLE;
      case CLOCK_OFFSET -> Status.FAILED_PRECONDITION;
      case INTERNAL, CODE_UNSPECIFIED, UNRECOGNIZED -> Status.INTERNAL;
    };
  }

  // ---- errors: wire to caller -----------------------------------------------------------------

  /** What a replica's coded failure is at the caller. */
  static KvorumException fromWire(NodeId peer, ReplicaError error) {
    Throwable reported = new ReportedByPeer(error.getMessage());
    String request = "a request to " + peer;
    return switch (error.getCode()) {
      case OVERLOADED -> new OverloadedException("replica " + peer);
      case INVALID ->
          new InvalidRequestException(null, peer + " refused the request: " + error.getMessage());
      case NO_SPACE ->
          new StorageException(StorageException.Kind.NO_SPACE, request, null, reported);
      case UNAVAILABLE -> new UnavailableException(peer + " does not serve: " + error.getMessage());
      case CLOCK_OFFSET ->
          new ClockOffsetException(
              peer + " refused the write: " + error.getMessage(),
              error.getOffsetMillis(),
              error.getMaxOffsetMillis());
      case INTERNAL, CODE_UNSPECIFIED, UNRECOGNIZED ->
          new StorageException(StorageException.Kind.FAILURE, request, null, reported);
    };
  }

  /**
   * What a failed Scan or Hello call (the error its observer got) is at the caller: the replica's
   * coded failure if the call carries one, else the transport's.
   *
   * @param what the call, for the message ("its scan")
   */
  static KvorumException fromStatus(NodeId peer, String what, Throwable failure) {
    Metadata trailers = Status.trailersFromThrowable(failure);
    CallFailure coded = trailers == null ? null : trailers.get(FAILURE);
    if (coded != null) {
      return fromWire(peer, coded.getError());
    }
    Status status = Status.fromThrowable(failure);
    return new PeerUnavailableException(
        peer,
        what
            + " failed: "
            + status.getCode()
            + (status.getDescription() == null ? "" : " (" + status.getDescription() + ")"),
        failure);
  }

  /** The message of a replica's failure, as the cause of the error raised for it at the caller. */
  private static final class ReportedByPeer extends Exception {
    private static final long serialVersionUID = 1L;

    ReportedByPeer(String message) {
      super(message, null, false, false);
    }
  }

  // ---- the interceptors -----------------------------------------------------------------------

  private final class ServerSide implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      ServerCall<Q, R> edged =
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(R message) {
              super.sendMessage(stamped(message));
            }

            @Override
            public void close(Status status, Metadata trailers) {
              super.close(coded(status, trailers), trailers);
            }
          };
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(edged, headers)) {
        @Override
        public void onMessage(Q message) {
          observe(message);
          super.onMessage(message);
        }
      };
    }

    /**
     * A handler that fails its call passes the domain error (gRPC wraps it as UNKNOWN with the
     * error as cause): it leaves with its code, in the status and in the trailer. Statuses gRPC
     * made itself (cancelled, deadline, too large) stay as they are: the transport's failures.
     */
    private Status coded(Status status, Metadata trailers) {
      if (status.getCode() != Status.Code.UNKNOWN || status.getCause() == null) {
        return status;
      }
      ReplicaError error = toWire(status.getCause());
      trailers.put(
          FAILURE,
          CallFailure.newBuilder().setHlc(clock.current().value()).setError(error).build());
      return status(error.getCode()).withDescription(error.getMessage());
    }
  }

  private final class ClientSide implements ClientInterceptor {
    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onMessage(R message) {
                  observe(message);
                  super.onMessage(message);
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                  CallFailure failure = trailers.get(FAILURE);
                  if (failure != null) {
                    follow(failure.getHlc());
                  }
                  super.onClose(status, trailers);
                }
              },
              headers);
        }

        @Override
        public void sendMessage(Q message) {
          super.sendMessage(stamped(message));
        }
      };
    }
  }
}
