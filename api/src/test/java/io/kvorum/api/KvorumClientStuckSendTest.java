package io.kvorum.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request whose exchange never ends (the node took the connection, then neither read the body nor
 * answered) fails at its call's deadline and gives its turn back: the calls after it, through a
 * client that allows one request in flight, still complete. And calls do not depend on the common
 * fork-join pool, which an application may keep busy.
 */
@Timeout(30)
class KvorumClientStuckSendTest {
  private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();
  private HttpServer node;
  private ServerSocket front;

  @BeforeEach
  void start() throws IOException {
    node = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    node.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().add("ETag", "\"7.0\"");
          exchange.sendResponseHeaders(201, -1);
          exchange.close();
        });
    node.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    node.start();
    front = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofVirtual().start(this::acceptLoop);
  }

  /** The first connection is taken and left alone; later ones are passed through to the node. */
  private void acceptLoop() {
    try {
      while (true) {
        Socket client = front.accept();
        open.add(client);
        if (connections.incrementAndGet() == 1) {
          continue;
        }
        Socket upstream = new Socket("127.0.0.1", node.getAddress().getPort());
        open.add(upstream);
        Thread.ofVirtual().start(() -> pipe(client, upstream));
        Thread.ofVirtual().start(() -> pipe(upstream, client));
      }
    } catch (IOException closed) {
      // the test is over
    }
  }

  private static void pipe(Socket from, Socket to) {
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      in.transferTo(out);
      to.shutdownOutput();
    } catch (IOException closed) {
      // either side went away
    }
  }

  @AfterEach
  void stop() throws Exception {
    front.close();
    for (AutoCloseable socket : open) {
      socket.close();
    }
    node.stop(0);
  }

  @Test
  void aSendThatNeverEndsFailsAtTheDeadlineAndTheNextCallsComplete() {
    try (KvorumClient kv =
        KvorumClient.builder()
            .discovery(false)
            .seed("127.0.0.1", front.getLocalPort())
            .maxInFlight(1)
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(2))
            .build()) {
      // Far more than the socket buffers take: the client is still writing when nobody reads.
      byte[] large = new byte[64 << 20];
      assertThatThrownBy(() -> kv.put("stuck".getBytes(UTF_8), large))
          .isInstanceOf(UncheckedIOException.class)
          .satisfies(Causes.timedOut());

      for (int i = 0; i < 5; i++) {
        assertThat(kv.put("after-" + i, "v")).isEqualTo("\"7.0\"");
      }
      assertThat(connections.get()).as("the stuck connection, then the node's").isGreaterThan(1);
    }
  }

  @Test
  void callsQueuedBehindAStuckSendEndAtTheirOwnDeadlineAndLeaveTheQueue() throws Exception {
    try (KvorumClient kv =
        KvorumClient.builder()
            .discovery(false)
            .seed("127.0.0.1", front.getLocalPort())
            .maxInFlight(1)
            .maxAttempts(1)
            .deadline(Duration.ofSeconds(2))
            .build()) {
      CompletableFuture<String> stuck =
          kv.putAsync("stuck".getBytes(UTF_8), new byte[64 << 20], Consistency.DEFAULT, null);
      List<CompletableFuture<String>> queued =
          IntStream.range(0, 20)
              .mapToObj(
                  i ->
                      kv.putAsync(
                          ("queued-" + i).getBytes(UTF_8),
                          "v".getBytes(UTF_8),
                          Consistency.DEFAULT,
                          null))
              .toList();

      assertThat(stuck).failsWithin(Duration.ofSeconds(10));
      int timedOut = 0;
      for (CompletableFuture<String> call : queued) {
        // Each ends by its deadline: failed while waiting, or sent as the stuck one gave its turn
        // back in the same instant.
        Throwable error = call.handle((tag, e) -> e).get(10, TimeUnit.SECONDS);
        if (error != null) {
          // A call given its turn in its last milliseconds times out while connecting: the JDK's
          // HttpConnectTimeoutException (an HttpTimeoutException) whose cause is a
          // ConnectException.
          assertThat(error)
              .isInstanceOf(CompletionException.class)
              .hasCauseInstanceOf(UncheckedIOException.class);
          assertThat(error).satisfies(Causes.timedOut());
          timedOut++;
        }
      }
      assertThat(timedOut).as("calls that waited for their turn until their deadline").isPositive();
      // The calls that gave up waiting took no turn with them: the next one is sent at once.
      assertThat(kv.put("next", "v")).isEqualTo("\"7.0\"");
    }
  }

  @Test
  void callsCompleteWhileTheCommonPoolIsBusy() {
    // An application's tasks that keep every worker of the common pool (one, on two cores) busy.
    AtomicBoolean busy = new AtomicBoolean(true);
    List<CompletableFuture<Void>> tasks =
        IntStream.range(0, ForkJoinPool.getCommonPoolParallelism())
            .mapToObj(
                i ->
                    CompletableFuture.runAsync(
                        () -> {
                          while (busy.get()) {
                            LockSupport.parkNanos(500_000);
                          }
                        }))
            .toList();
    try (KvorumClient kv =
        KvorumClient.builder()
            .discovery(false)
            .seed("127.0.0.1", node.getAddress().getPort())
            .deadline(Duration.ofSeconds(5))
            .build()) {
      for (int i = 0; i < 5; i++) {
        assertThat(kv.put("while-busy-" + i, "v")).isEqualTo("\"7.0\"");
      }
    } finally {
      busy.set(false);
      tasks.forEach(CompletableFuture::join);
    }
  }
}
