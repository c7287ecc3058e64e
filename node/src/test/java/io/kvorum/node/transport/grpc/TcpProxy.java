package io.kvorum.node.transport.grpc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a free port of 127.0.0.1 to a target port, for the faults of a real wire: {@link
 * #cut()} resets every connection through it (new ones are still accepted), {@link #freeze()} stops
 * relaying bytes in both directions while keeping the connections open, as a peer whose process or
 * network hangs.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean frozen;

  TcpProxy(int target) {
    this.target = target;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    thread("tcp-proxy-accept", this::accept).start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** Closes every connection through the proxy at once (with a reset). */
  void cut() {
    for (Socket socket : sockets) {
      try {
        socket.setSoLinger(true, 0);
        socket.close();
      } catch (IOException e) {
        // already gone
      }
    }
    sockets.clear();
  }

  /** Stops relaying: bytes sent either way from now on never arrive. */
  void freeze() {
    frozen = true;
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
        sockets.add(client);
        sockets.add(server);
        thread("tcp-proxy-up", () -> relay(client, server)).start();
        thread("tcp-proxy-down", () -> relay(server, client)).start();
      } catch (IOException e) {
        // the listener closed, or the target refused: the client sees its connection drop
      }
    }
  }

  private void relay(Socket from, Socket to) {
    byte[] buffer = new byte[64 << 10];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        while (frozen) {
          Thread.sleep(50);
        }
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // one side closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeBoth(from, to);
    }
  }

  private static void closeBoth(Socket a, Socket b) {
    try {
      a.close();
      b.close();
    } catch (IOException e) {
      // already closed
    }
  }

  private static Thread thread(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
    cut();
  }
}
