package io.kvorum.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends a request to the cluster within its deadline: to the node its {@link Router} names (a
 * replica of its key) or else the next node in turn, and again to another after a connection
 * failure or a {@code 503}, after a jittered exponential back-off that waits at least what {@code
 * Retry-After} asks. Only requests safe to repeat are sent again after an answer that leaves their
 * effect unknown (a timeout, a connection lost after sending, a 503); a conditional write is sent
 * again only when it never left this client (the connection was refused). Any other answer, an
 * error status too, is the caller's.
 */
final class RetryingSender {
  /** Whether a request may be sent again after an answer that leaves its effect unknown. */
  enum Repeat {
    SAFE,
    NEVER_AFTER_SENDING
  }

  /** Which node a key's request should go to, or null for any (the next in turn). */
  interface Router {
    /**
     * @param from the request's {@code from}, or null for the cluster's default
     * @param tried the node the call's previous attempt went to, not to be chosen again; null on a
     *     first attempt
     */
    URI route(byte[] key, Integer from, URI tried);
  }

  /**
   * A request to send: its method, path and query, body and headers; and, for a request about one
   * key, that key and its {@code from} (null: the cluster's default), for the {@link Router}.
   */
  record Call(
      String method,
      String target,
      byte[] body,
      String[] headers,
      Repeat repeat,
      Duration deadline,
      byte[] key,
      Integer from) {
    /** A request about no key in particular: it goes to the next node in turn. */
    Call(
        String method,
        String target,
        byte[] body,
        String[] headers,
        Repeat repeat,
        Duration deadline) {
      this(method, target, body, headers, repeat, deadline, null, null);
    }

    HttpRequest request(URI node, Duration timeout, String authorization) {
      HttpRequest.Builder builder =
          HttpRequest.newBuilder(node.resolve(target))
              .timeout(timeout)
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
      for (int i = 0; i + 1 < headers.length; i += 2) {
        builder.header(headers[i], headers[i + 1]);
      }
      if (authorization != null) {
        builder.setHeader(KvorumApi.AUTHORIZATION, authorization);
      }
      return builder.build();
    }
  }

  private final HttpClient http;
  private final Endpoints endpoints;
  private final ConcurrencyLimit limit;
  private final ClientSettings settings;
  private final ScheduledExecutorService timers;
  private final ExecutorService exchanges;
  private final Router router;

  /**
   * @param router where a request about one key goes, first and after a failure (elsewhere than the
   *     node that failed); the next node in turn when it names none
   * @param timers runs deadlines, attempt timeouts and back-offs; its tasks are short and never
   *     block
   * @param exchanges runs each exchange's blocking send, a virtual thread each
   */
  RetryingSender(
      HttpClient http,
      Endpoints endpoints,
      ConcurrencyLimit limit,
      ClientSettings settings,
      ScheduledExecutorService timers,
      ExecutorService exchanges,
      Router router) {
    this.http = http;
    this.endpoints = endpoints;
    this.limit = limit;
    this.settings = settings;
    this.timers = timers;
    this.exchanges = exchanges;
    this.router = router;
  }

