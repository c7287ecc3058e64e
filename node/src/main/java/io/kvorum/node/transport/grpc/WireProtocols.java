package io.kvorum.node.transport.grpc;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Operation;
import io.kvorum.proto.replica.v1.ReplicaRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every operation this node's protocols send, with how it rides the wire: the one place that lists
 * the per-protocol mappings ({@link #standard}). The caller's transport looks an operation's codec
 * up here; the server builds its gRPC service from the same codecs.
 */
final class WireProtocols {
  private final Map<Operation<?, ?>, WireCodecs.Codec> calls;
  private final Map<CursorOperation<?>, WireCodecs.Cursor<?, ?>> cursors;
  private final Map<ReplicaRequest.OperationCase, WireCodecs.Exchanged<?, ?>> exchanged;
  private final List<WireCodecs.Unary<?, ?, ?, ?>> unaries;

  private WireProtocols(Builder builder) {
    this.calls = Map.copyOf(builder.calls);
    this.cursors = Map.copyOf(builder.cursors);
    this.exchanged = Collections.unmodifiableMap(new EnumMap<>(builder.exchanged));
    this.unaries = List.copyOf(builder.unaries);
  }

  /**
   * The mappings of every protocol of this release: one line per protocol.
   *
   * @param self this node, which answers hellos in its name
   * @param protocol the inter-node protocol this node speaks, carried by hellos
   */
  static WireProtocols standard(NodeId self, PeerProtocol protocol) {
    Builder wire = new Builder();
    ReplicaMapping.register(wire);
    CatchUpMapping.register(wire, self, protocol);
    PaxosMapping.register(wire);
    RepairMapping.register(wire);
    MembershipMapping.register(wire);
    ClockMapping.register(wire);
    ChangesMapping.register(wire);
    return wire.build();
  }

  /** How {@code operation} rides the wire: on the Exchange stream or as a call of its own. */
  WireCodecs.Codec codec(Operation<?, ?> operation) {
    WireCodecs.Codec codec = calls.get(operation);
    if (codec == null) {
      throw new IllegalArgumentException("no wire mapping for the operation " + operation);
    }
    return codec;
  }

  /** How {@code operation} rides the wire. */
  @SuppressWarnings("unchecked") // registered under its own operation
  <Q> WireCodecs.Cursor<Q, ?> cursor(CursorOperation<Q> operation) {
    WireCodecs.Cursor<?, ?> codec = cursors.get(operation);
    if (codec == null) {
      throw new IllegalArgumentException("no wire mapping for the operation " + operation);
    }
    return (WireCodecs.Cursor<Q, ?>) codec;
  }

  /** The codec of a request that arrived on the Exchange stream, or null for an unknown case. */
  WireCodecs.Exchanged<?, ?> exchanged(ReplicaRequest.OperationCase requestCase) {
    return exchanged.get(requestCase);
  }

  /** Every operation carried as a unary call. */
  List<WireCodecs.Unary<?, ?, ?, ?>> unaries() {
    return unaries;
  }

  /** Every cursor operation. */
  List<WireCodecs.Cursor<?, ?>> cursors() {
    return List.copyOf(cursors.values());
  }

  /** Collects the mappings; an operation, a method or an Exchange case mapped twice is refused. */
  static final class Builder {
    private final Map<Operation<?, ?>, WireCodecs.Codec> calls = new HashMap<>();
    private final Map<CursorOperation<?>, WireCodecs.Cursor<?, ?>> cursors = new HashMap<>();
    private final Map<ReplicaRequest.OperationCase, WireCodecs.Exchanged<?, ?>> exchanged =
        new EnumMap<>(ReplicaRequest.OperationCase.class);
    private final List<WireCodecs.Unary<?, ?, ?, ?>> unaries = new ArrayList<>();
    private final List<String> methods = new ArrayList<>();

    Builder add(WireCodecs.Exchanged<?, ?> codec) {
      once(calls.put(codec.operation(), codec), codec.operation().name());
      once(exchanged.put(codec.requestCase(), codec), codec.requestCase().name());
      return this;
    }

    Builder add(WireCodecs.Unary<?, ?, ?, ?> codec) {
      once(calls.put(codec.operation(), codec), codec.operation().name());
      method(codec.method().getFullMethodName());
      unaries.add(codec);
      return this;
    }

    Builder add(WireCodecs.Cursor<?, ?> codec) {
      once(cursors.put(codec.operation(), codec), codec.operation().name());
      method(codec.method().getFullMethodName());
      return this;
    }

    private void method(String name) {
      if (methods.contains(name)) {
        throw new IllegalStateException(name + " is mapped twice");
      }
      methods.add(name);
    }

    private static void once(Object previous, String what) {
      if (previous != null) {
        throw new IllegalStateException(what + " is mapped twice");
      }
    }

    WireProtocols build() {
      return new WireProtocols(this);
    }
  }
}
