package io.kvorum.node.cli.admin;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A node's HTTP API as the operator commands that follow long work see it: {@code POST} answered
 * with one fixed answer, {@code GET /v0/cluster} with the view the test gives for the n-th time it
 * is asked (from 0), so that a change or a round moves on as the command polls. {@link #stop} makes
 * it go away as a node that exited.
 */
final class FakeNode implements AutoCloseable {
  private final HttpServer server;
  private final AtomicInteger views = new AtomicInteger();
  final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile int postStatus = 202;
  private volatile String postBody = "{}";
  private volatile IntFunction<String> view = n -> "{\"nodes\":[]}";

  FakeNode() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  /** What {@code POST} (any path) answers. */
  FakeNode post(int status, String body) {
    this.postStatus = status;
    this.postBody = body;
    return this;
  }

  /** What the n-th {@code GET /v0/cluster} answers. */
  FakeNode views(IntFunction<String> view) {
    this.view = view;
    return this;
  }

  int port() {
    return server.getAddress().getPort();
  }

  /** How many times {@code /v0/cluster} was asked. */
  int viewsAsked() {
    return views.get();
  }

  void stop() {
    server.stop(0);
  }

  @Override
  public void close() {
    stop();
  }

  private void handle(HttpExchange exchange) throws IOException {
    requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI());
    if (exchange.getRequestMethod().equals("POST")) {
      answer(exchange, postStatus, postBody);
    } else if (exchange.getRequestURI().getPath().equals("/v0/cluster")) {
      answer(exchange, 200, view.apply(views.getAndIncrement()));
    } else {
      answer(exchange, 404, "{}");
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
