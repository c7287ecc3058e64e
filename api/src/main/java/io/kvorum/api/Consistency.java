package io.kvorum.api;

/**
 * How many replicas a request goes to ({@code from}) and how many must answer ({@code ack}); null
 * fields use the server's defaults (from = cluster size, ack = majority of from).
 *
 * @param ack replicas that must answer, or null
 * @param from replicas the request goes to, or null
 */
public record Consistency(Integer ack, Integer from) {
  /** The server's defaults. */
  public static final Consistency DEFAULT = new Consistency(null, null);

  public static Consistency of(int ack, int from) {
    return new Consistency(ack, from);
  }

  String query() {
    StringBuilder q = new StringBuilder();
    if (ack != null) {
      q.append('&').append(KvorumApi.PARAM_ACK).append('=').append(ack);
    }
    if (from != null) {
      q.append('&').append(KvorumApi.PARAM_FROM).append('=').append(from);
    }
    return q.toString();
  }
}
