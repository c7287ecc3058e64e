package io.kvorum.bench.load;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The requests of kvorum's benchmark phases over a key space {@code k0000000000}… of {@code keys}
 * keys with values of {@code valueSize} random bytes, at consistency {@code ack}/{@code from}.
 */
public final class Workload {
  private final long keys;
  private final byte[] value;
  private final String consistency;
  private final SplittableRandom random = new SplittableRandom(363);

  public Workload(long keys, int valueSize, int ack, int from) {
    this.keys = keys;
    this.value = new byte[valueSize];
    new SplittableRandom(1).nextBytes(value);
    this.consistency = "&ack=" + ack + "&from=" + from;
  }

  public static String key(long i) {
    return String.format("k%010d", i);
  }

  /** Writes key {@code i} for request {@code i}: for loading every key once. */
  public RequestSource load() {
    return seq -> put(seq % keys);
  }

  /** Overwrites keys drawn uniformly from the key space. */
  public RequestSource puts() {
    return seq -> put(random.nextLong(keys));
  }

  /** Reads keys drawn uniformly from the key space; all of them exist. */
  public RequestSource gets() {
    return seq -> get(random.nextLong(keys));
  }

  /** {@code readPercent}% reads, the rest writes, of uniformly drawn keys. */
  public RequestSource mixed(int readPercent) {
    return seq -> random.nextInt(100) < readPercent ? gets().next(seq) : puts().next(seq);
  }

  /** Range reads of {@code span} consecutive keys from a uniformly drawn start. */
  public RequestSource ranges(int span) {
    return seq -> {
      long from = random.nextLong(Math.max(1, keys - span));
      return new Request(
          "range",
          head("GET /v0/entities?start=" + key(from) + "&end=" + key(from + span), 0),
          200);
    };
  }

  private Request put(long i) {
    byte[] head = head("PUT /v0/entity?id=" + key(i) + consistency, value.length);
    byte[] bytes = new byte[head.length + value.length];
    System.arraycopy(head, 0, bytes, 0, head.length);
    System.arraycopy(value, 0, bytes, head.length, value.length);
    return new Request("put", bytes, 201);
  }

  private Request get(long i) {
    return new Request("get", head("GET /v0/entity?id=" + key(i) + consistency, -1), 200);
  }

  private static byte[] head(String requestLine, int contentLength) {
    String length = contentLength >= 0 ? "Content-Length: " + contentLength + "\r\n" : "";
    return (requestLine + " HTTP/1.1\r\nHost: kvorum\r\n" + length + "\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }
}
