package io.kvorum.node.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines one logger writes while a test runs, at INFO and above unless told otherwise. */
public final class CapturedLog implements AutoCloseable {
  private final Logger logger;
  private final Level level;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLog(Class<?> source, Level level) {
    this.logger = (Logger) LoggerFactory.getLogger(source);
    this.level = logger.getLevel();
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(level);
  }

  /** Captures what {@code source}'s logger writes at INFO and above until closed. */
  public static CapturedLog of(Class<?> source) {
    return new CapturedLog(source, Level.INFO);
  }

  /** Every captured line at {@code level}, formatted, in order. */
  public synchronized List<String> lines(Level level) {
    return appender.list.stream()
        .filter(e -> e.getLevel().equals(level))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(level);
    appender.stop();
  }
}
