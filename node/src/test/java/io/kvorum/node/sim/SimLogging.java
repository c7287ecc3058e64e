package io.kvorum.node.sim;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The nodes' logs during simulated runs: a run's crashes, partitions and refusals make the nodes
 * log a great deal, in wall-clock time that means nothing there, so runs log errors alone unless
 * {@code -Dkvorum.sim.log=LEVEL} (e.g. {@code INFO}, to read a replayed seed) asks for more.
 */
final class SimLogging implements AutoCloseable {
  private final List<Logger> loggers =
      List.of(
          (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME),
          (Logger) LoggerFactory.getLogger("io.kvorum"));
  private final List<Level> before = loggers.stream().map(Logger::getLevel).toList();

  private SimLogging() {
    Level level = Level.toLevel(System.getProperty("kvorum.sim.log"), Level.ERROR);
    loggers.forEach(logger -> logger.setLevel(level));
  }

  /** Sets the level of the nodes' loggers until closed. */
  static SimLogging quiet() {
    return new SimLogging();
  }

  @Override
  public void close() {
    for (int i = 0; i < loggers.size(); i++) {
      loggers.get(i).setLevel(before.get(i));
    }
  }
}
