package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kvorum.node.auth.AccessTokens;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * Coverage-guided fuzzing (Jazzer) of the HTTP edge: raw bytes through the gateway's pipeline, with
 * and without tokens. In a normal build the target runs over its seed corpus (the {@code
 * HttpEdgeFuzzTestInputs/connection} resources) and the crashes found so far; with {@code
 * JAZZER_FUZZ=1} it fuzzes for its {@code maxDuration} (see docs/testing.md). The edge's other
 * targets are {@link QueryParametersFuzzTest} and {@code AccessTokensFuzzTest}, one target a class:
 * Jazzer fuzzes one target per JVM, and {@code .ci/fuzz} runs the classes in JVMs side by side.
 */
class HttpEdgeFuzzTest {
  static final String READ_TOKEN = "fuzz-reader-token";
  static final String WRITE_TOKEN = "fuzz-writer-token";
  static final String ADMIN_TOKEN = "fuzz-admin-token";

  private static EdgeFixture open;
  private static EdgeFixture guarded;
  private static final ListAppender<ILoggingEvent> failures = new ListAppender<>();
  private static final List<Logger> watched = new ArrayList<>();

  @BeforeAll
  static void start() {
    open = new EdgeFixture(null);
    guarded =
        new EdgeFixture(
            AccessTokens.parse(
                READ_TOKEN + " read\n" + WRITE_TOKEN + " write\n" + ADMIN_TOKEN + " admin\n"));
    // What the edge logs when a request fails in a way nobody planned for: a handler exception
    // that ends the connection, or an exception translated to 500.
    failures.start();
    watch(HttpRequestHandler.class, Level.DEBUG);
    watch(HttpErrorMapper.class, Level.ERROR);
  }

  /**
   * Sends what {@code source} logs at {@code level} and above to {@link #failures} alone: not to
   * the console too, which would print a stack trace for each of thousands of inputs a second.
   */
  private static void watch(Class<?> source, Level level) {
    Logger logger = (Logger) LoggerFactory.getLogger(source);
    logger.addAppender(failures);
    logger.setLevel(level);
    logger.setAdditive(false);
    watched.add(logger);
  }

  @AfterAll
  static void stop() {
    watched.forEach(
        logger -> {
          logger.detachAppender(failures);
          logger.setLevel(null);
          logger.setAdditive(true);
        });
    open.close();
    guarded.close();
  }

  /**
   * Any bytes a client may send on a connection: every request gets an answer below 500 or the
   * connection ends cleanly, and nothing fails unplanned, with and without tokens.
   */
  @FuzzTest(maxDuration = "20s")
  void connection(byte[] input) {
    for (EdgeFixture edge : new EdgeFixture[] {open, guarded}) {
      failures.list.clear();
      EmbeddedChannel channel = edge.channel();
      List<HttpResponse> responses;
      List<String> failed;
      try {
        channel.writeInbound(Unpooled.wrappedBuffer(input));
        for (int i = 0; i < 16; i++) {
          channel.runPendingTasks(); // range batches hand over to the loop as tasks
        }
        channel.checkException();
        responses = responses(channel, input);
        // Before the close: closing mid-request is the client's doing, and the codec says so; it
        // says so too when the edge closes a connection after a bad request while the aggregator
        // holds the next one. Neither is a failure.
        failed =
            failures.list.stream()
                .filter(e -> !closedMidRequest(e))
                .map(HttpEdgeFuzzTest::describe)
                .toList();
      } finally {
        channel.finishAndReleaseAll();
      }
      assertThat(failed).as("failures logged by the edge").isEmpty();
      for (HttpResponse response : responses) {
        int status = response.status().code();
        if (status != 505) { // HTTP Version Not Supported: the client's doing
          assertThat(status).as("status").isBetween(100, 499);
        }
        if (edge == guarded && status == 401) {
          assertThat(response.headers().get("WWW-Authenticate")).startsWith("Bearer");
        }
      }
    }
  }

  /**
   * The responses written, decoded. The answer to a HEAD request has a Content-Length but no body,
   * which a decoder that does not know the requests cannot tell: decoding stops there.
   */
  private static List<HttpResponse> responses(EmbeddedChannel channel, byte[] input) {
    EmbeddedChannel decoder = new EmbeddedChannel(new HttpResponseDecoder());
    List<HttpResponse> responses = new ArrayList<>();
    try {
      for (ByteBuf out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
        decoder.writeInbound(out);
      }
      for (Object o = decoder.readInbound(); o != null; o = decoder.readInbound()) {
        boolean decoded = ((HttpObject) o).decoderResult().isSuccess();
        ReferenceCountUtil.release(o);
        if (!decoded) {
          assertThat(new String(input, StandardCharsets.ISO_8859_1))
              .as("only after a HEAD request can a response fail to decode")
              .contains("HEAD");
          break;
        }
        if (o instanceof HttpResponse response) {
          responses.add(response);
        }
      }
    } finally {
      decoder.finishAndReleaseAll();
    }
    return responses;
  }

  private static boolean closedMidRequest(ILoggingEvent event) {
    return event.getThrowableProxy() != null
        && event
            .getThrowableProxy()
            .getClassName()
            .equals(PrematureChannelClosureException.class.getName());
  }

  private static String describe(ILoggingEvent event) {
    String cause =
        event.getThrowableProxy() == null
            ? ""
            : ": "
                + event.getThrowableProxy().getClassName()
                + " "
                + event.getThrowableProxy().getMessage();
    return event.getLevel() + " " + event.getFormattedMessage() + cause;
  }
}
