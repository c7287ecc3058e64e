package io.kvorum.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettlerTest {
  private final AtomicLong pending = new AtomicLong();
  private HttpServer server;

  private URI serveMetrics() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/metrics",
        exchange -> {
          byte[] body =
              ("# TYPE kvorum_storage_compaction_pending_bytes gauge\n"
                      + "kvorum_storage_compaction_pending_bytes{node=\"n0\"} "
                      + pending.get()
                      + ".0\n"
                      + "kvorum_storage_compaction_pending_bytes_other 5.0\n")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/metrics");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Test
  void aQuietStoreWaitsOnlyTheMinimum(@TempDir Path dir) throws Exception {
    Settler settler = new Settler(List.of(serveMetrics()), List.of(dir.resolve("LOG")));

    Settler.Settled settled = settler.settle(Duration.ofMillis(200), Duration.ofSeconds(5));

    assertThat(settled.quiet()).isTrue();
    assertThat(settled.pendingBytes()).isZero();
    assertThat(settled.waited()).isBetween(Duration.ofMillis(200), Duration.ofSeconds(2));
  }

  @Test
  void itWaitsUntilCompactionAndFlushesAreDone(@TempDir Path dir) throws Exception {
    pending.set(50 << 20);
    Path log = dir.resolve("LOG");
    Files.writeString(log, "EVENT_LOG_v1 {\"job\": 5, \"event\": \"flush_started\"}\n");
    Settler settler = new Settler(List.of(serveMetrics()), List.of(log));
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try {
                Thread.sleep(700);
                pending.set(0);
                Thread.sleep(700);
                Files.writeString(
                    log,
                    "EVENT_LOG_v1 {\"job\": 5, \"event\": \"flush_finished\"}\n",
                    StandardOpenOption.APPEND);
              } catch (InterruptedException | IOException e) {
                throw new IllegalStateException(e);
              }
            });

    Settler.Settled settled = settler.settle(Duration.ZERO, Duration.ofSeconds(20));

    assertThat(settled.quiet()).isTrue();
    assertThat(settled.runningJobs()).isZero();
    assertThat(settled.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(1400));
  }

  @Test
  void aStoreThatNeverSettlesIsLeftAtTheMaximum(@TempDir Path dir) throws Exception {
    pending.set(1L << 30);
    Settler settler = new Settler(List.of(serveMetrics()), List.of(dir.resolve("LOG")));

    Settler.Settled settled = settler.settle(Duration.ZERO, Duration.ofSeconds(2));

    assertThat(settled.quiet()).isFalse();
    assertThat(settled.pendingBytes()).isEqualTo(1L << 30);
    assertThat(settled.waited()).isLessThanOrEqualTo(Duration.ofMillis(2500));
    assertThat(settled.describe()).contains("still busy", "1,073,741,824 bytes");
  }

  @Test
  void aMetricSumsItsLabelSetsAndIgnoresLongerNames() {
    String page = "# HELP m help\nm{node=\"a\"} 2.0\nm{node=\"b\"} 3.5\nm_total 100.0\nother 7\n";

    assertThat(Settler.metric(page, "m")).isEqualTo(5.5);
    assertThat(Settler.metric(page, "absent")).isNaN();
  }
}
