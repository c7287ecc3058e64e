package io.kvorum.node.config;

import java.util.Locale;

/** How a node writes its log lines to stdout ({@code --log-format}). */
public enum LogFormat {
  /** One line of text per event: time, level, thread, logger, message. */
  TEXT,
  /**
   * One JSON object per line, for log collectors: {@code timestamp}, {@code level}, {@code logger},
   * {@code thread}, {@code node}, {@code message}, and {@code stack_trace} for an exception.
   */
  JSON;

  /** The name logback.xml's appenders have. */
  public String appender() {
    return name().toLowerCase(Locale.ROOT);
  }
}
