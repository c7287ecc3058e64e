package io.kvorum.node.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** A TCP proxy that counts the connections a client opens through it, and the most open at once. */
public final class CountingTcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger mostOpen = new AtomicInteger();

  public CountingTcpProxy(InetSocketAddress target) {
    this.target = target;
    try {
      server = new ServerSocket(0, 1024, java.net.InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    threads.execute(this::accept);
  }

  public int port() {
    return server.getLocalPort();
  }

  public int accepted() {
    return accepted.get();
  }

  public int mostOpen() {
    return mostOpen.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        accepted.incrementAndGet();
        mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
        threads.execute(() -> relay(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void relay(Socket client) {
    try (client;
        Socket upstream = new Socket(target.getHostString(), target.getPort())) {
      threads.execute(() -> copy(upstream, client));
      copy(client, upstream);
    } catch (IOException e) {
      // the client or the node went away
    } finally {
      open.decrementAndGet();
    }
  }

  private static void copy(Socket from, Socket to) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      in.transferTo(out);
      to.shutdownOutput();
    } catch (IOException e) {
      // closed
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    threads.shutdownNow();
  }
}
