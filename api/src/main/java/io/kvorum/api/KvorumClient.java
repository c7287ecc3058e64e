package io.kvorum.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A client of a kvorum cluster's HTTP API. Keys and values are raw bytes ({@code String} overloads
 * use UTF-8). Thread-safe; one instance per application.
 *
 * <pre>{@code
 * try (KvorumClient kv = KvorumClient.builder()
 *     .seeds("kv-0.example:8080", "kv-1.example:8080")
 *     .tlsCa(Path.of("ca.crt"))
 *     .token(System.getenv("KVORUM_TOKEN"))
 *     .build()) {
 *   kv.put("greeting", "hello");
 *   Optional<String> v = kv.getUtf8("greeting");
 *   CompletableFuture<String> tag = kv.putAsync(key, value, Consistency.DEFAULT, null);
 * }
 * }</pre>
 *
 * <p>Requests go to the seed nodes and the members learned from {@code /v0/cluster}, in turn; a
 * request about one key (a get, put or delete, conditional or not) goes to one of that key's
 * replicas, computed by the nodes' own placement code, one in the client's {@linkplain
 * KvorumClientBuilder#zone zone} when it can, so that the node that coordinates it holds a copy
 * ({@linkplain KvorumClientBuilder#routing routing}; {@link #routing()} says when it is in force).
 * A node that refuses the connection or answers {@code 503} is skipped for a while and the request
 * goes to another after a jittered back-off that honours {@code Retry-After}, within the call's
 * deadline. Reads, deletes and unconditional writes are retried after any failure (every {@code
 * PUT} is idempotent under last-writer-wins); a conditional write only when it never reached a
 * node, never after an answer that leaves its effect unknown.
 *
 * <p>Every write answers the entity tag of the version it wrote; {@link #getVersioned} reads a
 * value with its tag, and {@link #putIfMatch}, {@link #putIfAbsent} and {@link #deleteIfMatch}
 * write only if the key is still at that version (a linearizable compare-and-set per key), which
 * {@link #compareAndSet} retries for a read-modify-write.
 *
 * <p>{@link #getAll}, {@link #putAll}, {@link #deleteAll} and {@link #batch} send many keys in one
 * request each hundred ({@code POST /v0/batch}), with one result per key.
 *
 * <p>{@link #admin()} asks the first seed what operators ask of a node: its cluster view and
 * readiness, a decommission or a removal, a repair, its snapshots, the load of versioned records.
 *
 * <p>Errors come as {@link KvorumClientException} and its subclasses (from the problem+json body);
 * when no node answered within the deadline, as {@link UncheckedIOException}. A failed condition is
 * no error: it is a {@link ConditionalResult} that did not apply. The {@code …Async} methods fail
 * their future with the same exceptions.
 */
public final class KvorumClient implements AutoCloseable {
  private final ClientSettings settings;
  private final HttpClient http;
  private final Endpoints endpoints;
  private final RetryingSender sender;
  private final KvorumAdmin admin;
  private final ScheduledExecutorService timers;

  /** The watches this client started, closed with it (weakly held: a closed one is forgotten). */
  private final Set<ChangeWatch> watches =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

  private final ExecutorService exchanges = Executors.newVirtualThreadPerTaskExecutor();
  private final Discovery discovery;

  KvorumClient(ClientSettings settings) {
    this.settings = settings;
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(settings.attemptTimeout());
    if (settings.tls() != null) {
      builder.sslContext(settings.tls());
    }
    this.http = builder.build();
    this.endpoints = new Endpoints(settings.seeds());
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1, Thread.ofPlatform().name("kvorum-client-timer").daemon().factory());
    timers.setRemoveOnCancelPolicy(true);
    this.timers = timers;
    ConcurrencyLimit limit = new ConcurrencyLimit(settings.maxInFlight());
    this.discovery = new Discovery(http, endpoints, settings, exchanges);
    this.sender =
        new RetryingSender(http, endpoints, limit, settings, timers, exchanges, discovery);
    Endpoints firstSeed = new Endpoints(List.of(settings.seeds().get(0)));
    this.admin =
        new KvorumAdmin(
            new RetryingSender(
                http, firstSeed, limit, settings, timers, exchanges, (key, from, tried) -> null),
            settings.deadline(),
            this::stream);
  }

  /** A builder of a client: seeds, TLS, token, deadlines, retries. */
  public static KvorumClientBuilder builder() {
    return new KvorumClientBuilder();
  }

  /**
   * A client of the node at {@code host:port} alone, each call's deadline 10 s: every request goes
   * to that node, once, and its answer (a {@code 503} too) is the caller's. For a client of the
   * cluster, which learns the other members and fails over to them, use {@link #builder()} with
   * {@link KvorumClientBuilder#seeds}.
   */
  public static KvorumClient connect(String host, int port) {
    return connect(host, port, Duration.ofSeconds(10));
  }

  /** As {@link #connect(String, int)}, each call's deadline {@code timeout}. */
  public static KvorumClient connect(String host, int port, Duration timeout) {
    return builder()
        .seed(host, port)
        .discovery(false)
        .maxAttempts(1)
        .deadline(timeout)
        .attemptTimeout(timeout)
        .build();
  }

  /**
   * A client of the same nodes that sends {@code token} as {@code Authorization: Bearer} with every
   * request, for nodes run with {@code --auth-tokens}. This client stays as it was; close both.
   */
  public KvorumClient withToken(String token) {
    return new KvorumClient(settings.withAuthorization(KvorumClientBuilder.bearer(token)));
  }

  /** The first seed's base URI (e.g. {@code http://localhost:8080}). */
  public URI baseUri() {
    return settings.seeds().get(0);
  }

  /**
   * The operator's endpoints of the first seed (that node alone, no failover): its cluster view,
   * readiness, decommission, the removal of a dead member, repair, snapshots and load.
   */
  public KvorumAdmin admin() {
    return admin;
  }

  /** The nodes this client sends to: its seeds and the members it learned. */
  public List<URI> nodes() {
    return endpoints.all();
  }

  /**
   * Whether this client sends each key's requests to one of its replicas now: routing is on ({@link
   * KvorumClientBuilder#routing}) and it has learned the members and a placement it computes as the
   * nodes do (it learns them in the background from the first call on; a cluster of an older
   * release or of another placement is never routed to).
   */
  public boolean routing() {
    return discovery.routing();
  }

  // ---- reads ----------------------------------------------------------------------------------

  public CompletableFuture<Optional<Versioned>> getVersionedAsync(
      byte[] key, Consistency consistency) {
    return read(key, consistency, "")
        .thenApply(found -> found.map(response -> new Versioned(response.body(), etag(response))));
  }

  /**
   * The value of {@code key} with its entity tag, read linearizably ({@code
   * consistency=linearizable}, SPEC §10, as Cassandra's {@code SERIAL}): through the key's Paxos
   * acceptors, finishing any conditional write in progress first, so it is never older than a
   * conditional write already acknowledged. Costs a Paxos round; a plain read is cheaper.
   */
  public CompletableFuture<Optional<Versioned>> getLinearizableAsync(byte[] key) {
    String linearizable =
        "&" + KvorumApi.PARAM_CONSISTENCY + "=" + KvorumApi.CONSISTENCY_LINEARIZABLE;
    return read(key, Consistency.DEFAULT, linearizable)
        .thenApply(found -> found.map(response -> new Versioned(response.body(), etag(response))));
  }

  /** As {@link #getLinearizableAsync}, waiting for the answer. */
  public Optional<Versioned> getLinearizable(byte[] key) {
    return join(getLinearizableAsync(key));
  }

  /**
   * The value alone: a node of 0.1.0 (in a cluster being upgraded) answers a GET without an ETag,
   * which only {@link #getVersionedAsync} needs.
   */
  public CompletableFuture<Optional<byte[]>> getAsync(byte[] key, Consistency consistency) {
    return read(key, consistency, "").thenApply(found -> found.map(HttpResponse::body));
  }

  /** The node's 200 answer to a GET of {@code key}, or empty on a 404. */
  private CompletableFuture<Optional<HttpResponse<byte[]>>> read(
      byte[] key, Consistency consistency, String extra) {
    return keyCall("GET", key, consistency, extra, null, RetryingSender.Repeat.SAFE)
        .thenApply(
            response ->
                response.statusCode() == 404
                    ? Optional.empty()
                    : Optional.of(expect(response, 200)));
  }

  /** The value of {@code key} with its entity tag, or empty if it is absent, deleted or expired. */
  public Optional<Versioned> getVersioned(byte[] key, Consistency consistency) {
    return join(getVersionedAsync(key, consistency));
  }

  public Optional<Versioned> getVersioned(byte[] key) {
    return getVersioned(key, Consistency.DEFAULT);
  }

  /** The value of {@code key}, or empty if it is absent, deleted or expired. */
  public Optional<byte[]> get(byte[] key, Consistency consistency) {
    return join(getAsync(key, consistency));
  }

  public Optional<byte[]> get(byte[] key) {
    return get(key, Consistency.DEFAULT);
  }

  public Optional<String> getUtf8(String key) {
    return get(utf8(key)).map(v -> new String(v, StandardCharsets.UTF_8));
  }

  // ---- writes ---------------------------------------------------------------------------------

  /**
   * Stores {@code value} under {@code key}; completes with the entity tag of the version written.
   *
   * @param ttl how long the value lives, or null for ever
   * @return the entity tag of the version written, or null from a node of kvorum 0.1.0, which
   *     answers none (a cluster in the middle of its upgrade)
   */
  public CompletableFuture<String> putAsync(
      byte[] key, byte[] value, Consistency consistency, Duration ttl) {
    String extra = ttl == null ? "" : "&" + KvorumApi.PARAM_TTL + "=" + ttl.toMillis() + "ms";
    return keyCall("PUT", key, consistency, extra, value, RetryingSender.Repeat.SAFE)
        .thenApply(response -> etagIfAny(expect(response, 201)));
  }

  /** Stores {@code value} under {@code key}, as {@link #putAsync} does, and waits. */
  public String put(byte[] key, byte[] value, Consistency consistency, Duration ttl) {
    return join(putAsync(key, value, consistency, ttl));
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
   * Deletes {@code key}; completes with the entity tag of the tombstone's version, or null from a
   * node of kvorum 0.1.0, which answers none.
   */
  public CompletableFuture<String> deleteAsync(byte[] key, Consistency consistency) {
    return keyCall("DELETE", key, consistency, "", null, RetryingSender.Repeat.SAFE)
        .thenApply(response -> etagIfAny(expect(response, 202)));
  }

  public String delete(byte[] key, Consistency consistency) {
    return join(deleteAsync(key, consistency));
  }

  public String delete(byte[] key) {
    return delete(key, Consistency.DEFAULT);
  }

  public String delete(String key) {
    return delete(utf8(key));
  }

  // ---- conditional writes: never repeated once sent --------------------------------------------

  /** Stores {@code value} only if {@code key} is absent (never written, deleted or expired). */
  public CompletableFuture<ConditionalResult> putIfAbsentAsync(byte[] key, byte[] value) {
    return conditional("PUT", key, value, 201, KvorumApi.IF_NONE_MATCH, "*");
  }

  /** Stores {@code value} only if {@code key}'s current version is the one {@code etag} names. */
  public CompletableFuture<ConditionalResult> putIfMatchAsync(
      byte[] key, byte[] value, String etag) {
    return conditional("PUT", key, value, 201, KvorumApi.IF_MATCH, etag);
  }

  /** Deletes {@code key} only if its current version is the one {@code etag} names. */
  public CompletableFuture<ConditionalResult> deleteIfMatchAsync(byte[] key, String etag) {
    return conditional("DELETE", key, null, 202, KvorumApi.IF_MATCH, etag);
  }

  public ConditionalResult putIfAbsent(byte[] key, byte[] value) {
    return join(putIfAbsentAsync(key, value));
  }

  public ConditionalResult putIfMatch(byte[] key, byte[] value, String etag) {
    return join(putIfMatchAsync(key, value, etag));
  }

  public ConditionalResult deleteIfMatch(byte[] key, String etag) {
    return join(deleteIfMatchAsync(key, etag));
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

  // ---- batches --------------------------------------------------------------------------------

  /**
   * Runs {@code items} (unconditional gets, puts and deletes, each key at most once) with {@code
   * POST /v0/batch}: in requests of at most 100 items and about 12 MiB, sent one after another; one
   * result per item, in their order, each what that item alone would have answered. Not atomic:
   * each item succeeds or fails on its own, and a failed item ({@link BatchItemResult#failure()})
   * is not retried; whether a retry is worth it is its exception's. A request that fails as a whole
   * (refused, or no node answered) fails the call, though earlier requests may have run.
   */
  public CompletableFuture<List<BatchItemResult>> batchAsync(
      List<BatchItem> items, Consistency consistency) {
    String target = KvorumApi.PATH_BATCH + consistency.query().replaceFirst("^&", "?");
    CompletableFuture<List<BatchItemResult>> all =
        CompletableFuture.completedFuture(new ArrayList<>(items.size()));
    for (List<BatchItem> request : Batches.split(items)) {
      all =
          all.thenCompose(
              done ->
                  call(
                          "POST",
                          target,
                          Batches.body(request),
                          RetryingSender.Repeat.SAFE,
                          "Content-Type",
                          KvorumApi.JSON)
                      .thenApply(
                          response -> {
                            done.addAll(Batches.results(request, expect(response, 200).body()));
                            return done;
                          }));
    }
    return all;
  }

  public List<BatchItemResult> batch(List<BatchItem> items, Consistency consistency) {
    return join(batchAsync(items, consistency));
  }

  /** Reads {@code keys} in batches; one result per key, in order (see {@link #batchAsync}). */
  public List<BatchItemResult> getAll(List<String> keys, Consistency consistency) {
    return batch(keys.stream().map(BatchItem::get).toList(), consistency);
  }

  public List<BatchItemResult> getAll(List<String> keys) {
    return getAll(keys, Consistency.DEFAULT);
  }

  /**
   * Stores {@code values} (in their map's iteration order) in batches, each living {@code ttl}
   * (null for ever); one result per key, in order (see {@link #batchAsync}).
   */
  public List<BatchItemResult> putAll(
      Map<String, byte[]> values, Consistency consistency, Duration ttl) {
    List<BatchItem> items = new ArrayList<>(values.size());
    values.forEach((key, value) -> items.add(BatchItem.put(key, value, ttl)));
    return batch(items, consistency);
  }

  public List<BatchItemResult> putAll(Map<String, byte[]> values) {
    return putAll(values, Consistency.DEFAULT, null);
  }

  /** Deletes {@code keys} in batches; one result per key, in order (see {@link #batchAsync}). */
  public List<BatchItemResult> deleteAll(List<String> keys, Consistency consistency) {
    return batch(keys.stream().map(BatchItem::delete).toList(), consistency);
  }

  public List<BatchItemResult> deleteAll(List<String> keys) {
    return deleteAll(keys, Consistency.DEFAULT);
  }

  // ---- ranges ---------------------------------------------------------------------------------

  /**
   * Streams the entries with {@code start <= key < end} (no upper bound if {@code end} is null) as
   * NDJSON, reading as the caller iterates (memory stays flat). Close the reader when done with it.
   */
  public RangeReader range(byte[] start, byte[] end) {
    return range(start, end, 0);
  }

  /**
   * As {@link #range(byte[], byte[])}, at most {@code limit} entries (0: no limit): the first ones
   * from {@code start}. The next page starts at the last entry's {@link RangeEntry#nextStart()}; a
   * page shorter than {@code limit} is the last.
   */
  public RangeReader range(byte[] start, byte[] end, int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, got " + limit);
    }
    StringBuilder target =
        new StringBuilder(KvorumApi.PATH_ENTITIES)
            .append('?')
            .append(KvorumApi.PARAM_START)
            .append('=')
            .append(Urls.encode(start));
    if (end != null) {
      target.append('&').append(KvorumApi.PARAM_END).append('=').append(Urls.encode(end));
    }
    if (limit > 0) {
      target.append('&').append(KvorumApi.PARAM_LIMIT).append('=').append(limit);
    }
    return RangeReader.open(http, endpoints, settings, target.toString());
  }

  // ---- change feeds ---------------------------------------------------------------------------

  /**
   * Follows the changes of keys with {@code start <= key < end} (no upper bound if {@code end} is
   * null) from {@code since} (a cursor from an event or a range read's {@code Kvorum-Cursor}; null:
   * from now), handing each event to {@code listener} on the watch's own thread, in order. The
   * watch resumes by itself from its last cursor when a node fails or cuts it off; close it when
   * done. Delivery is at least once: keep the newest version of each key.
   */
  public ChangeWatch watch(byte[] start, byte[] end, String since, Consumer<ChangeEvent> listener) {
    StringBuilder target =
        new StringBuilder(KvorumApi.PATH_CHANGES)
            .append('?')
            .append(KvorumApi.PARAM_START)
            .append('=')
            .append(Urls.encode(start));
    if (end != null) {
      target.append('&').append(KvorumApi.PARAM_END).append('=').append(Urls.encode(end));
    }
    return watched(
        new ChangeWatch(http, endpoints, settings, target.toString(), since, listener, timers));
  }

  /** Follows the changes of one key, as {@link #watch(byte[], byte[], String, Consumer)} does. */
  public ChangeWatch watchKey(byte[] key, String since, Consumer<ChangeEvent> listener) {
    String target = KvorumApi.PATH_CHANGES + "?" + KvorumApi.PARAM_ID + "=" + Urls.encode(key);
    return watched(new ChangeWatch(http, endpoints, settings, target, since, listener, timers));
  }

  private ChangeWatch watched(ChangeWatch watch) {
    watches.add(watch);
    return watch;
  }

  /** Reads a whole range into memory; for small ranges. */
  public List<RangeEntry> rangeAll(byte[] start, byte[] end) {
    List<RangeEntry> entries = new ArrayList<>();
    try (RangeReader reader = range(start, end)) {
      reader.forEachRemaining(entries::add);
    }
    return entries;
  }

  // ---- the rest -------------------------------------------------------------------------------

  /**
   * Whether the first seed reports ready ({@code /health/ready} answers 200: the answer of {@code
   * /v0/status}, without a token when the node asks for tokens).
   */
  public boolean ready() {
    try {
      return send(HttpRequest.newBuilder(baseUri().resolve(KvorumApi.PATH_READY)).GET())
              .statusCode()
          == 200;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  /** A GET of {@code target} to the first seed, once, its body left to read. */
  private HttpResponse<InputStream> stream(String target) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(settings.seeds().get(0).resolve(target))
            .timeout(settings.attemptTimeout())
            .GET();
    if (settings.authorization() != null) {
      request.header(KvorumApi.AUTHORIZATION, settings.authorization());
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new java.io.InterruptedIOException("interrupted"));
    } catch (IOException e) {
      throw new UncheckedIOException(request.build().uri() + " failed: " + e, e);
    }
  }

  /**
   * Sends any request once, with this client's token if it has one and its per-attempt timeout; for
   * what the typed methods do not cover.
   */
  public HttpResponse<byte[]> send(HttpRequest.Builder request) {
    if (settings.authorization() != null) {
      request.setHeader(KvorumApi.AUTHORIZATION, settings.authorization());
    }
    try {
      return http.send(
          request.timeout(settings.attemptTimeout()).build(),
          HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException("request failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted", e));
    }
  }

  private CompletableFuture<HttpResponse<byte[]>> call(
      String method, String target, byte[] body, RetryingSender.Repeat repeat, String... headers) {
    return dispatch(
        new RetryingSender.Call(method, target, body, headers, repeat, settings.deadline()));
  }

  /** A request about {@code key} alone: with routing on, sent to one of its replicas. */
  private CompletableFuture<HttpResponse<byte[]>> keyCall(
      String method,
      byte[] key,
      Consistency consistency,
      String extra,
      byte[] body,
      RetryingSender.Repeat repeat,
      String... headers) {
    return dispatch(
        new RetryingSender.Call(
            method,
            entity(key, consistency, extra),
            body,
            headers,
            repeat,
            settings.deadline(),
            key,
            consistency.from()));
  }

  private CompletableFuture<HttpResponse<byte[]>> dispatch(RetryingSender.Call call) {
    discovery.ifDue();
    return sender.send(call);
  }

  private CompletableFuture<ConditionalResult> conditional(
      String method, byte[] key, byte[] value, int success, String header, String tag) {
    return keyCall(
            method,
            key,
            Consistency.DEFAULT,
            "",
            value,
            RetryingSender.Repeat.NEVER_AFTER_SENDING,
            header,
            tag)
        .thenApply(
            response ->
                response.statusCode() == 412
                    ? ConditionalResult.refused(response.headers().firstValue(KvorumApi.ETAG))
                    : ConditionalResult.written(etag(expect(response, success))));
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

  private static String entity(byte[] key, Consistency consistency, String extra) {
    return KvorumApi.PATH_ENTITY
        + "?"
        + KvorumApi.PARAM_ID
        + "="
        + Urls.encode(key)
        + consistency.query()
        + extra;
  }

  private static HttpResponse<byte[]> expect(HttpResponse<byte[]> response, int status) {
    if (response.statusCode() != status) {
      throw KvorumClientException.of(response.statusCode(), response.body());
    }
    return response;
  }

  /**
   * The result of a blocking call: its value, or the exception the future failed with. The future
   * completes by the call's deadline; an interrupt ends the wait sooner.
   */
  static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        cause.addSuppressed(new Exception("called from here"));
        throw cause;
      }
      throw new CompletionException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new InterruptedIOException("interrupted while waiting"));
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    List<ChangeWatch> open;
    synchronized (watches) {
      open = List.copyOf(watches);
    }
    open.forEach(ChangeWatch::close);
    // Calls still in flight fail now (the exchanges are aborted) or by their deadline (the timers
    // already set still run); the JDK client's close() would wait for them otherwise.
    http.shutdownNow();
    timers.shutdown();
    exchanges.shutdownNow();
    http.close();
  }
}
