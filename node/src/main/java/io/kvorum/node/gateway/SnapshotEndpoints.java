package io.kvorum.node.gateway;

import io.kvorum.node.coordinator.SnapshotAdmin;
import io.kvorum.node.core.SnapshotListing;
import io.kvorum.node.core.SnapshotManifest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /v0/snapshots}: this node's snapshots (SPEC §11), taken, listed and deleted on the
 * snapshots' own thread and answered on the connection's event loop.
 */
final class SnapshotEndpoints {
  private static final String PARAM_NAME = "name";

  private final SnapshotAdmin snapshots;

  SnapshotEndpoints(SnapshotAdmin snapshots) {
    this.snapshots = snapshots;
  }

  /** Serves {@code request}; copies what it needs, the caller releases the request after. */
  void handle(Route route, FullHttpRequest request, Exchange exchange) {
    if (route == Route.SNAPSHOT_FILES) {
      files(request, exchange);
    } else if (route == Route.SNAPSHOT) {
      String name = Route.snapshotName(request.uri());
      exchange.respondWhenDone(snapshots.delete(name), done -> noContent());
    } else if (request.method().equals(HttpMethod.POST)) {
      String name = QueryParameters.parse(Route.query(request.uri())).text(PARAM_NAME).orElse(null);
      exchange.respondWhenDone(
          snapshots.take(name),
          manifest -> AdminEndpoints.json(HttpResponseStatus.CREATED, view(manifest)));
    } else {
      exchange.respondWhenDone(
          snapshots.list(), list -> AdminEndpoints.json(HttpResponseStatus.OK, listing(list)));
    }
  }

  /** A snapshot's files with their sizes and SHA-256, or one file's bytes, streamed. */
  private void files(FullHttpRequest request, Exchange exchange) {
    String name = Route.snapshotName(request.uri());
    String file = Route.snapshotFile(request.uri());
    if (file == null) {
      exchange.respondWhenDone(
          snapshots.files(name),
          files -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            body.put(
                "files",
                files.stream()
                    .map(f -> Map.of("name", f.name(), "bytes", f.bytes(), "sha256", f.sha256()))
                    .toList());
            return AdminEndpoints.json(HttpResponseStatus.OK, body);
          });
      return;
    }
    snapshots
        .open(name, file)
        .whenCompleteAsync(
            (reader, error) -> {
              if (error != null) {
                exchange.respond(HttpErrorMapper.toResponse(error));
              } else {
                new FileStreamer(exchange, reader).start();
              }
            },
            exchange.context().executor());
  }

  /** The whole snapshots, and those whose manifest cannot be read, which may only be deleted. */
  private static Map<String, Object> listing(SnapshotListing listing) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("snapshots", listing.whole().stream().map(SnapshotEndpoints::view).toList());
    body.put(
        "damaged",
        listing.damaged().stream()
            .map(d -> Map.of("name", d.name(), "path", d.path(), "problem", d.problem()))
            .toList());
    return body;
  }

  private static Map<String, Object> view(SnapshotManifest manifest) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("name", manifest.name());
    view.put("node", manifest.node());
    view.put("path", manifest.path());
    view.put("takenAt", manifest.takenAt());
    view.put("tookMillis", manifest.tookMillis());
    view.put("versionsUpTo", manifest.versionsUpTo());
    view.put("records", manifest.records());
    view.put("bytes", manifest.bytes());
    view.put("format", manifest.format());
    view.put("release", manifest.release());
    return view;
  }

  private static FullHttpResponse noContent() {
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT);
  }
}
