package io.kvorum.bench.load;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The requests of the conditional-write benchmark (SPEC §10), each phase on keys no other phase or
 * run touched, values of {@code valueSize} random bytes at {@code ack}/{@code from}:
 *
 * <ul>
 *   <li>{@code plain}: unconditional PUTs over {@code keys} keys, for comparison;
 *   <li>{@code create}: {@code If-None-Match: *} on a new key each time (no contention);
 *   <li>{@code chain}: a read-modify-write chain per connection on a key of its own, each PUT
 *       {@code If-Match} the ETag the previous answer carried (no contention; a chain's first write
 *       creates its key, and after a 504 the chain picks the current ETag up from the 412 that
 *       follows, as a client's retry loop would);
 *   <li>{@code contended}: {@code If-Match} on {@code hotKeys} keys from every connection, each
 *       with the newest ETag any answer showed for that key (a 201's, or a 412's current one), so
 *       that writers race: one of those that carry the same ETag wins, the others get 412.
 * </ul>
 *
 * A 201 is the expected answer; 412 and 504 are counted as other statuses.
 */
public record ConditionalWorkload(long keys, int valueSize, int ack, int from, int hotKeys) {
  /** The phases, in the order the benchmark runs them. */
  public static final List<String> PHASES = List.of("plain", "create", "chain", "contended");

  private static final Pattern PROBLEM_ETAG = Pattern.compile("\"etag\"\\s*:\\s*\"\\\\\"([0-9.]+)");
  private static int generation;

  public ConditionalWorkload {
    if (keys < 1 || valueSize < 0 || ack < 1 || ack > from || hotKeys < 1) {
      throw new IllegalArgumentException(
          "bad workload: "
              + keys
              + " keys, "
              + valueSize
              + " bytes, ack "
              + ack
              + "/"
              + from
              + ", "
              + hotKeys
              + " hot keys");
    }
  }

  /** A fresh source of one of the {@link #PHASES}, on keys of its own. */
  public RequestSource source(String phase) {
    String prefix = "cas" + nextGeneration() + "-";
    Requests requests = new Requests(this, prefix);
    return switch (phase) {
      case "plain" -> seq -> requests.put(requests.random.nextLong(keys), null);
      case "create" -> seq -> requests.put(seq, "If-None-Match: *");
      case "chain" -> new Chains(requests, false, 0);
      case "contended" -> new Chains(requests, true, hotKeys);
      default -> throw new IllegalArgumentException("not a conditional phase: " + phase);
    };
  }

  private static synchronized int nextGeneration() {
    return generation++;
  }

  /** The current ETag a 412's problem+json names, or null when the key is absent. */
  static String etagOfProblem(String body) {
    Matcher m = PROBLEM_ETAG.matcher(body);
    return m.find() ? "\"" + m.group(1) + "\"" : null;
  }

  /**
   * Conditional writes that each carry the newest ETag known for their key: a key per connection,
   * or, contended, {@code hot} keys shared by all connections.
   */
  private static final class Chains implements RequestSource {
    private final Requests requests;
    private final boolean contended;
    private final int hot;
    private final Map<Long, String> etags = new HashMap<>();
    private final Map<Integer, Long> keyOf = new HashMap<>();

    Chains(Requests requests, boolean contended, int hot) {
      this.requests = requests;
      this.contended = contended;
      this.hot = hot;
    }

    @Override
    public Request next(long sequence) {
      throw new UnsupportedOperationException("a chain's request depends on its connection");
    }

    @Override
    public Request next(long sequence, int connection) {
      long key = contended ? sequence % hot : connection;
      keyOf.put(connection, key);
      String etag = etags.get(key);
      return requests.put(key, etag == null ? "If-None-Match: *" : "If-Match: " + etag);
    }

    @Override
    public boolean observesAnswers() {
      return true;
    }

    @Override
    public void answered(int connection, Answer answer) {
      Long key = keyOf.get(connection);
      if (answer.status() == 201 && answer.etag() != null) {
        etags.put(key, answer.etag());
      } else if (answer.status() == 412) {
        String current = etagOfProblem(answer.body());
        if (current == null) {
          etags.remove(key);
        } else {
          etags.put(key, current);
        }
      }
    }
  }

  /** Builds the bytes of each request. */
  private static final class Requests {
    final SplittableRandom random = new SplittableRandom(26);
    final byte[] value;
    final String consistency;
    final String prefix;

    Requests(ConditionalWorkload workload, String prefix) {
      this.value = new byte[workload.valueSize];
      new SplittableRandom(1).nextBytes(value);
      this.consistency = "&ack=" + workload.ack + "&from=" + workload.from;
      this.prefix = prefix;
    }

    /** A PUT of key {@code i} with {@code condition} as a header line, or none if null. */
    Request put(long i, String condition) {
      String head =
          "PUT /v0/entity?id="
              + prefix
              + i
              + consistency
              + " HTTP/1.1\r\nHost: kvorum\r\nContent-Length: "
              + value.length
              + "\r\n"
              + (condition == null ? "" : condition + "\r\n")
              + "\r\n";
      byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
      byte[] bytes = new byte[headBytes.length + value.length];
      System.arraycopy(headBytes, 0, bytes, 0, headBytes.length);
      System.arraycopy(value, 0, bytes, headBytes.length, value.length);
      return new Request(condition == null ? "put" : "cas", bytes, 201);
    }
  }
}
