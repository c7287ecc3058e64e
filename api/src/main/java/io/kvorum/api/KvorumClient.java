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
 * Errors come as {@link KvorumClientException} with the HTTP status (504 when the quorum was not
 * reached, 400 for bad parameters); I/O failures as {@link UncheckedIOException}.
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
   */
  public void put(byte[] key, byte[] value, Consistency consistency, Duration ttl) {
    String extra = ttl == null ? "" : "&" + KvorumApi.PARAM_TTL + "=" + ttl.toMillis() + "ms";
    expect(
        send(entity(key, consistency, extra).PUT(HttpRequest.BodyPublishers.ofByteArray(value))),
        201);
  }

  public void put(byte[] key, byte[] value, Consistency consistency) {
    put(key, value, consistency, null);
  }

  public void put(byte[] key, byte[] value) {
    put(key, value, Consistency.DEFAULT, null);
  }

  public void put(String key, String value) {
    put(utf8(key), utf8(value));
  }

  public void delete(byte[] key, Consistency consistency) {
    expect(send(entity(key, consistency, "").DELETE()), 202);
  }

  public void delete(byte[] key) {
    delete(key, Consistency.DEFAULT);
  }

  public void delete(String key) {
    delete(utf8(key));
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
