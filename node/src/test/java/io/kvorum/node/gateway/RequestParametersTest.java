package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Key;
import io.kvorum.node.core.Quorum;
import java.time.Duration;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestParametersTest {
  private static final int MAX_KEY = 8;
  private final RequestParameters parameters = new RequestParameters(MAX_KEY);

  private static QueryParameters query(String text) {
    return QueryParameters.parse(text);
  }

  private Quorum quorum(String query, int clusterSize) {
    return parameters.quorum(query(query), clusterSize);
  }

  private static AbstractThrowableAssert<?, ?> assertRefused(
      Runnable call, String parameter, String... messageParts) {
    AbstractThrowableAssert<?, ?> refused =
        assertThatThrownBy(call::run)
            .isInstanceOfSatisfying(
                InvalidRequestException.class, e -> assertThat(e.parameter()).contains(parameter));
    return messageParts.length == 0 ? refused : refused.hasMessageContainingAll(messageParts);
  }

  // ---- quorum ---------------------------------------------------------------------------------

  @ParameterizedTest(name = "N={0} -> {1}/{0}")
  @CsvSource({"1, 1", "2, 2", "3, 2", "4, 3", "5, 3"})
  void defaultsToAMajorityOfTheWholeCluster(int clusterSize, int ack) {
    assertThat(quorum("id=k", clusterSize)).isEqualTo(new Quorum(ack, clusterSize));
  }

  @ParameterizedTest(name = "N={0}, RF=3 -> {1}/{2}")
  @CsvSource({"1, 1, 1", "2, 2, 2", "3, 2, 3", "4, 2, 3", "5, 2, 3", "9, 2, 3"})
  void defaultsToAMajorityOfTheReplicationFactorWithinTheCluster(
      int clusterSize, int ack, int from) {
    assertThat(parameters.quorum(query("id=k"), Math.min(3, clusterSize), clusterSize))
        .isEqualTo(new Quorum(ack, from));
  }

  @Test
  void fromUpToTheClusterSizeStaysAllowedAboveTheReplicationFactor() {
    assertThat(parameters.quorum(query("from=5"), 3, 5)).isEqualTo(new Quorum(3, 5));
    assertRefused(() -> parameters.quorum(query("from=6"), 3, 5), "from", "cluster size (5)");
  }

  @Test
  void ackAloneKeepsFromAtTheClusterSize() {
    assertThat(quorum("ack=1", 3)).isEqualTo(new Quorum(1, 3));
    assertThat(quorum("ack=3", 3)).isEqualTo(new Quorum(3, 3));
  }

  @Test
  void fromAloneDefaultsAckToItsMajority() {
    assertThat(quorum("from=1", 5)).isEqualTo(new Quorum(1, 1));
    assertThat(quorum("from=2", 5)).isEqualTo(new Quorum(2, 2));
    assertThat(quorum("from=4", 5)).isEqualTo(new Quorum(3, 4));
  }

  @Test
  void ackAndFromTogether() {
    assertThat(quorum("ack=2&from=3", 3)).isEqualTo(new Quorum(2, 3));
    assertThat(quorum("from=2&ack=1", 3)).isEqualTo(new Quorum(1, 2));
  }

  @Test
  void replicasIsASynonymOfAckAndFrom() {
    assertThat(quorum("replicas=2/3", 3)).isEqualTo(new Quorum(2, 3));
    assertThat(quorum("replicas=1%2F2", 3)).isEqualTo(new Quorum(1, 2));
  }

  @Test
  void replicasTogetherWithAckOrFromIsRefused() {
    assertRefused(() -> quorum("replicas=2/3&ack=2", 3), "replicas", "not both");
    assertRefused(() -> quorum("from=3&replicas=2/3", 3), "replicas", "not both");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "2", "2/3/3", "/3", "2/", "a/b", "-1/3", "0/3", "2-3"})
  void malformedReplicasIsRefused(String value) {
    assertRefused(() -> quorum("replicas=" + value, 3), "replicas");
  }

  @Test
  void replicasIsCheckedLikeAckAndFrom() {
    assertRefused(() -> quorum("replicas=3/2", 3), "replicas", "ack (3)", "from (2)");
    assertRefused(() -> quorum("replicas=2/4", 3), "replicas", "cluster size (3)");
  }

  @Test
  void ackAboveFromIsRefused() {
    assertRefused(() -> quorum("ack=3&from=2", 3), "ack", "ack (3)", "from (2)");
    assertRefused(() -> quorum("ack=4", 3), "ack", "ack (4)", "from (3)");
    assertRefused(() -> quorum("ack=2&from=1", 3), "ack");
  }

  @Test
  void fromAboveTheClusterSizeIsRefused() {
    assertRefused(() -> quorum("from=4", 3), "from", "from (4)", "cluster size (3)");
    assertRefused(() -> quorum("ack=1&from=2", 1), "from");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "two", "", "1.5", "+1", "0x2", "99999999999", "2147483648"})
  void nonPositiveOrNonNumericAckIsRefused(String value) {
    assertRefused(() -> quorum("ack=" + value, 3), "ack", "ack must be a positive integer");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "-1", "three", "", "99999999999", "2147483648"})
  void nonPositiveOrNonNumericFromIsRefused(String value) {
    assertRefused(() -> quorum("from=" + value, 3), "from", "from must be a positive integer");
  }

  @Test
  void hugeButWellFormedNumbersAreRefusedAsTooLarge() {
    assertRefused(() -> quorum("from=999999999", 3), "from", "cluster size");
    assertRefused(() -> quorum("ack=999999999", 3), "ack", "must not exceed");
  }

  // ---- keys -----------------------------------------------------------------------------------

  @Test
  void keyIsTheRawDecodedBytes() {
    assertThat(parameters.key(query("id=%00%FF"), "id"))
        .isEqualTo(Key.of(new byte[] {0x00, (byte) 0xFF}));
    assertThat(parameters.key(query("id=k+1"), "id")).isEqualTo(Key.utf8("k 1"));
  }

  @Test
  void aMissingKeyIsRefused() {
    assertRefused(() -> parameters.key(query("ack=1"), "id"), "id", "'id' is required");
  }

  @Test
  void anEmptyKeyIsRefused() {
    assertRefused(() -> parameters.key(query("id="), "id"), "id", "must not be empty");
    assertRefused(() -> parameters.key(query("start"), "start"), "start", "must not be empty");
  }

  @Test
  void keysUpToTheLimitAreAcceptedAndLongerOnesRefused() {
    assertThat(parameters.key(query("id=12345678"), "id")).isEqualTo(Key.utf8("12345678"));
    assertRefused(
        () -> parameters.key(query("id=123456789"), "id"), "id", "9 bytes", "at most 8 bytes");
    assertRefused(
        () -> parameters.key(query("id=%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9"), "id"), "id", "10 bytes");
  }

  @Test
  void anOptionalKeyMayBeAbsentOrEmpty() {
    assertThat(parameters.optionalKey(query("start=a"), "end")).isEmpty();
    assertThat(parameters.optionalKey(query("start=a&end="), "end")).isEmpty();
    assertThat(parameters.optionalKey(query("start=a&end=z"), "end")).contains(Key.utf8("z"));
    assertRefused(
        () -> parameters.optionalKey(query("end=123456789"), "end"), "end", "at most 8 bytes");
  }

  // ---- ttl ------------------------------------------------------------------------------------

  @Test
  void noTtlMeansNoExpiry() {
    assertThat(parameters.ttl(query("id=k"))).isZero();
  }

  @ParameterizedTest(name = "ttl={0}")
  @CsvSource({"500ms, 500", "30s, 30000", "45, 45000", "5m, 300000", "2h, 7200000"})
  void ttlTakesTheDurationSyntax(String ttl, long millis) {
    assertThat(parameters.ttl(query("ttl=" + ttl))).isEqualTo(Duration.ofMillis(millis));
  }

  @Test
  void ttlUpToTheMaximumIsAccepted() {
    assertThat(parameters.ttl(query("ttl=7300d"))).isEqualTo(Duration.ofDays(7300));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0s", "0ms"})
  void aZeroTtlIsRefused(String ttl) {
    assertRefused(() -> parameters.ttl(query("ttl=" + ttl)), "ttl", "must be positive");
  }

  @ParameterizedTest
  @ValueSource(strings = {"7301d", "175201h", "99999999999d"})
  void aTtlOverTheMaximumIsRefused(String ttl) {
    assertRefused(() -> parameters.ttl(query("ttl=" + ttl)), "ttl", "at most 7300d");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "soon", "-5s", "1.5h", "1w", "5 m", "999999999999999999d"})
  void aMalformedTtlIsRefused(String ttl) {
    assertRefused(() -> parameters.ttl(query("ttl=" + ttl)), "ttl", "'ttl'");
  }
}
