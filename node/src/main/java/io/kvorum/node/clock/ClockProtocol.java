package io.kvorum.node.clock;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.StorageReport;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;
import io.kvorum.node.transport.PeerTransport;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The clock protocol between nodes: a ping asks a peer for its wall clock, to measure the offset to
 * it NTP-style ({@link ClockOffsets}); the answer also carries the peer's storage figures, which
 * {@code /v0/cluster} shows. Its message, its caller ({@link Pings}) and its handler ({@link
 * #serve}).
 */
public final class ClockProtocol {
  /** A peer's wall clock. Carries the clock both ways and keeps the request deadline. */
  public static final Operation<Ping, PeerTime> PING = Operation.of("ping");

  private ClockProtocol() {}

  /** A ping: it asks for nothing but the answer. */
  public record Ping() {
    public static final Ping INSTANCE = new Ping();
  }

  /**
   * A ping's answer.
   *
   * @param wallMillis the peer's wall clock when it answered, Unix milliseconds
   * @param storage the peer's storage figures; empty when it could not read them (or is of a
   *     release that did not send them)
   */
  public record PeerTime(long wallMillis, Optional<StorageReport> storage) {}

  /**
   * Answers pings with {@code wall}, and {@code storage}'s figures when it has them.
   *
   * @param storage this node's storage figures, read on the transport's threads: must be cheap
   */
  public static void serve(
      PeerHandlers handlers, LongSupplier wall, Supplier<Optional<StorageReport>> storage) {
    handlers.on(
        PING,
        ping -> CompletableFuture.completedFuture(new PeerTime(wall.getAsLong(), storage.get())));
  }

  /**
   * The caller's side: the peers' wall clocks for {@link ClockOffsets}, and the storage figures
   * each peer sent in its latest answer.
   */
  public static final class Pings implements PeerClocks {
    private final PeerTransport transport;
    private final Map<NodeId, StorageReport> reported = new ConcurrentHashMap<>();

    public Pings(PeerTransport transport) {
      this.transport = transport;
    }

    @Override
    public CompletableFuture<Long> wallClock(NodeId peer) {
      return transport
          .call(peer, PING, Ping.INSTANCE)
          .thenApply(
              time -> {
                time.storage().ifPresent(s -> reported.put(peer, s));
                return time.wallMillis();
              });
    }

    @Override
    public boolean reachable(NodeId peer) {
      return transport.state(peer).reachable();
    }

    /**
     * What {@code peer} said of its storage in its latest answer to a ping; empty if it never
     * answered one since this node started, or said nothing of it.
     */
    public Optional<StorageReport> reportedStorage(NodeId peer) {
      return Optional.ofNullable(reported.get(peer));
    }
  }
}
