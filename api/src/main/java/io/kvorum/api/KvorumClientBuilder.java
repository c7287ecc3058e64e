package io.kvorum.api;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * Builds a {@link KvorumClient}. At least one seed; everything else has a default: plain HTTP, no
 * token, a 10 s deadline per call, 3 s per attempt, up to 5 attempts with a back-off from 50 ms to
 * 2 s, 64 requests in flight (so at most 64 connections), discovery of the other members and
 * routing by placement on, no zone.
 */
public final class KvorumClientBuilder {
  private final List<String> seeds = new ArrayList<>();
  private SSLContext tls;
  private String authorization;
  private Duration deadline = Duration.ofSeconds(10);
  private Duration attemptTimeout = Duration.ofSeconds(3);
  private int maxAttempts = 5;
  private Duration backOff = Duration.ofMillis(50);
  private Duration maxBackOff = Duration.ofSeconds(2);
  private Duration downFor = Duration.ofSeconds(5);
  private int maxInFlight = 64;
  private boolean discovery = true;
  private boolean routing = true;
  private String zone;

  KvorumClientBuilder() {}

  /** A node to start from: {@code host:port} of its HTTP API. */
  public KvorumClientBuilder seed(String host, int port) {
    if (host == null || host.isBlank() || port < 1 || port > 65535) {
      throw new IllegalArgumentException("not a node address: " + host + ":" + port);
    }
    String literal = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    seeds.add(literal + ":" + port);
    return this;
  }

  /** Nodes to start from, each {@code host:port}. */
  public KvorumClientBuilder seeds(String... hostPorts) {
    for (String hostPort : hostPorts) {
      int colon = hostPort.lastIndexOf(':');
      try {
        seed(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("not host:port: " + hostPort, e);
      }
    }
    return this;
  }

  /** Speaks HTTPS and trusts the nodes' certificates signed by the CA in this PEM file. */
  public KvorumClientBuilder tlsCa(Path caFile) {
    this.tls = ClientTls.trustingPem(caFile);
    return this;
  }

  /** Speaks HTTPS and trusts the certificates of this trust store (PKCS#12 or JKS). */
  public KvorumClientBuilder trustStore(Path trustStore, char[] password) {
    this.tls = ClientTls.trustingStore(trustStore, password);
    return this;
  }

  /** Speaks HTTPS with this TLS context. */
  public KvorumClientBuilder tls(SSLContext context) {
    this.tls = context;
    return this;
  }

  /** Sends {@code Authorization: Bearer TOKEN} with every request ({@code --auth-tokens}). */
  public KvorumClientBuilder token(String token) {
    this.authorization = bearer(token);
    return this;
  }

  /** How long a call may take in all, its retries and back-offs included. */
  public KvorumClientBuilder deadline(Duration deadline) {
    this.deadline = positive(deadline, "deadline");
    return this;
  }

  /** How long one attempt on one node may take before the next node is tried. */
  public KvorumClientBuilder attemptTimeout(Duration timeout) {
    this.attemptTimeout = positive(timeout, "attempt timeout");
    return this;
  }

  /** How many times a call is sent at most (1: never retried). */
  public KvorumClientBuilder maxAttempts(int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("at least one attempt, not " + attempts);
    }
    this.maxAttempts = attempts;
    return this;
  }

  /** The back-off before the second attempt, doubling up to {@code max}, jittered. */
  public KvorumClientBuilder backOff(Duration initial, Duration max) {
    this.backOff = positive(initial, "back-off");
    this.maxBackOff = positive(max, "maximum back-off");
    return this;
  }

  /** At most this many requests in flight (and so connections open); more wait their turn. */
  public KvorumClientBuilder maxInFlight(int requests) {
    if (requests < 1) {
      throw new IllegalArgumentException("at least one request in flight, not " + requests);
    }
    this.maxInFlight = requests;
    return this;
  }

  /**
   * Whether to learn the other members from {@code /v0/cluster}: each at the host of its inter-node
   * address and the HTTP port of the node that listed it (as the Helm chart runs them). Off when
   * the members serve HTTP on other ports; then give every node as a seed.
   */
  public KvorumClientBuilder discovery(boolean on) {
    this.discovery = on;
    return this;
  }

  /**
   * Whether to send each request about one key to one of its replicas (on by default): the client
   * computes a key's replicas from the members, zones and placement that {@code /v0/cluster}
   * states, with the nodes' own code, so the node that coordinates the request holds a copy and one
   * network hop is saved. It needs {@linkplain #discovery discovery}; it routes only once it
   * learned a placement it computes (never against a node that states none or another), and any
   * failure of a replica sends the request on to another node as without routing. Off: every
   * request goes to the next node in turn.
   */
  public KvorumClientBuilder routing(boolean on) {
    this.routing = on;
    return this;
  }

  /**
   * The client's zone (as the nodes' {@code --zone}, e.g. {@code us-east-1a}): with routing, a
   * request goes to a replica in this zone when one is up, else to the first one up in another.
   */
  public KvorumClientBuilder zone(String zone) {
    if (zone == null || zone.isBlank()) {
      throw new IllegalArgumentException("a zone must not be empty");
    }
    this.zone = zone.strip();
    return this;
  }

  public KvorumClient build() {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a client needs at least one seed node");
    }
    String scheme = tls == null ? "http://" : "https://";
    List<URI> uris = seeds.stream().map(s -> URI.create(scheme + s)).distinct().toList();
    return new KvorumClient(
        new ClientSettings(
            uris,
            tls,
            authorization,
            deadline,
            attemptTimeout,
            maxAttempts,
            backOff,
            maxBackOff,
            downFor,
            maxInFlight,
            discovery,
            routing,
            zone));
  }

  static String bearer(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a token must not be empty");
    }
    return "Bearer " + token.strip();
  }

  private static Duration positive(Duration value, String what) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("the " + what + " must be positive, not " + value);
    }
    return value;
  }
}
