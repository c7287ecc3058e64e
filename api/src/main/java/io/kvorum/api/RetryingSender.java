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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends a request to the cluster within its deadline: to the next node in turn, and again to
 * another after a connection failure or a {@code 503}, after a jittered exponential back-off that
 * waits at least what {@code Retry-After} asks. Only requests safe to repeat are sent again after
 * an answer that leaves their effect unknown (a timeout, a connection lost after sending, a 503); a
 * conditional write is sent again only when it never left this client (the connection was refused).
 * Any other answer, an error status too, is the caller's.
 */
final class RetryingSender {
  /** Whether a request may be sent again after an answer that leaves its effect unknown. */
  enum Repeat {
    SAFE,
    NEVER_AFTER_SENDING
  }

  /** A request to send to whichever node: its method, path and query, body and headers. */
  record Call(
      String method,
      String target,
      byte[] body,
      String[] headers,
      Repeat repeat,
      Duration deadline) {
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

  RetryingSender(
      HttpClient http, Endpoints endpoints, ConcurrencyLimit limit, ClientSettings settings) {
    this.http = http;
    this.endpoints = endpoints;
    this.limit = limit;
    this.settings = settings;
  }

  /**
   * The answer to {@code call}: the first that is final (any status but a retried 503), or the last
   * 503; fails with {@link UncheckedIOException} when no node answered within the deadline.
   */
  CompletableFuture<HttpResponse<byte[]>> send(Call call) {
    CompletableFuture<HttpResponse<byte[]>> result = new CompletableFuture<>();
    attempt(call, 1, System.nanoTime() + call.deadline().toNanos(), result);
    return result;
  }

  private void attempt(
      Call call, int attempt, long deadline, CompletableFuture<HttpResponse<byte[]>> result) {
    limit
        .acquire()
        .thenCompose(
            held -> {
              long left = deadline - System.nanoTime();
              if (left <= 0) {
                limit.release();
                return CompletableFuture.failedFuture(
                    new HttpTimeoutException("no permit to send within the deadline"));
              }
              URI node = endpoints.next();
              Duration timeout =
                  Duration.ofNanos(Math.min(left, settings.attemptTimeout().toNanos()));
              CompletableFuture<HttpResponse<byte[]>> sent;
              try {
                sent =
                    http.sendAsync(
                        call.request(node, timeout, settings.authorization()),
                        HttpResponse.BodyHandlers.ofByteArray());
              } catch (RuntimeException e) {
                limit.release();
                throw e;
              }
              return sent.handle(
                  (response, error) -> {
                    limit.release();
                    return new Outcome(node, response, error);
                  });
            })
        .whenComplete(
            (outcome, error) -> {
              if (error != null) {
                result.completeExceptionally(unreachable(call, unwrap(error)));
              } else {
                next(call, attempt, deadline, result, outcome);
              }
            });
  }

  private record Outcome(URI node, HttpResponse<byte[]> response, Throwable error) {}

  private void next(
      Call call,
      int attempt,
      long deadline,
      CompletableFuture<HttpResponse<byte[]>> result,
      Outcome outcome) {
    Throwable error = outcome.error() == null ? null : unwrap(outcome.error());
    boolean again;
    Duration wait = backOff(attempt);
    if (error != null) {
      if (!(error instanceof IOException)) {
        result.completeExceptionally(error);
        return;
      }
      boolean neverSent = neverSent(error);
      endpoints.markDown(outcome.node(), settings.downFor().toNanos());
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
    boolean inTime = System.nanoTime() + wait.toNanos() < deadline;
    if (again && inTime && attempt < settings.maxAttempts()) {
      CompletableFuture.delayedExecutor(wait.toNanos(), TimeUnit.NANOSECONDS)
          .execute(() -> attempt(call, attempt + 1, deadline, result));
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