  /**
   * The answer to {@code call}: the first that is final (any status but a retried 503), or the last
   * 503; fails with {@link UncheckedIOException} when no node answered within the deadline. The
   * future completes by the deadline whatever the nodes and the network do: then a call still
   * waiting for its turn leaves the queue, and one in flight is cancelled and gives its turn back.
   */
  CompletableFuture<HttpResponse<byte[]>> send(Call call) {
    Flight flight = new Flight(call, System.nanoTime() + call.deadline().toNanos());
    ScheduledFuture<?> deadline;
    try {
      deadline =
          timers.schedule(
              () ->
                  flight.result.completeExceptionally(
                      unreachable(
                          call,
                          new HttpTimeoutException(
                              "no answer within the deadline of "
                                  + call.deadline().toMillis()
                                  + " ms"))),
              call.deadline().toNanos(),
              TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(closed(call, e));
    }
    flight.result.whenComplete(
        (response, error) -> {
          deadline.cancel(false);
          flight.abandon();
        });
    attempt(flight, 1);
    return flight.result;
  }

  /** One call across its attempts: its result, and what its current attempt waits on. */
  private static final class Flight {
    final Call call;
    final long deadline;
    final CompletableFuture<HttpResponse<byte[]>> result = new CompletableFuture<>();
    private volatile Future<?> pending;
    // The node the latest attempt went to: a retry is routed elsewhere.
    private volatile URI tried;

    Flight(Call call, long deadline) {
      this.call = call;
      this.deadline = deadline;
    }

    /** Makes {@code step} what the call waits on; cancels it at once if the call is over. */
    void waitOn(Future<?> step) {
      pending = step;
      if (result.isDone()) {
        step.cancel(true);
      }
    }

    /** The call is over: the turn it waits for, or the request it sent, is cancelled. */
    void abandon() {
      Future<?> step = pending;
      if (step != null) {
        step.cancel(true);
      }
    }
  }

  private void attempt(Flight flight, int attempt) {
    if (flight.result.isDone()) {
      return;
    }
    CompletableFuture<Void> turn = limit.acquire();
    flight.waitOn(turn);
    turn.whenComplete(
        (held, cancelled) -> {
          if (cancelled == null) {
            send(flight, attempt);
          }
        });
  }

  /** Sends one attempt, holding a permit: given back once, however the attempt ends. */
  private void send(Flight flight, int attempt) {
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            limit.release();
          }
        };
    long left = flight.deadline - System.nanoTime();
    if (flight.result.isDone() || left <= 0) {
      release.run();
      return;
    }
    URI node = node(flight.call, flight.tried);
    flight.tried = node;
    boolean cutShort = left < settings.attemptTimeout().toNanos();
    Duration timeout = Duration.ofNanos(cutShort ? left : settings.attemptTimeout().toNanos());
    CompletableFuture<HttpResponse<byte[]>> sent;
    try {
      sent = exchange(flight.call.request(node, timeout, settings.authorization()));
    } catch (RejectedExecutionException e) {
      release.run();
      flight.result.completeExceptionally(closed(flight.call, e));
      return;
    } catch (RuntimeException e) {
      release.run();
      flight.result.completeExceptionally(e);
      return;
    }
    // The JDK's request timeout does not cover every way an exchange can hang (a body the node
    // stopped reading): this one does, by cancelling the exchange.
    ScheduledFuture<?> attemptTimer =
        timers.schedule(() -> sent.cancel(true), timeout.toNanos(), TimeUnit.NANOSECONDS);
    flight.waitOn(sent);
    sent.whenComplete(
        (response, error) -> {
          attemptTimer.cancel(false);
          release.run();
          Throwable cause = error == null ? null : unwrap(error);
          if (cause instanceof CancellationException) {
            cause = new HttpTimeoutException("no answer from " + node + " within " + timeout);
          }
          next(flight, attempt, new Outcome(node, response, cause, cutShort));
        });
  }

  /**
   * Where {@code call} goes: where the router says (not {@code tried}, the node of its previous
   * attempt), else the next node in turn.
   */
  private URI node(Call call, URI tried) {
    URI routed = call.key() == null ? null : router.route(call.key(), call.from(), tried);
    return routed != null ? routed : endpoints.next();
  }

  /**
   * The exchange of {@code request}, sent by a virtual thread with the JDK client's blocking send;
   * cancelling the future interrupts it, which aborts the exchange. Not {@code sendAsync}: that
   * completes its future on the common fork-join pool, so an application keeping that pool busy
   * (one task is enough on two cores) would stall every call.
   */
  private CompletableFuture<HttpResponse<byte[]>> exchange(HttpRequest request) {
    CompletableFuture<HttpResponse<byte[]>> sent = new CompletableFuture<>();
    Future<?> task =
        exchanges.submit(
            () -> {
              try {
                sent.complete(http.send(request, HttpResponse.BodyHandlers.ofByteArray()));
              } catch (InterruptedException e) {
                sent.cancel(false);
              } catch (IOException | RuntimeException e) {
                sent.completeExceptionally(e);
              }
            });
    sent.whenComplete(
        (response, error) -> {
          if (sent.isCancelled()) {
            task.cancel(true);
          }
        });
    return sent;
  }

  /**
   * @param cutShort whether the attempt had less time than the attempt timeout: the call's deadline
   *     came first
   */
  private record Outcome(
      URI node, HttpResponse<byte[]> response, Throwable error, boolean cutShort) {}

  private void next(Flight flight, int attempt, Outcome outcome) {
    Call call = flight.call;
    CompletableFuture<HttpResponse<byte[]>> result = flight.result;
    if (result.isDone()) {
      return;
    }
    Throwable error = outcome.error();
    boolean again;
    Duration wait = backOff(attempt);
    if (error != null) {
      if (!(error instanceof IOException)) {
        result.completeExceptionally(error);
        return;
      }
      boolean neverSent = neverSent(error);
      // A node that did not answer within what was left of the call's deadline may still answer
      // within an attempt timeout: it is not taken out of turn for the call's lack of time.
      if (!(outcome.cutShort() && error instanceof HttpTimeoutException)) {
        endpoints.markDown(outcome.node(), settings.downFor().toNanos());
      }
      again = neverSent || call.repeat() == Repeat.SAFE;
    } else if (outcome.response().statusCode() == 503) {
      endpoints.markDown(outcome.node(), wait.toNanos());
      again = call.repeat() == Repeat.SAFE;
      Duration asked = retryAfter(outcome.response()).orElse(Duration.ZERO);
      wait = asked.compareTo(wait) > 0 ? asked : wait;
    } else {
      endpoints.markUp(outcome.node());
      result.complete(outcome.response());
      return;
    }
    boolean inTime = System.nanoTime() + wait.toNanos() < flight.deadline;
    if (again && inTime && attempt < settings.maxAttempts()) {
      flight.waitOn(
          timers.schedule(
              () -> attempt(flight, attempt + 1), wait.toNanos(), TimeUnit.NANOSECONDS));
    } else if (error != null) {
      result.completeExceptionally(unreachable(call, error));
    } else {
      result.complete(outcome.response());
    }
  }

  /**
   * Equal jitter: half of {@code base * 2^(attempt-1)} (capped) plus a random part of the other
   * half, so that clients that failed together do not come back together.
   */
  private Duration backOff(int attempt) {
    long base = settings.backOff().toNanos();
    long cap = settings.maxBackOff().toNanos();
    long ceiling = Math.min(cap, base << Math.min(attempt - 1, 20));
    long half = ceiling / 2;
    return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(half + 1));
  }

  /** {@code Retry-After} in seconds or as an HTTP date (RFC 9110 §10.2.3). */
  static Optional<Duration> retryAfter(HttpResponse<?> response) {
    return response
        .headers()
        .firstValue("Retry-After")
        .flatMap(
            value -> {
              String text = value.strip();
              try {
                return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(text))));
              } catch (NumberFormatException notSeconds) {
                try {
                  ZonedDateTime at =
                      ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
                  Duration until = Duration.between(ZonedDateTime.now(at.getZone()), at);
                  return Optional.of(until.isNegative() ? Duration.ZERO : until);
                } catch (DateTimeParseException notADate) {
                  return Optional.empty();
                }
              }
            });
  }

  /** Failures where the request cannot have reached a node: nothing to be unsure about. */
  private static boolean neverSent(Throwable error) {
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      if (cause instanceof ConnectException
          || cause instanceof HttpConnectTimeoutException
          || cause instanceof UnresolvedAddressException) {
        return true;
      }
    }
    return false;
  }

  /** A call on a closed client: no node can be asked, as when none answers. */
  private UncheckedIOException closed(Call call, RejectedExecutionException e) {
    return unreachable(call, new IOException("the client is closed", e));
  }

  private UncheckedIOException unreachable(Call call, Throwable error) {
    IOException cause = error instanceof IOException io ? io : new IOException(error);
    return new UncheckedIOException(
        call.method()
            + " "
            + call.target()
            + ": no node answered ("
            + endpoints.all()
            + "): "
            + error,
        cause);
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
