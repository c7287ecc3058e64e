package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.ClockOffsetException;
import io.kvorum.node.core.ClusterChangeException;
import io.kvorum.node.core.Failures;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.KvorumException;
import io.kvorum.node.core.NodeId;
import io.kvorum.node.core.NotEnoughReplicasException;
import io.kvorum.node.core.OverloadedException;
import io.kvorum.node.core.PeerUnavailableException;
import io.kvorum.node.core.StorageException;
import io.kvorum.node.core.UnavailableException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Translates every failure of a request into its HTTP answer, in one place. */
final class HttpErrorMapper {
  private static final Logger log = LoggerFactory.getLogger(HttpErrorMapper.class);

  static final HttpResponseStatus NOT_ENOUGH_REPLICAS =
      new HttpResponseStatus(504, KvorumApi.NOT_ENOUGH_REPLICAS);
  static final HttpResponseStatus INSUFFICIENT_STORAGE =
      new HttpResponseStatus(507, "Insufficient Storage");
  private static final String RETRY_AFTER_SECONDS = "1";

  private HttpErrorMapper() {}

  static FullHttpResponse toResponse(Throwable failure) {
    Throwable error = Failures.unwrap(failure);
    if (error instanceof KvorumException known) {
      return switch (known) {
        case InvalidRequestException e -> {
          Problem problem = Problem.of(HttpResponseStatus.BAD_REQUEST, e.getMessage());
          e.parameter().ifPresent(p -> problem.with("parameter", p));
          yield problem.toResponse();
        }
        case NotEnoughReplicasException e -> notEnoughReplicas(e);
        case ClusterChangeException e -> {
          Problem problem =
              Problem.of(
                  e.reason() == ClusterChangeException.Reason.UNKNOWN_NODE
                      ? HttpResponseStatus.NOT_FOUND
                      : HttpResponseStatus.CONFLICT,
                  e.getMessage());
          e.details().forEach(problem::with);
          yield problem.toResponse();
        }
        case PeerUnavailableException e ->
            Problem.of(NOT_ENOUGH_REPLICAS, e.getMessage())
                .with("unavailable", e.peer().value())
                .toResponse();
        case OverloadedException e -> retryLater(e.getMessage());
        case UnavailableException e -> retryLater(e.getMessage());
        // Not Retry-After: this node's clock stays wrong until someone corrects it; another node
        // can take the write.
        case ClockOffsetException e ->
            Problem.of(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage())
                .with("clockOffsetMillis", e.offsetMillis())
                .with("maxClockOffsetMillis", e.maxOffsetMillis())
                .toResponse();
        case StorageException e when e.kind() == StorageException.Kind.NO_SPACE ->
            Problem.of(INSUFFICIENT_STORAGE, "the node's disk is full: " + e.getMessage())
                .toResponse();
        case StorageException e -> {
          log.error("storage failure", e);
          yield Problem.of(HttpResponseStatus.INTERNAL_SERVER_ERROR, e.getMessage()).toResponse();
        }
      };
    }
    log.error("unexpected failure serving a request", error);
    return Problem.of(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + error)
        .toResponse();
  }

  private static FullHttpResponse notEnoughReplicas(NotEnoughReplicasException e) {
    Map<String, String> failed = new LinkedHashMap<>();
    e.failed().forEach((node, reason) -> failed.put(node.value(), reason));
    return Problem.of(NOT_ENOUGH_REPLICAS, e.getMessage())
        .with("required", e.required())
        .with("answered", e.answered())
        .with("failed", failed)
        .with("pending", e.pending().stream().map(NodeId::value).toList())
        .toResponse();
  }

  private static FullHttpResponse retryLater(String detail) {
    FullHttpResponse response =
        Problem.of(HttpResponseStatus.SERVICE_UNAVAILABLE, detail).toResponse();
    response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
    return response;
  }
}
