package io.kvorum.node.gateway;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What fuzzing the HTTP edge found ({@link HttpEdgeFuzzTest}; each input is also in its corpus),
 * pinned down as plain answers a client would see.
 */
class HttpEdgeRegressionTest {
  private static EdgeFixture edge;

  @BeforeAll
  static void start() {
    edge = new EdgeFixture(null);
  }

  @AfterAll
  static void stop() {
    edge.close();
  }

  /**
   * Was: a snapshot without a name reached the storage engine, and the engine of this fixture (one
   * that takes no snapshots) answered 500; a node's own engine answered 400. Now every engine
   * refuses a missing or bad name alike.
   */
  @Test
  void aSnapshotWithoutAValidNameIsAnswered400NamingTheParameter() {
    for (String target : new String[] {"/v0/snapshots", "/v0/snapshots?name=.hidden"}) {
      String answer = exchange("POST " + target + " HTTP/1.1\r\nHost: 5\r\n\r\n");

      assertThat(answer).as(target).startsWith("HTTP/1.1 400 ").contains("snapshot's name is");
    }
  }

  /** Was: the body-limit check threw on it and the connection closed without an answer. */
  @Test
  void aContentLengthThatIsNotANumberIsAnswered400() {
    String answer =
        exchange(
            "POST /v0/repair HTTP/1.1\r\nHost: localhost\r\nContent-Length: /v0/entity0\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 400 ").contains("malformed HTTP request");
  }

  @Test
  void aContentLengthThatIsNotANumberWithExpectContinueIsAnswered400() {
    String answer =
        exchange(
            "PUT /v0/entity?id=k HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                + "Content-Length: 12ab\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 400 ").doesNotContain("100 Continue");
  }

  /**
   * Was: the codec takes any HTTP/x.y, and an HTTP/0.1 request was answered in HTTP/0.1 with a
   * chunked body that no client could read, desynchronising the pipelined answers after it.
   */
  @Test
  void aVersionOtherThanHttp1IsAnswered505AndTheConnectionClosed() {
    for (String version : new String[] {"HTTP/0.1", "HTTP/0.9", "HTTP/2.0", "HTTP/3.0"}) {
      String answer =
          exchange(
              "GET /v0/entities?start=a "
                  + version
                  + "\r\nHost: x\r\n\r\nGET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");

      assertThat(answer)
          .as(version)
          .startsWith("HTTP/1.1 505 ")
          .contains("connection: close")
          .contains(version + " is not supported")
          .doesNotContain("200 OK");
    }
  }

  @Test
  void aLaterHttp1MinorVersionIsAnsweredInHttp11() {
    String answer = exchange("GET /v0/status HTTP/1.7\r\nHost: x\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 200 ");
  }

  /**
   * Was: a range request in HTTP/1.0, pipelined after others, was answered with a chunked body,
   * which HTTP/1.0 does not have: the client read the chunk framing as data and lost the answers
   * after it. Now the body ends with the connection.
   */
  @Test
  void aRangeAnswerInHttp10IsNotChunkedAndEndsTheConnection() {
    for (String connection : new String[] {"", "Connection: keep-alive\r\n"}) {
      String answer =
          exchange(
              "PUT /v0/entity?id=a1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n1"
                  + "GET /v0/entities?start=a&end=b HTTP/1.0\r\nHost: x\r\n"
                  + connection
                  + "\r\nGET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");

      String range = answer.substring(answer.indexOf("HTTP/1.0 "));
      assertThat(range)
          .as(connection)
          .startsWith("HTTP/1.0 200 ")
          .contains("connection: close")
          .doesNotContainIgnoringCase("transfer-encoding")
          .doesNotContainIgnoringCase("content-length")
          .endsWith("\r\n\r\na1\n1");
    }
  }

  /**
   * Was: the body aggregator answered an {@code Expect} it does not meet (417) itself, at once,
   * ahead of the answers before it; behind a change feed that was in the middle of the feed's
   * chunked body, and the encoder's refusal ended the connection. Now it is answered in its turn.
   */
  @Test
  void anUnmetExpectationIsAnswered417InItsTurnAndTheConnectionGoesOn() {
    String answer =
        exchange(
            "GET /v0/entities?start=a&end=b HTTP/1.1\r\nHost: x\r\n\r\n"
                + "PUT /v0/entity?id=e HTTP/1.1\r\nHost: x\r\nExpect: %100-continue\r\n"
                + "Content-Length: 1\r\n\r\n1"
                + "GET /v0/status HTTP/1.1\r\nHost: x\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.1 200 ");
    String rest = answer.substring(answer.indexOf("HTTP/1.1 417 "));
    assertThat(rest)
        .contains("expectation-failed")
        .contains("Expect: %100-continue")
        .contains("HTTP/1.1 200 ");
  }

  /**
   * The fuzz finding itself ({@code expect-pipelined-behind-a-change-feed}): requests pipelined
   * behind a feed, whose answer does not end, wait behind it; neither a 417 nor a {@code 100
   * Continue} is written into the feed's body, and the connection stays open.
   */
  @Test
  void nothingIsWrittenIntoAChangeFeedForTheRequestsPipelinedBehindIt() {
    for (String expectation : new String[] {"nonsense", "100-continue"}) {
      EmbeddedChannel channel = edge.channel();
      try {
        channel.writeInbound(
            Unpooled.copiedBuffer(
                "GET /v0/changes?id=k HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "PUT /v0/entity?id=e HTTP/1.1\r\nHost: x\r\nExpect: "
                    + expectation
                    + "\r\nContent-Length: 1\r\n\r\n1",
                ISO_8859_1));
        channel.runPendingTasks();
        String answer = outbound(channel);

        assertThat(answer).as(expectation).startsWith("HTTP/1.1 200 ");
        assertThat(answer).as(expectation).doesNotContain("417").doesNotContain("100 Continue");
        assertThat(channel.isOpen()).as(expectation).isTrue();
      } finally {
        channel.finishAndReleaseAll();
      }
    }
  }

  private static String exchange(String request) {
    EmbeddedChannel channel = edge.channel();
    try {
      channel.writeInbound(Unpooled.copiedBuffer(request, ISO_8859_1));
      for (int i = 0; i < 16; i++) {
        channel.runPendingTasks(); // range batches hand over to the loop as tasks
      }
      return outbound(channel);
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  private static String outbound(EmbeddedChannel channel) {
    StringBuilder answer = new StringBuilder();
    for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
      if (out instanceof ByteBuf bytes) {
        answer.append(bytes.toString(ISO_8859_1));
      }
      ReferenceCountUtil.release(out);
    }
    return answer.toString();
  }
}
