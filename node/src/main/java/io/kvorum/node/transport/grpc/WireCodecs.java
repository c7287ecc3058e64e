package io.kvorum.node.transport.grpc;

import io.grpc.MethodDescriptor;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import io.kvorum.proto.replica.v1.ReplicaResponse;
import io.kvorum.proto.replica.v1.ScanBatch;

/**
 * How an operation of a protocol rides the wire: one of three shapes, each a pair of mappings
 * between the protocol's messages and protobuf's. Every decoding throws {@link
 * IllegalArgumentException} for a message that does not decode (a garbled or foreign one): on the
 * serving side the request's fault (an invalid request), on the calling side the peer's (no valid
 * answer).
 */
final class WireCodecs {
  private WireCodecs() {}

  /** Any of the three shapes, for the registry. */
  sealed interface Codec permits Exchanged, Unary, Cursor {}

  /**
   * An operation carried on the shared Exchange stream: its request is one case of {@link
   * ReplicaRequest}'s oneof, its answer one case of {@link ReplicaResponse}'s. For the small, many
   * requests of client traffic (replica reads and writes, Paxos phases), batched with no delay.
   */
  non-sealed interface Exchanged<Q, A> extends Codec {
    Operation<Q, A> operation();

    ReplicaRequest.OperationCase requestCase();

    void putRequest(ReplicaRequest.Builder message, Q request);

    Q takeRequest(ReplicaRequest message);

    void putAnswer(ReplicaResponse.Builder message, A answer);

    A takeAnswer(NodeId peer, ReplicaResponse message);
  }

  /** An operation carried as a unary call of its own gRPC method. */
  non-sealed interface Unary<Q, A, P, R> extends Codec {
    Operation<Q, A> operation();

    MethodDescriptor<P, R> method();

    P encode(Q request);

    Q decode(P message);

    R encodeAnswer(A answer);

    /** The answer of {@code peer}; may refuse it (a protocol this node cannot talk to). */
    A decodeAnswer(NodeId peer, R message);

    /** What the caller gets if the call ends without an answer; null: that is a failure. */
    default A ifNoAnswer() {
      return null;
    }
  }

  /** A cursor operation carried as a server-streaming call of {@link ScanBatch}es. */
  non-sealed interface Cursor<Q, P> extends Codec {
    CursorOperation<Q> operation();

    MethodDescriptor<P, ScanBatch> method();

    P encode(Q request);

    Q decode(P message);
  }
}
