package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Quorum;
import java.time.Duration;

/**
 * Coverage-guided fuzzing (Jazzer) of the request target's rules, a target of the HTTP edge beside
 * {@link HttpEdgeFuzzTest}'s (docs/testing.md): its seed corpus is {@code
 * QueryParametersFuzzTestInputs/queryString}.
 */
class QueryParametersFuzzTest {
  /** Query strings through the parameter rules: a valid request or a 400, nothing else. */
  @FuzzTest(maxDuration = "10s")
  void queryString(FuzzedDataProvider data) {
    int clusterSize = data.consumeInt(1, 7);
    String uri = data.consumeRemainingAsString();
    String query = Route.query(uri);
    String path = Route.path(uri);
    assertThat(uri).contains(path);
    RequestParameters rules = new RequestParameters(EdgeFixture.MAX_KEY_BYTES);
    try {
      QueryParameters parameters = QueryParameters.parse(query);
      rules.key(parameters, KvorumApi.PARAM_ID);
      rules.optionalKey(parameters, KvorumApi.PARAM_END);
      Duration ttl = rules.ttl(parameters);
      assertThat(ttl).isBetween(Duration.ZERO, KvorumApi.MAX_TTL);
      Quorum quorum = rules.quorum(parameters, clusterSize);
      assertThat(quorum.ack()).isBetween(1, quorum.from());
      assertThat(quorum.from()).isBetween(1, clusterSize);
    } catch (InvalidRequestException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
