package io.kvorum.node.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.kvorum.api.KvorumApi;
import io.kvorum.node.auth.AccessTokens;
import io.kvorum.node.auth.Role;
import io.kvorum.node.core.InvalidRequestException;
import io.kvorum.node.core.Quorum;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slf4j.LoggerFactory;

/**
 * Coverage-guided fuzzing (Jazzer) of the HTTP edge: raw bytes through the gateway's pipeline (with
 * and without tokens), query strings through the parameter rules, and tokens files through their
 * parser. In a normal build each target runs over its seed corpus (the {@code
 * HttpEdgeFuzzTestInputs/<method>} resources) and the crashes found so far; with {@code
 * JAZZER_FUZZ=1} one target fuzzes for its {@code maxDuration} (see docs/testing.md).
 */
class HttpEdgeFuzzTest {
  static final String READ_TOKEN = "fuzz-reader-token";
  static final String WRITE_TOKEN = "fuzz-writer-token";
  static final String ADMIN_TOKEN = "fuzz-admin-token";
  private static final Pattern TOKENS_ERROR =
      Pattern.compile(
          "line \\d+: (expected TOKEN ROLE, found \\d+ fields"
              + "|a token is letters, digits and - \\. _ ~ \\+ / \\(then optional = padding\\)"
              + "|unknown role: use read, write or admin"
              + "|the same token as line \\d+)"
              + "|no tokens: expected lines of TOKEN ROLE");

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
  @FuzzTest(maxDuration = "30s")
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

  /** Query strings through the parameter rules: a valid request or a 400, nothing else. */
  @FuzzTest(maxDuration = "15s")
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

  /**
   * Tokens files: parsed, or refused with a message that names a line and never repeats the file's
   * text; every token parsed has the role its line gives.
   */
  @FuzzTest(maxDuration = "15s")
  void tokensFile(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    AccessTokens tokens;
    try {
      tokens = AccessTokens.parse(text);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).matches(TOKENS_ERROR);
      return;
    }
    int lines = 0;
    for (String line : text.replace("\uFEFF", "").split("\n", -1)) {
      int hash = line.indexOf('#');
      String[] fields = (hash < 0 ? line : line.substring(0, hash)).strip().split("[ \t]+");
      if (fields.length == 2) {
        lines++;
        assertThat(tokens.roleOf(fields[0])).isEqualTo(Role.of(fields[1]));
      }
    }
    assertThat(tokens.size()).isEqualTo(lines);
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
