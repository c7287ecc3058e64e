package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.api.Consistency;
import io.kvorum.api.KvorumClient;
import io.kvorum.api.KvorumClientBuilder;
import io.kvorum.api.KvorumClientException;
import io.kvorum.node.testing.ProcessCluster;
import io.kvorum.node.testing.TestCertificates;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java client against three node processes with the chart's production settings (the client
 * port over TLS, tokens): it trusts the nodes' CA, sends its token, and a node killed (SIGKILL)
 * while it writes and reads fails none of its calls; a range streams back over TLS as NDJSON.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KvorumClientProcessIT {
  private static final String WRITER = "writer-token-0123456789";
  private static final String READER = "reader-token-0123456789";

  @TempDir Path work;

  @Test
  void overTlsWithATokenANodeKilledMidRunFailsNoCall() throws Exception {
    TestCertificates.NodeFiles files =
        TestCertificates.authority("kvorum-test-ca").issue("kvorum", work.resolve("tls"));
    Path tokens =
        Files.writeString(work.resolve("tokens"), WRITER + " write\n" + READER + " read\n");
    List<String> flags = new ArrayList<>(List.of(files.flags()));
    flags.addAll(List.of("--http-tls", "--auth-tokens", tokens.toString()));
    try (ProcessCluster cluster =
        new ProcessCluster(work, 3, flags.toArray(String[]::new)).start(0, 1, 2)) {
      KvorumClientBuilder builder = KvorumClient.builder().discovery(false).tlsCa(files.ca());
      for (int i = 0; i < 3; i++) {
        builder.seed("127.0.0.1", cluster.httpPort(i));
      }
      try (KvorumClient anonymous = builder.build();
          KvorumClient kv = anonymous.withToken(WRITER);
          KvorumClient reader = anonymous.withToken(READER)) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions()
            .until(() -> !kv.put("ready", "yes").isEmpty());

        assertThatThrownBy(() -> anonymous.get("ready".getBytes(UTF_8)))
            .isInstanceOf(KvorumClientException.Unauthorized.class);
        assertThatThrownBy(() -> reader.put("denied", "no"))
            .isInstanceOf(KvorumClientException.Forbidden.class);
        assertThat(reader.getUtf8("ready")).contains("yes");
        try (KvorumClient plain =
            KvorumClient.builder()
                .discovery(false)
                .seed("127.0.0.1", cluster.httpPort(0))
                .token(WRITER)
                .deadline(Duration.ofSeconds(3))
                .build()) {
          assertThatThrownBy(() -> plain.getUtf8("ready")).isInstanceOf(UncheckedIOException.class);
        }

        ConcurrentLinkedQueue<Throwable> failed = new ConcurrentLinkedQueue<>();
        AtomicInteger done = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
          int worker = w;
          workers.add(
              Thread.ofVirtual()
                  .start(
                      () -> {
                        for (int i = 0; running.get(); i++) {
                          byte[] key = String.format("run/%d/%05d", worker, i).getBytes(UTF_8);
                          try {
                            kv.put(key, ("v" + i).getBytes(UTF_8), Consistency.of(2, 3));
                            Optional<String> read =
                                kv.get(key, Consistency.of(2, 3))
                                    .map(value -> new String(value, UTF_8));
                            if (!read.equals(Optional.of("v" + i))) {
                              failed.add(new AssertionError(new String(key, UTF_8) + ": " + read));
                            }
                            done.incrementAndGet();
                          } catch (RuntimeException e) {
                            failed.add(e);
                          }
                        }
                      }));
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> done.get() >= 200);
        cluster.node(1).kill();
        int atKill = done.get();
        Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> done.get() >= atKill + 300);
        running.set(false);
        for (Thread worker : workers) {
          worker.join();
        }
        assertThat(failed).isEmpty();

        int written = reader.rangeAll("run/".getBytes(UTF_8), "run0".getBytes(UTF_8)).size();
        assertThat(written).isGreaterThanOrEqualTo(done.get());
      }
    }
  }
}
