package io.kvorum.node.core;

import static io.kvorum.node.core.FailureKind.Trait.COUNTS_AGAINST_PEER;
import static io.kvorum.node.core.FailureKind.Trait.HINTED;
import static io.kvorum.node.core.FailureKind.Trait.RETRYABLE;
import static io.kvorum.node.core.FailureKind.Trait.RETRY_AFTER;
import static io.kvorum.node.core.FailureKind.Trait.SHARED;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a failure means, one row per kind of failure kvorum knows, read by everyone who must decide
 * something about a failure: the circuit breaker (does it count against the peer?), the write
 * coordinator and hinted handoff (is a hint kept?), the failure report of a quorum (do the failed
 * replicas share one answer?) and both edges (which HTTP answer; which wire code, in {@code
 * transport.grpc.WireEdge}). {@link #of} tells any failure's kind.
 *
 * <table>
 *   <caption>the failures</caption>
 *   <tr><th>kind<th>raised as<th>counts against the peer<th>hinted<th>retryable<th>shared<th>HTTP
 *   <tr><td>{@link #NO_SPACE}<td>{@link StorageException} NO_SPACE<td>no<td>yes<td>no<td>yes
 *       <td>507
 *   <tr><td>{@link #OVERLOADED}<td>{@link OverloadedException}<td>no<td>yes<td>yes<td>yes
 *       <td>503 + Retry-After
 *   <tr><td>{@link #UNAVAILABLE}<td>{@link UnavailableException}<td>yes<td>yes<td>yes<td>yes
 *       <td>503 + Retry-After
 *   <tr><td>{@link #CLOCK_OFFSET}<td>{@link ClockOffsetException}<td>no<td>no<td>yes<td>yes
 *       <td>503
 *   <tr><td>{@link #INVALID_REQUEST}<td>{@link InvalidRequestException}<td>no<td>yes<td>no<td>no
 *       <td>400
 *   <tr><td>{@link #CHANGE_IN_PROGRESS}<td rowspan=4>{@link ClusterChangeException}<td>—<td>—
 *       <td>yes<td>no<td>409
 *   <tr><td>{@link #UNKNOWN_NODE}<td>—<td>—<td>no<td>no<td>404
 *   <tr><td>{@link #NODE_IS_UP}<td>—<td>—<td>no<td>no<td>409
 *   <tr><td>{@link #LAST_MEMBER}<td>—<td>—<td>no<td>no<td>409
 *   <tr><td>{@link #SNAPSHOT_EXISTS}<td rowspan=2>{@link SnapshotException}<td>—<td>—<td>no
 *       <td>no<td>409
 *   <tr><td>{@link #UNKNOWN_SNAPSHOT}<td>—<td>—<td>no<td>no<td>404
 *   <tr><td>{@link #CONDITION_FAILED}<td>{@link ConditionFailedException}<td>—<td>—<td>no<td>no
 *       <td>412 + the current ETag
 *   <tr><td>{@link #CURSOR_EXPIRED}<td rowspan=3>{@link FeedException}<td>—<td>—<td>no<td>no
 *       <td>410
 *   <tr><td>{@link #FEED_TOO_SLOW}<td>—<td>—<td>yes<td>no<td>503 (an error line of the feed)
 *   <tr><td>{@link #CHANGES_NOT_CAPTURED}<td>—<td>—<td>no<td>no<td>501
 *   <tr><td>{@link #NO_ANSWER}<td>{@link PeerUnavailableException}<td>yes<td>yes<td>yes<td>no
 *       <td>504
 *   <tr><td>{@link #NOT_ENOUGH_REPLICAS}<td>{@link NotEnoughReplicasException}<td>—<td>—<td>yes
 *       <td>no<td>504
 *   <tr><td>{@link #STORAGE_FAILURE}<td>{@link StorageException} FAILURE<td>no<td>yes<td>no<td>yes
 *       <td>500
 *   <tr><td>{@link #UNEXPECTED}<td>anything else (a bug)<td>yes<td>yes<td>no<td>no<td>500
 * </table>
 *
 * <p>"—": no call to a replica fails so (they arise at the coordinator); the row says no.
 */
public enum FailureKind {
  /** The disk (or {@code --max-disk-usage}) is full: writes fail, reads go on. */
  NO_SPACE(507, HINTED, SHARED),
  /** A bounded storage queue is full: transient, pushed back at once. */
  OVERLOADED(503, HINTED, RETRYABLE, RETRY_AFTER, SHARED),
  /** The node is shutting down or not serving yet: about to be gone. */
  UNAVAILABLE(503, COUNTS_AGAINST_PEER, HINTED, RETRYABLE, RETRY_AFTER, SHARED),
  /**
   * A clock further than the max clock offset from its peers: the coordinator's refuses to version
   * writes, a replica refuses a version that far ahead. Retrying the same node does not help until
   * its clock is corrected, another node may take the write; a hint would plant the version later.
   */
  CLOCK_OFFSET(503, RETRYABLE, SHARED),
  /** The request itself is wrong. */
  INVALID_REQUEST(400, HINTED),
  /** A membership change refused: another is in progress. */
  CHANGE_IN_PROGRESS(409, RETRYABLE),
  /** A membership change refused: the node named is not a member. */
  UNKNOWN_NODE(404),
  /** A removal refused: the node is up, it must leave by decommission. */
  NODE_IS_UP(409),
  /** A removal refused: the node is the last member that would own data. */
  LAST_MEMBER(409),
  /** A snapshot refused: one of that name exists on this node. */
  SNAPSHOT_EXISTS(409),
  /** A snapshot refused: this node has none of that name. */
  UNKNOWN_SNAPSHOT(404),
  /**
   * A conditional write refused: its condition does not hold against the key's current value, as a
   * quorum of the key's replicas decided it (SPEC §10). Retrying the same request cannot succeed.
   */
  CONDITION_FAILED(412),
  /**
   * A change feed's cursor is older than {@code --change-retention}: read the range again and
   * follow from the cursor that read answers.
   */
  CURSOR_EXPIRED(410),
  /** A change feed's consumer fell too far behind and was cut off: resume from its last cursor. */
  FEED_TOO_SLOW(503, RETRYABLE),
  /**
   * A change feed asked of a node that captures no changes ({@code --change-retention 0}): its
   * setting, so no retry helps until an operator changes it.
   */
  CHANGES_NOT_CAPTURED(501),
  /** A peer did not answer: no connection, no answer in time, a broken stream, an open breaker. */
  NO_ANSWER(504, COUNTS_AGAINST_PEER, HINTED, RETRYABLE),
  /** Fewer replicas than required answered, for mixed or untyped reasons. */
  NOT_ENOUGH_REPLICAS(504, RETRYABLE),
  /** The storage engine failed otherwise: I/O, corruption, a closed engine. */
  STORAGE_FAILURE(500, HINTED, SHARED),
  /** Anything kvorum did not raise on purpose: a bug. */
  UNEXPECTED(500, COUNTS_AGAINST_PEER, HINTED);

  /** What a row says besides its HTTP status; a row without a trait says no. */
  enum Trait {
    COUNTS_AGAINST_PEER,
    HINTED,
    RETRYABLE,
    RETRY_AFTER,
    SHARED
  }

  private final int httpStatus;
  private final Set<Trait> traits;

  FailureKind(int httpStatus, Trait... traits) {
    this.httpStatus = httpStatus;
    this.traits = EnumSet.noneOf(Trait.class);
    this.traits.addAll(Set.of(traits));
    if (this.traits.contains(RETRY_AFTER) && !this.traits.contains(RETRYABLE)) {
      throw new IllegalStateException(name() + ": Retry-After on a failure not worth retrying");
    }
  }

  /** The kind of {@code failure}, behind the wrappers of asynchronous code. */
  public static FailureKind of(Throwable failure) {
    return Failures.unwrap(failure) instanceof KvorumException known ? of(known) : UNEXPECTED;
  }

  private static FailureKind of(KvorumException known) {
    return switch (known) {
      case StorageException e ->
          e.kind() == StorageException.Kind.NO_SPACE ? NO_SPACE : STORAGE_FAILURE;
      case OverloadedException e -> OVERLOADED;
      case UnavailableException e -> UNAVAILABLE;
      case ClockOffsetException e -> CLOCK_OFFSET;
      case InvalidRequestException e -> INVALID_REQUEST;
      case ClusterChangeException e ->
          switch (e.reason()) {
            case CHANGE_IN_PROGRESS -> CHANGE_IN_PROGRESS;
            case UNKNOWN_NODE -> UNKNOWN_NODE;
            case NODE_IS_UP -> NODE_IS_UP;
            case LAST_MEMBER -> LAST_MEMBER;
          };
      case SnapshotException e ->
          e.reason() == SnapshotException.Reason.SNAPSHOT_EXISTS
              ? SNAPSHOT_EXISTS
              : UNKNOWN_SNAPSHOT;
      case ConditionFailedException e -> CONDITION_FAILED;
      case FeedException e ->
          switch (e.reason()) {
            case CURSOR_EXPIRED -> CURSOR_EXPIRED;
            case TOO_SLOW -> FEED_TOO_SLOW;
            case NOT_CAPTURED -> CHANGES_NOT_CAPTURED;
          };
      case PeerUnavailableException e -> NO_ANSWER;
      case NotEnoughReplicasException e -> NOT_ENOUGH_REPLICAS;
    };
  }

  /**
   * Whether a call to a peer failing so says the peer is not serving, and counts against its
   * circuit breaker. A peer that answered with an error of its own is alive and quick.
   */
  public boolean countsAgainstPeer() {
    return traits.contains(COUNTS_AGAINST_PEER);
  }

  /**
   * Whether the write coordinator keeps a hint for a replica whose write failed so, and hinted
   * handoff keeps a hint whose delivery failed so for the next pass (else it drops it).
   */
  public boolean hinted() {
    return traits.contains(HINTED);
  }

  /**
   * Whether a client may retry the same request, later or through another node, and expect it to
   * succeed without anyone acting.
   */
  public boolean retryable() {
    return traits.contains(RETRYABLE);
  }

  /** Whether the HTTP answer carries {@code Retry-After: 1}. */
  public boolean retryAfter() {
    return traits.contains(RETRY_AFTER);
  }

  /**
   * Whether, when every replica that failed a request failed so, the client gets this failure
   * itself rather than "not enough replicas" (see {@link #sharesAnswerWith}).
   */
  public boolean shared() {
    return traits.contains(SHARED);
  }

  /**
   * Whether replicas that failed with this kind and with {@code other} are told to the client as
   * one typed failure (the first of them): both are shared and get the same HTTP answer (overloaded
   * and shutting down are both a 503 with Retry-After).
   */
  public boolean sharesAnswerWith(FailureKind other) {
    return shared()
        && other.shared()
        && httpStatus == other.httpStatus
        && retryAfter() == other.retryAfter();
  }

  /** The HTTP status a client gets (the HTTP edge adds the body). */
  public int httpStatus() {
    return httpStatus;
  }
}
