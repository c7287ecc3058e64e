/**
 * Time: the hybrid logical clock that versions every write, monotonic across restarts, and this
 * node's wall-clock offsets to its peers, which say whether it may version writes at all.
 */
package io.kvorum.node.clock;
