package io.kvorum.node.server;

import io.kvorum.node.config.ConfigException;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * How a node hands work between its threads: the run-time switches of issue 10's "fewer threads,
 * fewer hand-offs", so that one jar can be measured both ways. Each is on by default; {@code
 * -Dkvorum.threads=before} turns all of them off (the arrangement before they were built), and
 * {@code -Dkvorum.threads.<name>=true|false} sets one. docs/performance.md ("Run-time switches")
 * says how to A/B them.
 *
 * @param sharedLoops the HTTP edge and the inter-node gRPC traffic (server and channels) run on one
 *     group of {@code --io-threads} event loops; else each has a group of that many
 * @param channelPerLoop each peer gets a channel on every event loop, and a call made on a loop
 *     goes out, and is answered, on that loop's channel; else one channel per peer. Only with
 *     shared loops: the HTTP edge's calls are made on gRPC's loops only then
 * @param inlineReplies an HTTP answer whose result completes on the connection's own loop is
 *     written at once; else it is always queued to the loop as a task
 * @param loopTimeouts a request's timeout is kept by the event loop that serves it; else by the
 *     node's timer thread
 * @param memoryFirstReads a replica read that RocksDB can answer from memory runs on the calling
 *     thread (an event loop); else every read goes to the storage executor
 * @param writesAtOnce a small write that RocksDB can take without waiting (no fsync, no stall, no
 *     lock held elsewhere) runs on the calling thread (an event loop), run to completion; else
 *     every write goes to the storage executor (issue 23)
 * @param quietBackground RocksDB's flush and compaction threads run at the lowest CPU priority
 *     (nice 19): they take the CPU the event loops leave instead of a fair share of it, so that a
 *     flush or a compaction does not hold up the requests of the moment (issue 23); else at the
 *     priority of the rest of the node. Off by default, also in {@link #AFTER}: a write that must
 *     wait for a flush then waits longer on a busy machine, past the request timeout (a 504 where a
 *     full disk should answer 507); docs/decisions/quiet-background-work-off-by-default.md
 */
public record Threading(
    boolean sharedLoops,
    boolean channelPerLoop,
    boolean inlineReplies,
    boolean loopTimeouts,
    boolean memoryFirstReads,
    boolean writesAtOnce,
    boolean quietBackground) {
  private static final String PREFIX = "kvorum.threads";

  /** Every switch on but {@link #quietBackground}: the default. */
  public static final Threading AFTER = new Threading(true, true, true, true, true, true, false);

  /** Every switch off: how the node handed work on before issue 10's lever 4 (and issue 23's). */
  public static final Threading BEFORE =
      new Threading(false, false, false, false, false, false, false);

  /**
   * From the system properties {@code kvorum.threads} ({@code after} or {@code before}) and {@code
   * kvorum.threads.<name>} ({@code true} or {@code false}, overriding it).
   *
   * @throws ConfigException if one of them has another value
   */
  public static Threading fromSystemProperties() {
    return from(System::getProperty);
  }

  static Threading from(UnaryOperator<String> properties) {
    String base = properties.apply(PREFIX);
    Threading defaults;
    if (base == null || base.equalsIgnoreCase("after")) {
      defaults = AFTER;
    } else if (base.equalsIgnoreCase("before")) {
      defaults = BEFORE;
    } else {
      throw new ConfigException("-D" + PREFIX, base, "must be 'after' or 'before'");
    }
    return new Threading(
        flag(properties, "sharedLoops", defaults.sharedLoops),
        flag(properties, "channelPerLoop", defaults.channelPerLoop),
        flag(properties, "inlineReplies", defaults.inlineReplies),
        flag(properties, "loopTimeouts", defaults.loopTimeouts),
        flag(properties, "memoryFirstReads", defaults.memoryFirstReads),
        flag(properties, "writesAtOnce", defaults.writesAtOnce),
        flag(properties, "quietBackground", defaults.quietBackground));
  }

  private static boolean flag(UnaryOperator<String> properties, String name, boolean otherwise) {
    String key = PREFIX + "." + name;
    String value = properties.apply(key);
    if (value == null) {
      return otherwise;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException("-D" + key, value, "must be true or false");
    };
  }
}
