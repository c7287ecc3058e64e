package io.kvorum.node.transport.grpc;

import io.grpc.stub.StreamObserver;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The answer of a unary call to a peer, as a future: the value read from the response, or the
 * call's failure as the {@link WireEdge} reads it. A response whose value does not decode is the
 * peer's fault ({@link PeerUnavailableException}), and so is a call that ends without a response,
 * unless the call has a value for that; a response refused for what it says (a protocol this node
 * cannot talk to) fails the call with that refusal.
 *
 * @param <R> the response
 * @param <V> the value the caller waits for
 */
final class UnaryAnswer<R, V> implements StreamObserver<R> {
  private final NodeId peer;
  private final String what;
  private final Function<R, V> value;
  private final String noAnswer;
  private final V ifNoAnswer;
  private final CompletableFuture<V> result = new CompletableFuture<>();

  private UnaryAnswer(
      NodeId peer, String what, Function<R, V> value, String noAnswer, V ifNoAnswer) {
    this.peer = peer;
    this.what = what;
    this.value = value;
    this.noAnswer = noAnswer;
    this.ifNoAnswer = ifNoAnswer;
  }

  /**
   * Fails with {@code noAnswer} if the call ends without a response.
   *
   * @param what the call, for the messages of its failures ("its ping")
   * @param value the value of a response; an {@link IllegalArgumentException} says it is garbled
   */
  static <R, V> UnaryAnswer<R, V> of(
      NodeId peer, String what, String noAnswer, Function<R, V> value) {
    return new UnaryAnswer<>(peer, what, value, noAnswer, null);
  }

  /** As {@link #of}, but answers {@code ifNoAnswer} if the call ends without a response. */
  static <R, V> UnaryAnswer<R, V> orElse(
      NodeId peer, String what, V ifNoAnswer, Function<R, V> value) {
    return new UnaryAnswer<>(peer, what, value, null, ifNoAnswer);
  }

  /** Completes once, when the call answers, fails or ends. */
  CompletableFuture<V> result() {
    return result;
  }

  @Override
  public void onNext(R response) {
    try {
      result.complete(value.apply(response));
    } catch (IllegalArgumentException e) {
      result.completeExceptionally(
          new PeerUnavailableException(peer, what + ": " + e.getMessage(), e));
    } catch (KvorumException e) {
      result.completeExceptionally(e);
    }
  }

  @Override
  public void onError(Throwable error) {
    result.completeExceptionally(WireEdge.fromStatus(peer, what, error));
  }

  @Override
  public void onCompleted() {
    if (noAnswer == null) {
      result.complete(ifNoAnswer);
    } else {
      result.completeExceptionally(new PeerUnavailableException(peer, noAnswer, null));
    }
  }
}
