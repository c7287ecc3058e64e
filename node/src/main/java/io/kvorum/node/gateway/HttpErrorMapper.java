package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.ClusterChangeException;
import io.kvorum.node.core.ConditionFailedException;
import io.kvorum.node.core.FailureKind;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.SnapshotException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpContentException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error answers of the HTTP edge, in one place: a request's failure is answered by its {@link
 * FailureKind} (status, {@code Retry-After}, whether it is logged) with the problem members its
 * exception carries; a request the protocol refuses (undecodable, an HTTP version other than 1, an
 * unknown endpoint, a method not allowed) is answered here too. Whether the connection goes on is
 * the connection's decision, not this one's.
 */
final class HttpErrorMapper {
  private static final Logger log = LoggerFactory.getLogger(HttpErrorMapper.class);

  static final HttpResponseStatus NOT_ENOUGH_REPLICAS =
      new HttpResponseStatus(504, KvorumApi.NOT_ENOUGH_REPLICAS);
  static final HttpResponseStatus INSUFFICIENT_STORAGE =
      new HttpResponseStatus(507, "Insufficient Storage");
  private static final String RETRY_AFTER_SECONDS = "1";

  private HttpErrorMapper() {}

  // ---- a request's failure --------------------------------------------------------------------

  static FullHttpResponse toResponse(Throwable failure) {
    Throwable error = Failures.unwrap(failure);
    FailureKind kind = FailureKind.of(error);
    FullHttpResponse response = problem(error).toResponse();
    if (kind.retryAfter()) {
      response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
    }
    if (error instanceof ConditionFailedException e) {
      e.current().ifPresent(version -> EntityTags.tagged(response, version));
    }
    return response;
  }

  /**
   * The problem a request's failure is answered with (logged if it is a storage failure or a bug):
   * the body of {@link #toResponse}, and of a failed item of a batch.
   */
  static Problem problem(Throwable failure) {
    Throwable error = Failures.unwrap(failure);
    FailureKind kind = FailureKind.of(error);
    switch (kind) {
      case STORAGE_FAILURE -> log.error("storage failure", error);
      case UNEXPECTED -> log.error("unexpected failure serving a request", error);
      default -> {}
    }
    Problem problem = Problem.of(ProblemType.of(kind), status(kind), detail(kind, error));
    addMembers(problem, error);
    return problem;
  }

  private static HttpResponseStatus status(FailureKind kind) {
    return switch (kind.httpStatus()) {
      case 504 -> NOT_ENOUGH_REPLICAS;
      case 507 -> INSUFFICIENT_STORAGE;
      default -> HttpResponseStatus.valueOf(kind.httpStatus());
    };
  }

  private static String detail(FailureKind kind, Throwable error) {
    return switch (kind) {
      case NO_SPACE -> "the node's disk is full: " + error.getMessage();
      case UNEXPECTED -> "internal error: " + error;
      default -> error.getMessage();
    };
  }

  /** What the client may want to know beyond the detail, as the failure carries it. */
  private static void addMembers(Problem problem, Throwable error) {
    switch (error) {
      case InvalidRequestException e -> e.parameter().ifPresent(p -> problem.with("parameter", p));
      case NotEnoughReplicasException e -> {
        Map<String, String> failed = new LinkedHashMap<>();
        e.failed().forEach((node, reason) -> failed.put(node.value(), reason));
        problem
            .with("required", e.required())
            .with("answered", e.answered())
            .with("failed", failed)
            .with("pending", e.pending().stream().map(NodeId::value).toList());
      }
      case ClusterChangeException e -> e.details().forEach(problem::with);
      case SnapshotException e -> problem.with("snapshot", e.name());
      case ConditionFailedException e ->
          e.current().ifPresent(version -> problem.with("etag", EntityTags.format(version)));
      case PeerUnavailableException e -> problem.with("unavailable", e.peer().value());
      case ClockOffsetException e ->
          problem
              .with("clockOffsetMillis", e.offsetMillis())
              .with("maxClockOffsetMillis", e.maxOffsetMillis());
      default -> {}
    }
  }

  // ---- the protocol's refusals ----------------------------------------------------------------

  /** A request the codec could not decode: a body, request line or headers too large, garbage. */
  static FullHttpResponse undecodable(Throwable cause) {
    return switch (cause) {
      case TooLongHttpContentException e ->
          Problem.of(
                  ProblemType.REQUEST_TOO_LARGE,
                  HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                  e.getMessage())
              .toResponse();
      case BodyLimitAggregator.ExpectationFailedException e ->
          Problem.of(
                  ProblemType.EXPECTATION_FAILED,
                  HttpResponseStatus.EXPECTATION_FAILED,
                  e.getMessage())
              .toResponse();
      case TooLongHttpLineException e ->
          Problem.of(
                  ProblemType.REQUEST_LINE_TOO_LONG,
                  HttpResponseStatus.REQUEST_URI_TOO_LONG,
                  "the request line is too long")
              .toResponse();
      case TooLongHttpHeaderException e ->
          Problem.of(
                  ProblemType.HEADERS_TOO_LARGE,
                  HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                  "the request headers are too large")
              .toResponse();
      default ->
          Problem.of(
                  ProblemType.MALFORMED_REQUEST,
                  HttpResponseStatus.BAD_REQUEST,
                  "malformed HTTP request: " + cause.getMessage())
              .toResponse();
    };
  }

  /** A request in an HTTP version other than 1.x. */
  static FullHttpResponse versionNotSupported(HttpVersion version) {
    return Problem.of(
            ProblemType.HTTP_VERSION_NOT_SUPPORTED,
            HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
            version.text() + " is not supported; use HTTP/1.1")
        .toResponse();
  }

  static FullHttpResponse unknownEndpoint(String path) {
    return Problem.of(
            ProblemType.UNKNOWN_ENDPOINT,
            HttpResponseStatus.BAD_REQUEST,
            "no such endpoint: " + path)
        .toResponse();
  }

  /**
   * @param allow the methods the endpoint allows, as the {@code Allow} header lists them
   */
  static FullHttpResponse methodNotAllowed(HttpMethod method, String allow) {
    FullHttpResponse response =
        Problem.of(
                ProblemType.METHOD_NOT_ALLOWED,
                HttpResponseStatus.METHOD_NOT_ALLOWED,
                method + " is not allowed here; use " + allow)
            .toResponse();
    response.headers().set(HttpHeaderNames.ALLOW, allow);
    return response;
  }
}
