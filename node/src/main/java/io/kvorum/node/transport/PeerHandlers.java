package io.kvorum.node.transport;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.core.UnavailableException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a node serves its peers: one handler per operation, registered by the protocol that owns it.
 * A transport's receiving side (the gRPC server, the in-memory network of tests) looks the handler
 * up for every request that arrives and hands it the request; it knows no protocol.
 *
 * <p>Contract of every handler: it never blocks the caller (it runs on the transport's threads, the
 * event loops); it answers with a future, failing with the node's typed failures ({@link
 * io.kvorum.node.core.KvorumException}), which the transport carries to the caller as themselves;
 * an {@link IllegalArgumentException} it throws says the request is malformed and reaches the
 * caller as an invalid request. An operation nobody registered is answered "not served here"
 * ({@link UnavailableException}), as a node that serves no membership answers a join.
 */
public final class PeerHandlers {
  /** Serves one operation. */
  @FunctionalInterface
  public interface Handler<Q, A> {
    CompletableFuture<A> handle(Q request);
  }

  /**
   * Serves several requests of one operation that arrived together (the writes of one message) as
   * one: ideally one storage batch. A failure fails every one of them, though some may have been
   * applied.
   */
  @FunctionalInterface
  public interface BatchHandler<Q> {
    CompletableFuture<Void> handleAll(List<Q> requests);
  }

  /** Serves one cursor operation: opens the cursor over the records it answers. */
  @FunctionalInterface
  public interface CursorHandler<Q> {
    ScanCursor open(Q request);
  }

  private final Map<Operation<?, ?>, Handler<?, ?>> handlers = new ConcurrentHashMap<>();
  private final Map<Operation<?, ?>, BatchHandler<?>> batches = new ConcurrentHashMap<>();
  private final Map<CursorOperation<?>, CursorHandler<?>> cursors = new ConcurrentHashMap<>();

  /** Serves {@code operation} with {@code handler}; one handler per operation. */
  public <Q, A> PeerHandlers on(Operation<Q, A> operation, Handler<Q, A> handler) {
    register(handlers, operation, handler);
    return this;
  }

  /**
   * Serves {@code operation} with {@code handler}, and the requests of it that arrive together with
   * {@code batch}.
   */
  public <Q> PeerHandlers on(
      Operation<Q, Void> operation, Handler<Q, Void> handler, BatchHandler<Q> batch) {
    register(handlers, operation, handler);
    register(batches, operation, batch);
    return this;
  }

  /** Serves {@code operation} with {@code handler}. */
  public <Q> PeerHandlers on(CursorOperation<Q> operation, CursorHandler<Q> handler) {
    register(cursors, operation, handler);
    return this;
  }

  private static <K, V> void register(Map<K, V> map, K operation, V handler) {
    Objects.requireNonNull(handler, "handler");
    if (map.putIfAbsent(operation, handler) != null) {
      throw new IllegalStateException(operation + " is served already");
    }
  }

  /** Answers one request of {@code operation}: its handler's answer, or "not served here". */
  @SuppressWarnings("unchecked") // registered for that operation, so of its types
  public <Q, A> CompletableFuture<A> handle(Operation<Q, A> operation, Q request) {
    Handler<Q, A> handler = (Handler<Q, A>) handlers.get(operation);
    if (handler == null) {
      return CompletableFuture.failedFuture(notServed(operation.name()));
    }
    try {
      return handler.handle(request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(typed(e));
    }
  }

  /**
   * Answers several requests of {@code operation} that arrived together: as one if it has a batch
   * handler, else one by one; completes once all are answered, failed if one failed.
   */
  @SuppressWarnings("unchecked") // registered for that operation, so of its types
  public <Q> CompletableFuture<Void> handleAll(Operation<Q, Void> operation, List<Q> requests) {
    BatchHandler<Q> batch = (BatchHandler<Q>) batches.get(operation);
    if (batch == null) {
      return CompletableFuture.allOf(
          requests.stream().map(r -> handle(operation, r)).toArray(CompletableFuture[]::new));
    }
    try {
      return batch.handleAll(requests);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(typed(e));
    }
  }

  /** Whether requests of {@code operation} that arrive together are best served as one. */
  public boolean batches(Operation<?, ?> operation) {
    return batches.containsKey(operation);
  }

  /** Opens the cursor of one request of {@code operation}, or a cursor failing "not served". */
  @SuppressWarnings("unchecked") // registered for that operation, so of its type
  public <Q> ScanCursor open(CursorOperation<Q> operation, Q request) {
    CursorHandler<Q> handler = (CursorHandler<Q>) cursors.get(operation);
    if (handler == null) {
      return ScanCursor.failed(notServed(operation.name()));
    }
    try {
      return handler.open(request);
    } catch (RuntimeException e) {
      return ScanCursor.failed(typed(e));
    }
  }

  /** A handler's malformed-request refusal as the invalid request it is; anything else as is. */
  private static RuntimeException typed(RuntimeException e) {
    return e instanceof IllegalArgumentException
        ? new InvalidRequestException(null, e.getMessage())
        : e;
  }

  private static UnavailableException notServed(String operation) {
    return new UnavailableException(operation + " is not served here");
  }
}
