package io.kvorum.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ConditionalWorkloadTest {
  private final ConditionalWorkload workload = new ConditionalWorkload(1000, 16, 2, 3, 2);

  private static String head(Request request) {
    String text = new String(request.bytes(), StandardCharsets.ISO_8859_1);
    return text.substring(0, text.indexOf("\r\n\r\n"));
  }

  private static String key(Request request) {
    String line = head(request).lines().findFirst().orElseThrow();
    return line.substring(line.indexOf("id=") + 3, line.indexOf('&'));
  }

  @Test
  void aChainCarriesTheETagItsLastAnswerShowedAndPicksTheCurrentOneUpFromA412() {
    RequestSource chain = workload.source("chain");
    Request first = chain.next(0, 0);
    assertThat(head(first)).contains("If-None-Match: *").doesNotContain("If-Match");
    chain.answered(0, new RequestSource.Answer(201, "\"100.0\"", ""));

    Request second = chain.next(1, 0);
    assertThat(head(second)).contains("If-Match: \"100.0\"");
    assertThat(key(second)).isEqualTo(key(first));
    assertThat(head(chain.next(2, 1)))
        .as("another connection's chain, on a key of its own")
        .contains("If-None-Match: *");

    chain.answered(1, new RequestSource.Answer(504, null, "{}"));
    chain.next(3, 0);
    chain.answered(
        0,
        new RequestSource.Answer(
            412, null, "{\"status\":412,\"etag\":\"\\\"200.3\\\"\",\"title\":\"x\"}"));
    assertThat(head(chain.next(4, 0))).contains("If-Match: \"200.3\"");
  }

  @Test
  void contendedWritersShareTheHotKeysAndTheirNewestETag() {
    RequestSource contended = workload.source("contended");
    Request a = contended.next(0, 0);
    contended.answered(0, new RequestSource.Answer(201, "\"7.0\"", ""));
    Request b = contended.next(2, 5);
    assertThat(key(b)).isEqualTo(key(a));
    assertThat(head(b)).contains("If-Match: \"7.0\"");
    assertThat(key(contended.next(3, 5))).isNotEqualTo(key(a));
  }

  @Test
  void createsGoToNewKeysAndEveryPhaseToKeysOfItsOwn() {
    RequestSource creates = workload.source("create");
    assertThat(head(creates.next(0))).contains("If-None-Match: *");
    assertThat(key(creates.next(0))).isNotEqualTo(key(creates.next(1)));
    assertThat(key(workload.source("create").next(0))).isNotEqualTo(key(creates.next(0)));
    assertThat(head(workload.source("plain").next(0)))
        .doesNotContain("If-Match")
        .doesNotContain("If-None-Match")
        .contains("ack=2&from=3");
  }

  @Test
  void aRefusalWithoutETagMeansTheKeyIsAbsent() {
    assertThat(ConditionalWorkload.etagOfProblem("{\"status\":412}")).isNull();
    RequestSource chain = workload.source("chain");
    chain.next(0, 0);
    chain.answered(0, new RequestSource.Answer(201, "\"1.0\"", ""));
    chain.next(1, 0);
    chain.answered(0, new RequestSource.Answer(412, null, "{\"status\":412}"));
    assertThat(head(chain.next(2, 0))).contains("If-None-Match: *");
  }
}
