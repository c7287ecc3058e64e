package io.kvorum.node.gateway;

import io.kvorum.node.auth.Role;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * Sends each request to its endpoints: the data endpoints ({@link DataEndpoints}) or those of
 * operators ({@link AdminEndpoints}), once the request's token allows it, its path is known and its
 * method allowed there. Runs on the event loop.
 */
final class Endpoints {
  private final DataEndpoints data;
  private final AdminEndpoints admin;
  private final SnapshotEndpoints snapshots;
  private final AccessControl access;

  /**
   * @param access checks every {@code /v0/} request's token; null when no tokens are configured
   */
  Endpoints(
      DataEndpoints data, AdminEndpoints admin, SnapshotEndpoints snapshots, AccessControl access) {
    this.data = data;
    this.admin = admin;
    this.snapshots = snapshots;
    this.access = access;
  }

  /** Serves {@code request}; must copy what it needs, the caller releases the request after. */
  void handle(Route route, FullHttpRequest request, Exchange exchange) {
    if (access != null) {
      FullHttpResponse refused = access.refusal(request, Route.path(request.uri()));
      if (refused != null) {
        exchange.respond(refused);
        return;
      }
    }
    if (route == Route.UNKNOWN) {
      exchange.respond(HttpErrorMapper.unknownEndpoint(Route.path(request.uri())));
      return;
    }
    if (!route.allows(request.method())) {
      exchange.respond(HttpErrorMapper.methodNotAllowed(request.method(), route.allowHeader()));
      return;
    }
    if (route.isData()) {
      data.handle(
          route,
          request,
          exchange,
          () -> access == null ? null : access.refusal(request, Role.WRITE));
    } else if (route == Route.SNAPSHOTS
        || route == Route.SNAPSHOT
        || route == Route.SNAPSHOT_FILES) {
      snapshots.handle(route, request, exchange);
    } else if (route == Route.DECOMMISSION || route == Route.REMOVE) {
      admin.changeMembership(route, request, exchange);
    } else {
      exchange.respond(admin.handle(route, request));
    }
  }
}
