package io.kvorum.bench.load;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The requests of kvorum's benchmark phases over a key space {@code k0000000000}… of {@code keys}
 * keys with values of {@code valueSize} random bytes, at consistency {@code ack}/{@code from}.
 *
 * @param keys keys in the key space
 * @param valueSize bytes of each value written
 * @param ack replicas that must answer
 * @param from replicas of each key
 * @param readPercent reads in the {@code mixed} phase, in percent
 * @param rangeSpan keys per request of the {@code range} phase
 */
public record Workload(
    long keys, int valueSize, int ack, int from, int readPercent, int rangeSpan) {
  /**
   * The load phases: {@code put}, {@code get}, {@code mixed}, {@code range}, and {@code empty}
   * ({@code GET /} answered by an empty 204, for the generator's calibration against nginx).
   */
  public static final List<String> PHASES = List.of("put", "get", "mixed", "range", "empty");

  public Workload {
    if (keys < 1 || valueSize < 0 || ack < 1 || ack > from) {
      throw new IllegalArgumentException(
          "bad workload: " + keys + " keys, " + valueSize + " bytes, ack " + ack + "/" + from);
    }
    if (readPercent < 0 || readPercent > 100 || rangeSpan < 1) {
      throw new IllegalArgumentException(
          "bad workload: " + readPercent + "% reads, ranges of " + rangeSpan);
    }
  }

  public static String key(long i) {
    return String.format("k%010d", i);
  }

  /** Writes key {@code i} for request {@code i}: for loading every key once. */
  public RequestSource load() {
    Requests requests = new Requests(this);
    return seq -> requests.put(seq % keys);
  }

  /**
   * The requests of one of the {@link #PHASES}, each source with its own random sequence; keys are
   * drawn uniformly from the key space (all of them exist for reads after the preload).
   */
  public RequestSource source(String phase) {
    Requests requests = new Requests(this);
    return switch (phase) {
      case "put" -> seq -> requests.put(requests.random.nextLong(keys));
      case "get" -> seq -> requests.get(requests.random.nextLong(keys));
      case "mixed" ->
          seq ->
              requests.random.nextInt(100) < readPercent
                  ? requests.get(requests.random.nextLong(keys))
                  : requests.put(requests.random.nextLong(keys));
      case "range" ->
          seq -> requests.range(requests.random.nextLong(Math.max(1, keys - rangeSpan)));
      case "empty" -> seq -> requests.empty;
      default -> throw new IllegalArgumentException("not a load phase: " + phase);
    };
  }

  /** Builds the bytes of each request. */
  private static final class Requests {
    final SplittableRandom random = new SplittableRandom(363);
    final Workload workload;
    final byte[] value;
    final String consistency;
    final Request empty = new Request("get", head("GET /", -1), 204);

    Requests(Workload workload) {
      this.workload = workload;
      this.value = new byte[workload.valueSize];
      new SplittableRandom(1).nextBytes(value);
      this.consistency = "&ack=" + workload.ack + "&from=" + workload.from;
    }

    Request put(long i) {
      byte[] head = head("PUT /v0/entity?id=" + key(i) + consistency, value.length);
      byte[] bytes = new byte[head.length + value.length];
      System.arraycopy(head, 0, bytes, 0, head.length);
      System.arraycopy(value, 0, bytes, head.length, value.length);
      return new Request("put", bytes, 201);
    }

    Request get(long i) {
      return new Request("get", head("GET /v0/entity?id=" + key(i) + consistency, -1), 200);
    }

    Request range(long from) {
      return new Request(
          "range",
          head(
              "GET /v0/entities?start=" + key(from) + "&end=" + key(from + workload.rangeSpan), -1),
          200);
    }

    static byte[] head(String requestLine, int contentLength) {
      String length = contentLength >= 0 ? "Content-Length: " + contentLength + "\r\n" : "";
      return (requestLine + " HTTP/1.1\r\nHost: kvorum\r\n" + length + "\r\n")
          .getBytes(StandardCharsets.US_ASCII);
    }
  }
}
