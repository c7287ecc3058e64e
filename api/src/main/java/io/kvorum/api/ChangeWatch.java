package io.kvorum.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A change feed followed by a thread of its own (SPEC §12), which resumes by itself: when the
 * connection breaks, the node goes away, stays silent past {@link #SILENCE} (it sends progress
 * every few seconds), or ends the feed for a reason worth retrying (a consumer cut off for being
 * slow, a node stopping), it opens the feed again on the next node from the last cursor it saw,
 * after a short random pause. Delivery is at least once: after a resume a change may come again;
 * keep the newest version of each key. The watch ends on {@link #close}, or on an answer that
 * retrying cannot change (a cursor past the retention: {@code 410}; a bad request; a refused
 * token), which {@link #ended()} then holds.
 */
public final class ChangeWatch implements AutoCloseable {
  /** How long a feed may send nothing before the watch takes it for dead and resumes elsewhere. */
  public static final Duration SILENCE = Duration.ofSeconds(15);

  private final HttpClient http;
  private final Endpoints endpoints;
  private final ClientSettings settings;
  private final String target;
  private final Consumer<ChangeEvent> listener;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final AtomicLong lastLineNanos = new AtomicLong(System.nanoTime());
  private final Thread reader;
  private final ScheduledFuture<?> watchdog;
  private volatile String cursor;
  private volatile InputStream body;
  private volatile boolean closed;
  private volatile int resumes;

  ChangeWatch(
      HttpClient http,
      Endpoints endpoints,
      ClientSettings settings,
      String target,
      String since,
      Consumer<ChangeEvent> listener,
      ScheduledExecutorService timers) {
    this.http = http;
    this.endpoints = endpoints;
    this.settings = settings;
    this.target = target;
    this.cursor = since;
    this.listener = listener;
    this.reader = Thread.ofPlatform().daemon().name("kvorum-watch").start(this::run);
    this.watchdog = timers.scheduleWithFixedDelay(this::checkSilence, 1, 1, TimeUnit.SECONDS);
  }

  /** The cursor of the last event delivered (or the one the watch started from; null: now). */
  public String cursor() {
    return cursor;
  }

  /** How many times the watch opened the feed again after a cut. */
  public int resumes() {
    return resumes;
  }

  /**
   * Completes when the watch ends: normally after {@link #close}, exceptionally with the {@link
   * KvorumClientException} of an answer that retrying cannot change.
   */
  public CompletableFuture<Void> ended() {
    return ended;
  }

  private void run() {
    try {
      for (int attempt = 0; !closed; attempt++) {
        try {
          follow();
          attempt = 0;
        } catch (KvorumClientException e) {
          if (!retryable(e.status())) {
            throw e;
          }
        } catch (UncheckedIOException | IOException e) {
          // the connection broke, the node went away or fell silent: resume elsewhere
        }
        if (!closed) {
          resumes++;
          pause(attempt);
        }
      }
      ended.complete(null);
    } catch (RuntimeException e) {
      // An answer retrying cannot change, or the listener's own failure: the watch ends with it.
      ended.completeExceptionally(e);
    } finally {
      watchdog.cancel(false);
    }
  }

  private static boolean retryable(int status) {
    return status == 503 || status == 504 || status == 500;
  }

  /** Opens the feed on the next node and delivers its events until it ends. */
  private void follow() throws IOException {
    URI node = endpoints.next();
    String query = cursor == null ? target : target + "&" + KvorumApi.PARAM_SINCE + "=" + cursor;
    HttpRequest.Builder request =
        HttpRequest.newBuilder(node.resolve(query)).header("Accept", KvorumApi.NDJSON).GET();
    if (settings.authorization() != null) {
      request.header(KvorumApi.AUTHORIZATION, settings.authorization());
    }
    HttpResponse<InputStream> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
      return;
    } catch (IOException e) {
      endpoints.markDown(node, settings.downFor().toNanos());
      throw e;
    }
    try (InputStream in = response.body()) {
      if (response.statusCode() != 200) {
        throw KvorumClientException.of(response.statusCode(), in.readAllBytes());
      }
      body = in;
      lastLineNanos.set(System.nanoTime());
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null && !closed; line = lines.readLine()) {
        lastLineNanos.set(System.nanoTime());
        deliver(Json.object(line.getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  private void deliver(Map<String, Object> line) {
    if (line.get("error") instanceof Map<?, ?> problem) {
      Object status = problem.get("status");
      throw KvorumClientException.of(
          status instanceof Number n ? n.intValue() : 500,
          problem.get("title") instanceof String t ? t : null,
          "change feed ended: " + (problem.get("detail") instanceof String d ? d : "no detail"),
          Json.text(problem));
    }
    String at = Json.string(line, "cursor");
    ChangeEvent event;
    if (Boolean.TRUE.equals(line.get("progress"))) {
      event =
          new ChangeEvent(
              ChangeEvent.Kind.PROGRESS, new byte[0], new byte[0], null, Optional.empty(), at);
    } else {
      Base64.Decoder base64 = Base64.getDecoder();
      boolean deleted = Boolean.TRUE.equals(line.get("deleted"));
      event =
          new ChangeEvent(
              deleted ? ChangeEvent.Kind.DELETE : ChangeEvent.Kind.PUT,
              base64.decode(Json.string(line, "key")),
              deleted ? new byte[0] : base64.decode(Json.string(line, "value")),
              Json.string(line, "etag"),
              line.get("expiresAt") instanceof String expiry
                  ? Optional.of(Instant.parse(expiry))
                  : Optional.empty(),
              at);
    }
    listener.accept(event);
    cursor = at;
  }

  /** Closes the feed of a node that sent nothing for {@link #SILENCE} (the watchdog's check). */
  private void checkSilence() {
    if (System.nanoTime() - lastLineNanos.get() > SILENCE.toNanos()) {
      closeBody();
      lastLineNanos.set(System.nanoTime());
    }
  }

  private void closeBody() {
    InputStream open = body;
    if (open != null) {
      try {
        open.close();
      } catch (IOException e) {
        // closed anyway
      }
    }
  }

  /** Up to 2^attempt × 100 ms (at most 5 s), at random. */
  private void pause(int attempt) {
    long bound = Math.min(5_000, 100L << Math.min(attempt, 6));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(bound / 2, bound + 1));
    } catch (InterruptedException e) {
      closed = true;
    }
  }

  /** Ends the watch; once this returns no event is delivered any more. */
  @Override
  public void close() {
    closed = true;
    closeBody();
    reader.interrupt();
    try {
      reader.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ended.complete(null);
  }
}
