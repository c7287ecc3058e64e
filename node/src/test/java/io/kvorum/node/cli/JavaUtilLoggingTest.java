package io.kvorum.node.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * gRPC logs through java.util.logging; a node routes it into logback (the node's logback.xml, which
 * the tests run with too), so that its records come out in the node's format and levels, and a
 * stream a peer cancels (every range stopped by its limit cancels the scans it opened on the other
 * nodes) logs nothing: it used to log a WARNING with a stack trace each time, 254 MB in 15 minutes
 * of YCSB's workload E.
 */
class JavaUtilLoggingTest {
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void captureLogback() {
    KvorumNode.routeJavaUtilLogging();
    logged.start();
    root.addAppender(logged);
  }

  @AfterEach
  void release() {
    root.detachAppender(logged);
  }

  @Test
  void grpcWarningsReachLogbackButNotThoseOfACancelledStream() {
    java.util.logging.Logger.getLogger("io.grpc.netty.NettyServerHandler")
        .log(
            Level.WARNING,
            "Stream Error",
            new IllegalStateException("Stream closed before write could take place"));
    java.util.logging.Logger.getLogger("io.grpc.internal.ManagedChannelImpl")
        .warning("a channel warning");
    java.util.logging.Logger.getLogger("io.grpc.internal.ManagedChannelImpl").info("chatter");

    assertThat(logged.list)
        .extracting(ILoggingEvent::getLoggerName, ILoggingEvent::getFormattedMessage)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "io.grpc.internal.ManagedChannelImpl", "a channel warning"));
  }
}
