package io.kvorum.api;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * What a client learns from {@code /v0/cluster}, now and then in the background: the members it may
 * send to ({@link Endpoints#learn}) and, with routing on, where each key's replicas are ({@link
 * Routes}). The first time it asks every seed, so that it knows which node id answers at which
 * seed; then one node in turn every {@value #INTERVAL_SECONDS} s. A failed attempt changes nothing
 * (the seeds and the routes known remain). Thread-safe.
 */
final class Discovery implements RetryingSender.Router {
  private static final long INTERVAL_SECONDS = 30;
  private static final long INTERVAL_NANOS = Duration.ofSeconds(INTERVAL_SECONDS).toNanos();

  private final HttpClient http;
  private final Endpoints endpoints;
  private final ClientSettings settings;
  private final ExecutorService exchanges;
  // Which seed or member answered as which node id: where a member that advertises no HTTP
  // address is reached.
  private final Map<String, URI> answeredAs = new ConcurrentHashMap<>();
  private volatile long discoveredAt;
  private volatile boolean askedSeeds;
  private volatile Routes routes;

  Discovery(
      HttpClient http, Endpoints endpoints, ClientSettings settings, ExecutorService exchanges) {
    this.http = http;
    this.endpoints = endpoints;
    this.settings = settings;
    this.exchanges = exchanges;
    this.discoveredAt = System.nanoTime() - INTERVAL_NANOS;
  }

  /** Asks for the cluster's view in the background if discovery is on and the last ask is due. */
  void ifDue() {
    long now = System.nanoTime();
    if (!settings.discovery() || now - discoveredAt < INTERVAL_NANOS) {
      return;
    }
    discoveredAt = now;
    List<URI> nodes = askedSeeds ? List.of(endpoints.next()) : settings.seeds();
    askedSeeds = true;
    for (URI node : nodes) {
      exchanges.execute(() -> ask(node));
    }
  }

  private void ask(URI node) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(node.resolve(KvorumApi.PATH_CLUSTER))
            .timeout(settings.attemptTimeout());
    if (settings.authorization() != null) {
      request.header(KvorumApi.AUTHORIZATION, settings.authorization());
    }
    try {
      HttpResponse<byte[]> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 200) {
        learn(node, Json.object(response.body()));
      }
    } catch (IOException | InterruptedException e) {
      // no view from that node this time: keep what we have
    }
  }

  /** One view at a time, so that the routes kept are those of the newest view and every id. */
  private synchronized void learn(URI node, Map<String, Object> cluster) {
    String id = Json.string(cluster, "node");
    if (id != null) {
      answeredAs.put(id, node);
    }
    endpoints.learn(node, cluster);
    if (settings.routing()) {
      routes = Routes.of(cluster, node, Map.copyOf(answeredAs), settings.zone());
    }
  }

  /** Whether requests go by placement now: routing on and a placement learned. */
  boolean routing() {
    return routes != null;
  }

  @Override
  public URI route(byte[] key, Integer from, URI tried) {
    Routes known = routes;
    return known == null
        ? null
        : known.route(key, from, uri -> !uri.equals(tried) && endpoints.reachable(uri));
  }
}
