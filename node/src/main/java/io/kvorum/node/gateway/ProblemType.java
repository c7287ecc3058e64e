package io.kvorum.node.gateway;

import io.kvorum.node.core.FailureKind;
import java.util.Locale;

/**
 * The {@code type} of every problem+json answer this node gives: a URI naming the section of {@code
 * docs/errors.md} that explains the error (what it means, whether a retry is safe, what to do). A
 * request's failure has the type of its {@link FailureKind}; the protocol's refusals and the edge's
 * own answers (authentication, readiness) have theirs. A type, once published, keeps its URI:
 * clients may match on it.
 */
enum ProblemType {
  NO_SPACE,
  OVERLOADED,
  UNAVAILABLE,
  CLOCK_OFFSET,
  INVALID_REQUEST,
  CHANGE_IN_PROGRESS,
  UNKNOWN_NODE,
  NODE_IS_UP,
  LAST_MEMBER,
  SNAPSHOT_EXISTS,
  UNKNOWN_SNAPSHOT,
  CONDITION_FAILED,
  CURSOR_EXPIRED,
  FEED_TOO_SLOW,
  CHANGES_NOT_CAPTURED,
  NO_ANSWER,
  NOT_ENOUGH_REPLICAS,
  STORAGE_FAILURE,
  UNEXPECTED,
  /** A body larger than the limit ({@code --max-value-size}). */
  REQUEST_TOO_LARGE,
  /** An {@code Expect} header other than {@code 100-continue}. */
  EXPECTATION_FAILED,
  /** A request line longer than the decoder takes. */
  REQUEST_LINE_TOO_LONG,
  /** Request headers larger than the decoder takes. */
  HEADERS_TOO_LARGE,
  /** Bytes that are not an HTTP/1.x request. */
  MALFORMED_REQUEST,
  /** A request in an HTTP version other than 1.x. */
  HTTP_VERSION_NOT_SUPPORTED,
  /** A path the API does not have. */
  UNKNOWN_ENDPOINT,
  /** A method the path does not allow. */
  METHOD_NOT_ALLOWED,
  /** No bearer token, or one the node does not know ({@code --auth-tokens}). */
  UNAUTHORIZED,
  /** A token whose role is not enough for the request. */
  FORBIDDEN,
  /** The readiness probe's answer: starting, shutting down, or refusing writes for its clock. */
  NOT_READY;

  /**
   * Where every type's section is, one constant for all of them: the document on the main branch,
   * so that a type names the same explanation whatever release answered it
   * (docs/decisions/problem-types-link-to-errors-md.md).
   */
  static final String BASE = "https://github.com/kvorum/kvorum/blob/main/docs/errors.md#";

  /** The type of a request's failure. */
  static ProblemType of(FailureKind kind) {
    return switch (kind) {
      case NO_SPACE -> NO_SPACE;
      case OVERLOADED -> OVERLOADED;
      case UNAVAILABLE -> UNAVAILABLE;
      case CLOCK_OFFSET -> CLOCK_OFFSET;
      case INVALID_REQUEST -> INVALID_REQUEST;
      case CHANGE_IN_PROGRESS -> CHANGE_IN_PROGRESS;
      case UNKNOWN_NODE -> UNKNOWN_NODE;
      case NODE_IS_UP -> NODE_IS_UP;
      case LAST_MEMBER -> LAST_MEMBER;
      case SNAPSHOT_EXISTS -> SNAPSHOT_EXISTS;
      case UNKNOWN_SNAPSHOT -> UNKNOWN_SNAPSHOT;
      case CONDITION_FAILED -> CONDITION_FAILED;
      case CURSOR_EXPIRED -> CURSOR_EXPIRED;
      case FEED_TOO_SLOW -> FEED_TOO_SLOW;
      case CHANGES_NOT_CAPTURED -> CHANGES_NOT_CAPTURED;
      case NO_ANSWER -> NO_ANSWER;
      case NOT_ENOUGH_REPLICAS -> NOT_ENOUGH_REPLICAS;
      case STORAGE_FAILURE -> STORAGE_FAILURE;
      case UNEXPECTED -> UNEXPECTED;
    };
  }

  /** The anchor of the type's section in {@code docs/errors.md}, e.g. {@code no-space}. */
  String anchor() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The {@code type} member of the answer. */
  String uri() {
    return BASE + anchor();
  }
}
