package io.kvorum.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node's logback.xml with {@code kvorum.log.format=json}: an event with an exception is still
 * one line, one JSON object, its stack in {@code stack_trace}. (NodeProcessIT checks every line of
 * a real node's run.)
 */
class JsonLogFormatTest {
  @Test
  void anExceptionStaysInItsLineAsTheStackTraceField() throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    context.putProperty("kvorum.log.format", "json");
    context.putProperty("kvorum.node.id", "n7");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(captured, true, UTF_8));
    try {
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(JsonLogFormatTest.class.getResource("/logback.xml"));
      context
          .getLogger("io.kvorum.node.Example")
          .warn("storage failed for {}", "key-1", new IllegalStateException("disk on fire"));
    } finally {
      System.setOut(stdout);
      context.stop();
    }
    List<String> lines = captured.toString(UTF_8).lines().toList();
    assertThat(lines).hasSize(1);
    JsonNode event = new ObjectMapper().readTree(lines.getFirst());
    assertThat(event.path("level").asText()).isEqualTo("WARN");
    assertThat(event.path("logger").asText()).isEqualTo("io.kvorum.node.Example");
    assertThat(event.path("message").asText()).isEqualTo("storage failed for key-1");
    assertThat(event.path("node").asText()).isEqualTo("n7");
    assertThat(event.path("thread").asText()).isEqualTo(Thread.currentThread().getName());
    assertThat(event.path("timestamp").asText()).isNotEmpty();
    assertThat(event.path("stack_trace").asText())
        .startsWith("java.lang.IllegalStateException: disk on fire")
        .contains("at io.kvorum.node.JsonLogFormatTest.");
  }
}
