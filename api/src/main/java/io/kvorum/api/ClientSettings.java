package io.kvorum.api;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;

/** What a {@link KvorumClient} was built with; see {@link KvorumClientBuilder} for each. */
record ClientSettings(
    List<URI> seeds,
    SSLContext tls,
    String authorization,
    Duration deadline,
    Duration attemptTimeout,
    int maxAttempts,
    Duration backOff,
    Duration maxBackOff,
    Duration downFor,
    int maxInFlight,
    boolean discovery,
    boolean routing,
    String zone) {

  ClientSettings withAuthorization(String value) {
    return new ClientSettings(
        seeds,
        tls,
        value,
        deadline,
        attemptTimeout,
        maxAttempts,
        backOff,
        maxBackOff,
        downFor,
        maxInFlight,
        discovery,
        routing,
        zone);
  }
}
