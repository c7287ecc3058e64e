package io.kvorum.node.transport;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.ScanCursor;
import io.kvorum.node.topology.Member;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Carries the protocols' requests to other nodes and their answers back: it knows the operations
 * ({@link Operation}, {@link CursorOperation}) and the peers, not what the requests mean. The
 * protocols own their messages, the calls they make and the handlers that serve them ({@link
 * PeerHandlers}). Every implementation MUST:
 *
 * <ul>
 *   <li><b>Carry the clock both ways</b> (SPEC §5). Every message sent to a peer carries this
 *       node's current clock ({@link io.kvorum.node.clock.Clock#current()}, not a freshly issued
 *       version), and the peer moves its clock past it ({@link io.kvorum.node.clock.Clock#observe})
 *       before serving the request. Every message back (an answer, a failure, a batch of a cursor)
 *       carries the peer's clock, and this node observes it before the returned future completes.
 *       So a node that has seen a peer's answer issues versions past everything that peer had seen.
 *   <li><b>Deliver the peer's errors as themselves.</b> A failure the peer's handler raised arrives
 *       as the same {@link io.kvorum.node.core.KvorumException}, of the same {@link
 *       io.kvorum.node.core.FailureKind}: {@link io.kvorum.node.core.OverloadedException}, {@link
 *       io.kvorum.node.core.StorageException} of the same kind (a full disk is NO_SPACE), {@link
 *       io.kvorum.node.core.UnavailableException}, {@link
 *       io.kvorum.node.core.InvalidRequestException}, {@link
 *       io.kvorum.node.core.ClockOffsetException} with its offsets; anything else the peer failed
 *       with arrives as a {@link io.kvorum.node.core.StorageException} FAILURE. {@link
 *       PeerUnavailableException} means the transport got no answer: no connection, no answer
 *       within the deadline, a broken connection, a closed transport (and, from decorators, an open
 *       circuit breaker or a full bulkhead). No failure promises that a write was not applied.
 *   <li><b>Keep deadlines.</b> Every returned future completes, with the answer or a failure,
 *       within the operation's {@link Deadline} even if the peer never answers (for a cursor: each
 *       batch). A call waiting on a connection that breaks fails at once rather than at its
 *       deadline.
 *   <li><b>Answer each call once, with its own answer</b>, whatever the number of concurrent calls,
 *       their grouping on the wire, delays, losses and reconnections. Calls to one peer are not
 *       ordered: answers come back in any order, and concurrent writes may be applied in any order
 *       (last-writer-wins makes that harmless). A cursor's batches come in key order.
 *   <li><b>Never block.</b> Methods may be called from any thread, including from completions of
 *       this transport's futures; futures may complete on the transport's I/O threads, so what runs
 *       on their completion must not block either.
 * </ul>
 *
 * <p>{@code PeerTransportContract} in the tests checks all of it for every implementation.
 */
public interface PeerTransport extends AutoCloseable {
  /** Sends {@code request} of {@code operation} to {@code peer}; its answer, or a failure. */
  <Q, A> CompletableFuture<A> call(NodeId peer, Operation<Q, A> operation, Q request);

  /** Opens {@code operation} on {@code peer}: a cursor over the records it answers. */
  <Q> ScanCursor open(NodeId peer, CursorOperation<Q> operation, Q request);

  /**
   * Sends {@code request} to the node listening at {@code host}:{@code port}, which need not be a
   * peer of this transport (a member asked to admit this node): over a connection of its own,
   * closed once it answered. Never guarded.
   */
  <Q, A> CompletableFuture<A> callAt(String host, int port, Operation<Q, A> operation, Q request);

  /**
   * The members this transport keeps connections to from now on (this node among them or not):
   * connections to new ones open, those to members no longer listed close.
   */
  void members(List<Member> members);

  /** How this transport sees {@code peer} now. */
  PeerState state(NodeId peer);

  /** Calls {@code listener} whenever a peer becomes reachable again (e.g. its connection is up). */
  void onPeerReachable(Consumer<NodeId> listener);

  /**
   * {@code peer} has just shown that it is alive (it said hello): forget what its absence taught
   * (connection back-off, open circuit breaker) so that calls to it go through at once.
   */
  void peerAnnounced(NodeId peer);

  @Override
  void close();

  /**
   * A peer as a transport sees it.
   *
   * @param reachable whether calls are expected to get through
   * @param detail why not, or the state of its circuit breaker ("closed", "open", "half_open")
   */
  record PeerState(boolean reachable, String detail) {}
}
