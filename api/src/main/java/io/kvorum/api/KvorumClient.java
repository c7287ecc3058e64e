package io.kvorum.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * A small blocking client of kvorum's HTTP API, for tests, benchmarks and scripts. Keys and values
 * are raw bytes ({@code String} overloads use UTF-8). Thread-safe; one instance per server.
 *
 * <pre>{@code
 * try (KvorumClient kv = KvorumClient.connect("localhost", 8080)) {
 *   kv.put("greeting", "hello");
 *   Optional<String> v = kv.getUtf8("greeting");
 * }
 * }</pre>
 *
 * Every write answers the entity tag of the version it wrote; {@link #getVersioned} reads a value
 * with its tag, and {@link #putIfMatch}, {@link #putIfAbsent} and {@link #deleteIfMatch} write only
 * if the key is still at that version (a linearizable compare-and-set per key), which {@link
 * #compareAndSet} retries for a read-modify-write.
 *
 * <p>Errors come as {@link KvorumClientException} with the HTTP status (504 when the quorum was not
 * reached, 400 for bad parameters); I/O failures as {@link UncheckedIOException}. A failed
 * condition is no error: it is a {@link ConditionalResult} that did not apply.
 */
public final class KvorumClient implements AutoCloseable {
  private final InetSocketAddress server;
  private final URI base;
  private final HttpClient http;
  private final Duration timeout;
  private final String authorization;

  private KvorumClient(InetSocketAddress server, Duration timeout) {
    this(server, timeout, null);
  }

  private KvorumClient(InetSocketAddress server, Duration timeout, String token) {
    this.authorization = token == null ? null : "Bearer " + token;
    this.server = server;
    this.base = URI.create("http://" + server.getHostString() + ":" + server.getPort());
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .build();
  }

  /** A client of the node at {@code host:port}, with a 10 s timeout per request. */
  public static KvorumClient connect(String host, int port) {
    return connect(host, port, Duration.ofSeconds(10));
  }

  public static KvorumClient connect(String host, int port, Duration timeout) {
    return new KvorumClient(InetSocketAddress.createUnresolved(host, port), timeout);
  }

  /**
   * A client of the same node that sends {@code token} as {@code Authorization: Bearer} with every
   * request, for nodes run with {@code --auth-tokens}. This client stays as it was; close both.
   */
  public KvorumClient withToken(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a token must not be empty");
    }
    return new KvorumClient(server, timeout, token.strip());
  }

  public URI baseUri() {
    return base;
  }

  /** The value of {@code key}, or empty if it is absent, deleted or expired. */
  public Optional<byte[]> get(byte[] key, Consistency consistency) {
    HttpResponse<byte[]> response = send(entity(key, consistency, "").GET());
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    return Optional.of(expect(response, 200).body());
  }

  /** The value of {@code key} with its entity tag, or empty if it is absent, deleted or expired. */
  public Optional<Versioned> getVersioned(byte[] key, Consistency consistency) {
    HttpResponse<byte[]> response = send(entity(key, consistency, "").GET());
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    return Optional.of(new Versioned(expect(response, 200).body(), etag(response)));
  }

  public Optional<Versioned> getVersioned(byte[] key) {
    return getVersioned(key, Consistency.DEFAULT);
  }

  public Optional<byte[]> get(byte[] key) {
    return get(key, Consistency.DEFAULT);
  }

  public Optional<String> getUtf8(String key) {
    return get(utf8(key)).map(v -> new String(v, StandardCharsets.UTF_8));
  }

  /**
   * Stores {@code value} under {@code key}.
   *
   * @param ttl how long the value lives, or null for ever
   * @return the entity tag of the version written, or null from a node of kvorum 0.1.0, which
   *     answers none (a cluster in the middle of its upgrade)
   */
  public String put(byte[] key, byte[] value, Consistency consistency, Duration ttl) {
    return etagIfAny(expect(send(putRequest(key, value, consistency, ttl)), 201));
  }

  public String put(byte[] key, byte[] value, Consistency consistency) {
    return put(key, value, consistency, null);
  }

  public String put(byte[] key, byte[] value) {
    return put(key, value, Consistency.DEFAULT, null);
  }

  public String put(String key, String value) {
    return put(utf8(key), utf8(value));
  }

  /**
   * Deletes {@code key}; answers the entity tag of the tombstone's version, or null from a node of
   * kvorum 0.1.0, which answers none.
   */
  public String delete(byte[] key, Consistency consistency) {
    return etagIfAny(expect(send(entity(key, consistency, "").DELETE()), 202));
  }

  public String delete(byte[] key) {
    return delete(key, Consistency.DEFAULT);
  }

  public String delete(String key) {
    return delete(utf8(key));
  }

  /** Stores {@code value} only if {@code key} is absent (never written, deleted or expired). */
  public ConditionalResult putIfAbsent(byte[] key, byte[] value) {
    return conditional(
        putRequest(key, value, Consistency.DEFAULT, null).header(KvorumApi.IF_NONE_MATCH, "*"),
        201);
  }

  /** Stores {@code value} only if {@code key}'s current version is the one {@code etag} names. */
  public ConditionalResult putIfMatch(byte[] key, byte[] value, String etag) {
    return conditional(
        putRequest(key, value, Consistency.DEFAULT, null).header(KvorumApi.IF_MATCH, etag), 201);
  }

  /** Deletes {@code key} only if its current version is the one {@code etag} names. */
  public ConditionalResult deleteIfMatch(byte[] key, String etag) {
    return conditional(
        entity(key, Consistency.DEFAULT, "").DELETE().header(KvorumApi.IF_MATCH, etag), 202);
  }

  /**
   * A read-modify-write that loses no update: reads {@code key}, computes its new value from the
   * current one (empty when absent), and writes it only if nobody wrote the key in between, reading
   * again and retrying after a short jittered pause when somebody did.
   *
   * @param update the new value from the current one; it may run several times
   * @param attempts how many times to try at most
   * @return the value written with its entity tag
   * @throws KvorumClientException with status 412 when every attempt lost to another writer, or the
   *     server's error (a 504 leaves it unknown whether the last attempt applied)
   */
  public Versioned compareAndSet(
      byte[] key, Function<Optional<byte[]>, byte[]> update, int attempts) {
    for (int attempt = 1; ; attempt++) {
      Optional<Versioned> current = getVersioned(key);
      byte[] next = update.apply(current.map(Versioned::value));
      ConditionalResult result =
          current.isEmpty() ? putIfAbsent(key, next) : putIfMatch(key, next, current.get().etag());
      if (result.applied()) {
        return new Versioned(next, result.etag().orElseThrow());
      }
      if (attempt >= attempts) {
        throw new KvorumClientException(412, "lost to other writers " + attempts + " times");
      }
      pause(attempt);
    }
  }

  /**
   * Streams the entries with {@code start <= key < end} (no upper bound if {@code end} is null).
   * Close the reader when done with it.
   */
  public RangeReader range(byte[] start, byte[] end) {
    return RangeReader.open(resolved(), start, end, timeout, authorization);
  }

  /** Reads a whole range into memory; for small ranges. */
  public List<RangeEntry> rangeAll(byte[] start, byte[] end) {
    List<RangeEntry> entries = new ArrayList<>();
    try (RangeReader reader = range(start, end)) {
      reader.forEachRemaining(entries::add);
    }
    return entries;
  }

  /**
   * Whether the node reports ready ({@code /health/ready} answers 200: the answer of {@code
   * /v0/status}, without a token when the node asks for tokens).
   */
  public boolean ready() {
    try {
      return send(HttpRequest.newBuilder(base.resolve(KvorumApi.PATH_READY)).GET()).statusCode()
          == 200;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  /**
   * Sends any request, with this client's token if it has one; for what the typed methods do not
   * cover.
   */
  public HttpResponse<byte[]> send(HttpRequest.Builder request) {
    if (authorization != null) {
      request.setHeader(KvorumApi.AUTHORIZATION, authorization);
    }
    try {
      return http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException("request to " + base + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted", e));
    }
  }

  private HttpRequest.Builder putRequest(
      byte[] key, byte[] value, Consistency consistency, Duration ttl) {
    String extra = ttl == null ? "" : "&" + KvorumApi.PARAM_TTL + "=" + ttl.toMillis() + "ms";
    return entity(key, consistency, extra).PUT(HttpRequest.BodyPublishers.ofByteArray(value));
  }

  private ConditionalResult conditional(HttpRequest.Builder request, int success) {
    HttpResponse<byte[]> response = send(request);
    if (response.statusCode() == 412) {
      return ConditionalResult.refused(response.headers().firstValue(KvorumApi.ETAG));
    }
    return ConditionalResult.written(etag(expect(response, success)));
  }

  private static String etagIfAny(HttpResponse<byte[]> response) {
    return response.headers().firstValue(KvorumApi.ETAG).orElse(null);
  }

  private static String etag(HttpResponse<byte[]> response) {
    return response
        .headers()
        .firstValue(KvorumApi.ETAG)
        .orElseThrow(() -> new KvorumClientException(response.statusCode(), "no ETag answered"));
  }

  /** Up to 2^attempt milliseconds (at most a second), at random, so that contenders spread out. */
  private static void pause(int attempt) {
    long bound = 1L << Math.min(attempt, 10);
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(bound + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted", e));
    }
  }

  private HttpRequest.Builder entity(byte[] key, Consistency consistency, String extra) {
    return HttpRequest.newBuilder(
        base.resolve(
            KvorumApi.PATH_ENTITY
                + "?"
                + KvorumApi.PARAM_ID
                + "="
                + Urls.encode(key)
                + consistency.query()
                + extra));
  }

  private static HttpResponse<byte[]> expect(HttpResponse<byte[]> response, int status) {
    if (response.statusCode() != status) {
      throw new KvorumClientException(
          response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
    }
    return response;
  }

  private InetSocketAddress resolved() {
    return new InetSocketAddress(server.getHostString(), server.getPort());
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    http.close();
  }
}
