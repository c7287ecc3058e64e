package io.kvorum.node.gateway;

import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.DurationFormat;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The rules for the parameters of the v0 API: keys, {@code ack}/{@code from}, {@code ttl}. */
final class RequestParameters {
  private static final Pattern POSITIVE = Pattern.compile("0*[1-9]\\d{0,8}");
  private static final Pattern REPLICAS = Pattern.compile("([^/]*)/([^/]*)");

  private final int maxKeyBytes;

  RequestParameters(int maxKeyBytes) {
    this.maxKeyBytes = maxKeyBytes;
  }

  /** The longest key accepted, in bytes. */
  int maxKeyBytes() {
    return maxKeyBytes;
  }

  /** A required, non-empty key parameter within the key size limit. */
  Key key(QueryParameters query, String name) {
    byte[] bytes =
        query
            .bytes(name)
            .orElseThrow(
                () -> new InvalidRequestException(name, "parameter '" + name + "' is required"));
    return checkedKey(bytes, name);
  }

  /** An optional key parameter; absent or empty means "no bound". */
  Optional<Key> optionalKey(QueryParameters query, String name) {
    return query.bytes(name).filter(b -> b.length > 0).map(b -> checkedKey(b, name));
  }

  /** A key given as {@code bytes} under {@code name}: not empty, within the key size limit. */
  Key checkedKey(byte[] bytes, String name) {
    if (bytes.length == 0) {
      throw new InvalidRequestException(name, "parameter '" + name + "' must not be empty");
    }
    if (bytes.length > maxKeyBytes) {
      throw new InvalidRequestException(
          name,
          "parameter '"
              + name
              + "' is "
              + bytes.length
              + " bytes; keys may be at most "
              + maxKeyBytes
              + " bytes");
    }
    return Key.of(bytes);
  }

  /**
   * Whether a GET asks to read linearizably ({@code consistency=linearizable}, SPEC §10); absent, a
   * quorum read. Any other value is refused (400) rather than read with a weaker consistency than
   * the client meant.
   */
  boolean linearizable(QueryParameters query) {
    Optional<String> asked = query.text(KvorumApi.PARAM_CONSISTENCY);
    if (asked.isEmpty()) {
      return false;
    }
    if (!asked.get().equals(KvorumApi.CONSISTENCY_LINEARIZABLE)) {
      throw new InvalidRequestException(
          KvorumApi.PARAM_CONSISTENCY,
          "parameter '"
              + KvorumApi.PARAM_CONSISTENCY
              + "' takes only '"
              + KvorumApi.CONSISTENCY_LINEARIZABLE
              + "' (omit it for a quorum read): "
              + asked.get());
    }
    return true;
  }

  /**
   * {@code ack} of {@code from} replicas, from {@code ack}/{@code from} or the older {@code
   * replicas=A/F}. Defaults: {@code from} = cluster size, {@code ack} = majority of {@code from}.
   */
  Quorum quorum(QueryParameters query, int clusterSize) {
    return quorum(query, clusterSize, clusterSize);
  }

  /**
   * As {@link #quorum(QueryParameters, int)}, but a request that does not say {@code from} gets
   * {@code defaultFrom} (min(replication factor, cluster size)); any {@code from} up to the cluster
   * size stays allowed.
   */
  Quorum quorum(QueryParameters query, int defaultFrom, int clusterSize) {
    Optional<String> ackText = query.text(KvorumApi.PARAM_ACK);
    Optional<String> fromText = query.text(KvorumApi.PARAM_FROM);
    Optional<String> replicas = query.text(KvorumApi.PARAM_REPLICAS);
    if (replicas.isPresent()) {
      if (ackText.isPresent() || fromText.isPresent()) {
        throw new InvalidRequestException(
            KvorumApi.PARAM_REPLICAS, "give either 'replicas' or 'ack'/'from', not both");
      }
      Matcher m = REPLICAS.matcher(replicas.get());
      if (!m.matches()) {
        throw new InvalidRequestException(
            KvorumApi.PARAM_REPLICAS,
            "parameter 'replicas' must look like ack/from, e.g. 2/3, got '" + replicas.get() + "'");
      }
      ackText = Optional.of(m.group(1));
      fromText = Optional.of(m.group(2));
    }
    String ackName = replicas.isPresent() ? KvorumApi.PARAM_REPLICAS : KvorumApi.PARAM_ACK;
    String fromName = replicas.isPresent() ? KvorumApi.PARAM_REPLICAS : KvorumApi.PARAM_FROM;
    int from = fromText.map(t -> positive(t, fromName, "from")).orElse(defaultFrom);
    if (from > clusterSize) {
      throw new InvalidRequestException(
          fromName,
          "parameter '"
              + fromName
              + "': from ("
              + from
              + ") exceeds the cluster size ("
              + clusterSize
              + ")");
    }
    int ack = ackText.map(t -> positive(t, ackName, "ack")).orElse(Quorum.majorityOf(from));
    if (ack > from) {
      throw new InvalidRequestException(
          ackName,
          "parameter '" + ackName + "': ack (" + ack + ") must not exceed from (" + from + ")");
    }
    return new Quorum(ack, from);
  }

  /**
   * The {@code limit} of a range: a positive integer (at most 999,999,999); empty when absent. A
   * limit of 0 is refused, as Cassandra refuses {@code LIMIT 0}: it asks for nothing.
   */
  OptionalInt limit(QueryParameters query) {
    Optional<String> text = query.text(KvorumApi.PARAM_LIMIT);
    return text.isEmpty()
        ? OptionalInt.empty()
        : OptionalInt.of(positive(text.get(), KvorumApi.PARAM_LIMIT, "limit"));
  }

  /** The {@code ttl} parameter; {@link Duration#ZERO} when absent. */
  Duration ttl(QueryParameters query) {
    Optional<String> text = query.text(KvorumApi.PARAM_TTL);
    return text.isEmpty() ? Duration.ZERO : ttl(text.get(), KvorumApi.PARAM_TTL);
  }

  /**
   * A time to live, {@code 500ms}, {@code 30s}, … or a bare number of seconds, positive and at most
   * {@link KvorumApi#MAX_TTL}; refused naming {@code parameter}.
   */
  static Duration ttl(String text, String parameter) {
    Duration ttl;
    try {
      ttl = DurationFormat.parse(text);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          parameter, "parameter '" + parameter + "': " + e.getMessage());
    }
    if (ttl.isZero()) {
      throw new InvalidRequestException(
          parameter, "parameter '" + parameter + "' must be positive");
    }
    if (ttl.compareTo(KvorumApi.MAX_TTL) > 0) {
      throw new InvalidRequestException(
          parameter,
          "parameter '" + parameter + "' may be at most " + KvorumApi.MAX_TTL.toDays() + "d");
    }
    return ttl;
  }

  private static int positive(String text, String parameter, String what) {
    if (!POSITIVE.matcher(text).matches()) {
      throw new InvalidRequestException(
          parameter,
          "parameter '"
              + parameter
              + "': "
              + what
              + " must be a positive integer, got '"
              + text
              + "'");
    }
    return Integer.parseInt(text);
  }
}
