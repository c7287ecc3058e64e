package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.auth.Role;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.Supplier;

/**
 * Who may send a request, with {@code --auth-tokens} (SPEC §9): every {@code /v0/} request needs a
 * bearer token whose role covers it; {@code /health/*} and {@code /metrics} stay open (probes and
 * scrapers carry no token). Reads ({@code GET}, {@code HEAD}) need {@code read}; other methods need
 * {@code write} (a {@code /v0/batch} needs {@code write} if an item writes, else {@code read}), or
 * {@code admin} on {@code /v0/repair} and on {@code /v0/cluster} and below; every request to {@code
 * /v0/snapshots} and below, and to {@code /v0/load}, needs {@code admin}. Runs on the event loop: a
 * volatile read of the tokens in force and one digest per request.
 */
final class AccessControl {
  static final String API_PREFIX = "/v0/";
  private static final String BEARER = "Bearer ";
  private static final String CHALLENGE = "Bearer realm=\"kvorum\"";
  private static final String CLUSTER_PREFIX = KvorumApi.PATH_CLUSTER + "/";

  private final Supplier<AccessTokens> tokens;

  /** Checks requests against {@code tokens}, asked for anew each time (they are reloaded). */
  AccessControl(Supplier<AccessTokens> tokens) {
    this.tokens = tokens;
  }

  /** The refusal of a request to {@code path}, or null if it may go on. */
  FullHttpResponse refusal(HttpRequest request, String path) {
    if (!path.startsWith(API_PREFIX)) {
      return null;
    }
    return refusal(request, required(request.method(), path));
  }

  /** The refusal of {@code request} unless its token has the {@code required} role, or null. */
  FullHttpResponse refusal(HttpRequest request, Role required) {
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return unauthorized(
          "this node requires a bearer token: Authorization: Bearer TOKEN", CHALLENGE);
    }
    int start = BEARER.length();
    int end = header.length();
    while (start < end && header.charAt(start) == ' ') {
      start++;
    }
    while (end > start && header.charAt(end - 1) == ' ') {
      end--;
    }
    Role role = tokens.get().roleOf(header, start, end);
    if (role == null) {
      return unauthorized(
          "the bearer token is not known to this node", CHALLENGE + ", error=\"invalid_token\"");
    }
    if (!role.includes(required)) {
      FullHttpResponse response =
          Problem.of(
                  ProblemType.FORBIDDEN,
                  HttpResponseStatus.FORBIDDEN,
                  "a " + role.label() + " token may not do this; it needs " + required.label())
              .with("role", role.label())
              .with("required", required.label())
              .toResponse();
      response
          .headers()
          .set(
              HttpHeaderNames.WWW_AUTHENTICATE,
              CHALLENGE + ", error=\"insufficient_scope\", scope=\"" + required.label() + "\"");
      return response;
    }
    return null;
  }

  /** The role a request needs. */
  static Role required(HttpMethod method, String path) {
    if (Route.isSnapshots(path)) {
      // A snapshot's manifest names files on the node; taking one costs disk.
      return Role.ADMIN;
    }
    if (path.equals(KvorumApi.PATH_LOAD)) {
      // A load writes versions of its choosing: one far ahead would shadow later client writes.
      return Role.ADMIN;
    }
    if (method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)) {
      return Role.READ;
    }
    if (path.equals(KvorumApi.PATH_BATCH)) {
      // A batch of gets reads; one that writes is checked for write once its items are known.
      return Role.READ;
    }
    boolean clusterChange =
        path.equals(KvorumApi.PATH_REPAIR)
            || path.equals(KvorumApi.PATH_CLUSTER)
            || path.startsWith(CLUSTER_PREFIX);
    return clusterChange ? Role.ADMIN : Role.WRITE;
  }

  private static FullHttpResponse unauthorized(String detail, String challenge) {
    FullHttpResponse response =
        Problem.of(ProblemType.UNAUTHORIZED, HttpResponseStatus.UNAUTHORIZED, detail).toResponse();
    response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, challenge);
    return response;
  }
}
