package io.kvorum.it;

import io.kvorum.api.ClientTls;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * A pod's httpGet readiness probe as a container's wait strategy: ready at the first 200, within
 * the startup budget; a container that exits meanwhile fails at once with its exit code and the end
 * of its log, as a crash-looping pod would show, instead of waiting out the budget.
 */
final class ReadinessProbeWait extends AbstractWaitStrategy {
  private static final Duration POLL = Duration.ofMillis(250);
  private final String scheme;
  private final String path;
  private final int port;
  private final Path ca;

  /**
   * @param scheme the probe's {@code scheme}, {@code HTTP} or {@code HTTPS}
   * @param ca the CA that signed the pod's certificate, for {@code HTTPS}
   */
  ReadinessProbeWait(String scheme, String path, int port, Path ca) {
    this.scheme = scheme.toLowerCase(Locale.ROOT);
    this.path = path;
    this.port = port;
    this.ca = ca;
  }

  @Override
  protected void waitUntilReady() {
    URI uri =
        URI.create(
            scheme
                + "://"
                + waitStrategyTarget.getHost()
                + ":"
                + waitStrategyTarget.getMappedPort(port)
                + path);
    long deadline = System.nanoTime() + startupTimeout.toNanos();
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1));
    if (scheme.equals("https")) {
      client.sslContext(ClientTls.trustingPem(ca));
    }
    try (HttpClient http = client.build()) {
      while (true) {
        if (!waitStrategyTarget.isRunning()) {
          throw new ContainerLaunchException(
              "the container exited (code "
                  + waitStrategyTarget.getCurrentContainerInfo().getState().getExitCodeLong()
                  + ") before its readiness probe "
                  + path
                  + " passed; its log ends:\n"
                  + tail(waitStrategyTarget.getLogs(), 30));
        }
        if (status(http, uri) == 200) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new ContainerLaunchException(
              "readiness probe " + uri + " did not answer 200 within " + startupTimeout);
        }
        Thread.sleep(POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ContainerLaunchException("interrupted waiting for " + uri, e);
    }
  }

  private static int status(HttpClient http, URI uri) throws InterruptedException {
    try {
      return http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(3)).GET().build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  private static String tail(String log, int lines) {
    List<String> all = log.lines().toList();
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
