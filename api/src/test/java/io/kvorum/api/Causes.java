package io.kvorum.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowingConsumer;

/** Assertions on a failure's chain of causes. */
final class Causes {
  private Causes() {}

  static List<Throwable> chain(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      chain.add(cause);
    }
    return chain;
  }

  /**
   * The call timed out somewhere in its chain. Not necessarily at its root: an attempt given only
   * the last milliseconds of its call's deadline times out while connecting, and the JDK's
   * HttpConnectTimeoutException (an HttpTimeoutException) has a ConnectException as its cause.
   */
  static ThrowingConsumer<Throwable> timedOut() {
    return error -> assertThat(chain(error)).anyMatch(HttpTimeoutException.class::isInstance);
  }
}
