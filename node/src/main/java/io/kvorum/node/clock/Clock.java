package io.kvorum.node.clock;

import io.kvorum.node.core.Version;

/**
 * The source of write versions. Implementations are thread-safe.
 *
 * <p>Contract: every {@link #now()} returns a version strictly greater than every version this
 * clock returned before, or was shown through {@link #observe(Version)}, including before a restart
 * of the node.
 */
public interface Clock {
  /** A fresh version, greater than all issued or observed ones. */
  Version now();

  /** Moves this clock past {@code remote}, a timestamp another node sent. */
  void observe(Version remote);

  /** The latest version issued or observed, without issuing a new one. */
  Version current();

  /** The wall clock in Unix milliseconds, for expiry decisions. */
  long wallMillis();
}
