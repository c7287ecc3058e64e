package io.kvorum.node.core;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for nodes started on this machine whose ports are chosen before they bind them ({@code
 * kvorum-node train}, the tests' node processes): ports free now, below the kernel's ephemeral
 * range. A port of that range (what {@code new ServerSocket(0)} gives) may be taken before its node
 * binds it, as the source port of any connection on the machine or by any bind to port 0: one
 * training run in twelve failed so ({@code --http-port '43387': address already in use}, exit 2).
 */
public final class LoopbackPorts {
  /** The lowest port handed out: above the README's (8080-8082, 9090-9092) and other services'. */
  public static final int FIRST = 10_000;

  private LoopbackPorts() {}

  /** Where the kernel's ephemeral ports begin ({@code ip_local_port_range}), 32768 if unknown. */
  public static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      return Math.max(FIRST + 1000, Integer.parseInt(range.split("\\s+")[0]));
    } catch (IOException | RuntimeException e) {
      return 32_768; // Linux's default
    }
  }

  /** Whether nothing listens on {@code port} on any address now (it could be bound). */
  public static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(false);
      socket.bind(new InetSocketAddress("0.0.0.0", port));
      return true;
    } catch (IOException taken) {
      return false;
    }
  }

  /**
   * {@code count} distinct ports free now, drawn at random from {@link #FIRST} up to the ephemeral
   * range.
   *
   * @throws IllegalStateException if that many free ones are not found in 10,000 draws
   */
  public static List<Integer> pick(int count) {
    int end = ephemeralLow();
    Set<Integer> chosen = new LinkedHashSet<>();
    for (int draw = 0; draw < 10_000 && chosen.size() < count; draw++) {
      int port = ThreadLocalRandom.current().nextInt(FIRST, end);
      if (!chosen.contains(port) && free(port)) {
        chosen.add(port);
      }
    }
    if (chosen.size() < count) {
      throw new IllegalStateException(
          "not " + count + " free ports in " + FIRST + "-" + (end - 1) + ": " + chosen.size());
    }
    return List.copyOf(chosen);
  }
}
