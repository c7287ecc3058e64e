package io.kvorum.node.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP proxy that passes GET requests on and re-chunks the answer: whatever chunks the node
 * sent, the client gets chunks of {@code chunkBytes} bytes, as a proxy, a service mesh or an HTTP/2
 * ingress may do (chunk boundaries are hop-by-hop).
 */
public final class RechunkingProxy implements AutoCloseable {
  private static final List<String> PASSED = List.of("Accept", "Authorization");
  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final URI target;
  private final int chunkBytes;

  public RechunkingProxy(InetSocketAddress target, int chunkBytes) {
    this.target = URI.create("http://" + target.getHostString() + ":" + target.getPort());
    this.chunkBytes = chunkBytes;
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.createContext("/", this::pass);
    server.setExecutor(threads);
    server.start();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void pass(HttpExchange exchange) throws IOException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(target.resolve(exchange.getRequestURI().toString())).GET();
    for (String name : PASSED) {
      String value = exchange.getRequestHeaders().getFirst(name);
      if (value != null) {
        request.header(name, value);
      }
    }
    try (exchange) {
      HttpResponse<InputStream> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      response
          .headers()
          .firstValue("Content-Type")
          .ifPresent(type -> exchange.getResponseHeaders().set("Content-Type", type));
      exchange.sendResponseHeaders(response.statusCode(), 0);
      OutputStream out = exchange.getResponseBody();
      try (InputStream in = response.body()) {
        byte[] piece = new byte[chunkBytes];
        for (int n = in.readNBytes(piece, 0, chunkBytes);
            n > 0;
            n = in.readNBytes(piece, 0, chunkBytes)) {
          out.write(piece, 0, n);
          out.flush();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    client.close();
    threads.close();
  }
}
