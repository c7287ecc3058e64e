package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The endpoints of the HTTP API, each with the methods it allows. */
enum Route {
  ENTITY(KvorumApi.PATH_ENTITY, HttpMethod.GET, HttpMethod.PUT, HttpMethod.DELETE),
  ENTITIES(KvorumApi.PATH_ENTITIES, HttpMethod.GET),
  /** Many gets, puts and deletes in one request. */
  BATCH(KvorumApi.PATH_BATCH, HttpMethod.POST),
  /** Change feeds (SPEC §12). */
  CHANGES(KvorumApi.PATH_CHANGES, HttpMethod.GET),
  /** Batches of records that keep their versions, from {@code kvorum-node load}. */
  LOAD(KvorumApi.PATH_LOAD, HttpMethod.POST),
  STATUS(KvorumApi.PATH_STATUS, HttpMethod.GET),
  CLUSTER(KvorumApi.PATH_CLUSTER, HttpMethod.GET),
  REPAIR(KvorumApi.PATH_REPAIR, HttpMethod.POST),
  LIVE(KvorumApi.PATH_LIVE, HttpMethod.GET),
  READY(KvorumApi.PATH_READY, HttpMethod.GET),
  METRICS(KvorumApi.PATH_METRICS, HttpMethod.GET),
  DECOMMISSION(KvorumApi.PATH_DECOMMISSION, HttpMethod.POST),
  REMOVE(KvorumApi.PATH_REMOVE, HttpMethod.POST),
  SNAPSHOTS(KvorumApi.PATH_SNAPSHOTS, HttpMethod.GET, HttpMethod.POST),
  /** One snapshot, {@code /v0/snapshots/NAME}. */
  SNAPSHOT(null, HttpMethod.DELETE),
  /**
   * A snapshot's files, {@code /v0/snapshots/NAME/files} (listed with sizes and checksums) and
   * {@code /v0/snapshots/NAME/files/FILE} (its bytes): what a backup copies off the node.
   */
  SNAPSHOT_FILES(null, HttpMethod.GET),
  UNKNOWN(null);

  private static final String SNAPSHOT_PREFIX = KvorumApi.PATH_SNAPSHOTS + "/";
  private static final String FILES = "/files";

  private final String path;
  private final List<HttpMethod> methods;

  Route(String path, HttpMethod... methods) {
    this.path = path;
    this.methods = List.of(methods);
  }

  static Route of(HttpRequest request) {
    String path = path(request.uri());
    for (Route route : values()) {
      if (path.equals(route.path)) {
        return route;
      }
    }
    if (!path.startsWith(SNAPSHOT_PREFIX) || path.length() == SNAPSHOT_PREFIX.length()) {
      return UNKNOWN;
    }
    String rest = path.substring(SNAPSHOT_PREFIX.length());
    int slash = rest.indexOf('/');
    return slash > 0 && rest.substring(slash).matches(FILES + "(/[^/]+)?")
        ? SNAPSHOT_FILES
        : SNAPSHOT;
  }

  /** The file a {@link #SNAPSHOT_FILES} request names; null when it asks for the list. */
  static String snapshotFile(String uri) {
    String rest = path(uri).substring(SNAPSHOT_PREFIX.length());
    int files = rest.indexOf(FILES + "/");
    return files < 0 ? null : rest.substring(files + FILES.length() + 1);
  }

  /** Whether {@code path} is {@code /v0/snapshots} or below. */
  static boolean isSnapshots(String path) {
    return path.equals(KvorumApi.PATH_SNAPSHOTS) || path.startsWith(SNAPSHOT_PREFIX);
  }

  /** The name of the snapshot a {@link #SNAPSHOT} or {@link #SNAPSHOT_FILES} request names. */
  static String snapshotName(String uri) {
    String rest = path(uri).substring(SNAPSHOT_PREFIX.length());
    int slash = rest.indexOf('/');
    return slash > 0 && rest.substring(slash).startsWith(FILES) ? rest.substring(0, slash) : rest;
  }

  /** Whether this is a data route ({@link DataEndpoints}); the others are operators'. */
  boolean isData() {
    return this == ENTITY || this == ENTITIES || this == BATCH || this == LOAD || this == CHANGES;
  }

  boolean allows(HttpMethod method) {
    return methods.contains(method);
  }

  /** The value of the {@code Allow} header for this route. */
  String allowHeader() {
    return methods.stream().map(HttpMethod::name).collect(Collectors.joining(", "));
  }

  /** The metrics name of a request: the method for entity requests, the route otherwise. */
  String operation(HttpMethod method) {
    return switch (this) {
      case ENTITY -> allows(method) ? method.name().toLowerCase(Locale.ROOT) : "entity";
      case ENTITIES -> "range";
      default -> name().toLowerCase(Locale.ROOT);
    };
  }

  /** The path of a request target, which may be in origin form or absolute form. */
  static String path(String uri) {
    String target = uri;
    int scheme = target.indexOf("://");
    if (scheme > 0 && scheme < target.indexOf('/')) {
      int slash = target.indexOf('/', scheme + 3);
      target = slash < 0 ? "/" : target.substring(slash);
    }
    int end = target.length();
    for (char stop : new char[] {'?', '#'}) {
      int i = target.indexOf(stop);
      if (i >= 0 && i < end) {
        end = i;
      }
    }
    return target.substring(0, end);
  }

  /** The query string of a request target, without '?', empty if there is none. */
  static String query(String uri) {
    int q = uri.indexOf('?');
    if (q < 0) {
      return "";
    }
    int fragment = uri.indexOf('#', q);
    return fragment < 0 ? uri.substring(q + 1) : uri.substring(q + 1, fragment);
  }
}
