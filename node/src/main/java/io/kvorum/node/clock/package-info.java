/** The hybrid logical clock that versions every write, monotonic across restarts. */
package io.kvorum.node.clock;
