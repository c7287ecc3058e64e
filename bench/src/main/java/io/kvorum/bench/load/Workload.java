package io.kvorum.bench.load;

import io.kvorum.api.placement.RendezvousRanking;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

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
   * drawn uniformly from the key space (all of them exist for reads after the preload). With {@code
   * routed} (the node ids, the load's targets in their order) each {@code put}, {@code get} and
   * {@code mixed} request goes to a node that holds its key, as the placement-aware client sends
   * it: its key is drawn uniformly among the keys whose first replica is the node of the connection
   * it leaves on (connection {@code c} goes to target {@code c mod targets}). Over all requests the
   * keys stay uniform but for the nodes' shares of the keys, within a percent of each other.
   *
   * @param routed null to draw every key from the whole key space
   */
  public RequestSource source(String phase, List<String> routed) {
    Requests requests = new Requests(this);
    KeyPicker picker = routed == null ? (random, c) -> random.nextLong(keys) : byReplica(routed);
    return switch (phase) {
      case "put" -> byConnection(conn -> requests.put(picker.pick(requests.random, conn)));
      case "get" -> byConnection(conn -> requests.get(picker.pick(requests.random, conn)));
      case "mixed" ->
          byConnection(
              conn ->
                  requests.random.nextInt(100) < readPercent
                      ? requests.get(picker.pick(requests.random, conn))
                      : requests.put(picker.pick(requests.random, conn)));
      case "range" ->
          seq -> requests.range(requests.random.nextLong(Math.max(1, keys - rangeSpan)));
      case "empty" -> seq -> requests.empty;
      default -> throw new IllegalArgumentException("not a load phase: " + phase);
    };
  }

  /** Draws the key of a request leaving on connection {@code connection}. */
  @FunctionalInterface
  private interface KeyPicker {
    long pick(SplittableRandom random, int connection);
  }

  /** A source whose request depends on the connection it leaves on alone. */
  private static RequestSource byConnection(IntFunction<Request> request) {
    return new RequestSource() {
      @Override
      public Request next(long sequence) {
        return request.apply(0);
      }

      @Override
      public Request next(long sequence, int connection) {
        return request.apply(connection);
      }
    };
  }

  /**
   * Keys by the target that holds their first replica, computed once by the nodes' placement code
   * ({@link RendezvousRanking}, the client's too).
   */
  private KeyPicker byReplica(List<String> nodes) {
    RendezvousRanking ranking = RendezvousRanking.of(nodes);
    List<List<Long>> held = new ArrayList<>();
    nodes.forEach(node -> held.add(new ArrayList<>()));
    for (long i = 0; i < keys; i++) {
      String first = ranking.node(ranking.replicas(key(i).getBytes(StandardCharsets.UTF_8), 1)[0]);
      held.get(nodes.indexOf(first)).add(i);
    }
    long[][] byTarget =
        held.stream()
            .map(list -> list.stream().mapToLong(Long::longValue).toArray())
            .toArray(long[][]::new);
    return (random, connection) -> {
      long[] mine = byTarget[connection % byTarget.length];
      return mine[random.nextInt(mine.length)];
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
