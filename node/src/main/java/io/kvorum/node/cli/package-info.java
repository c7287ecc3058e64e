/** The node program: the {@code kvorum-node} command that runs a node, and {@code local}. */
package io.kvorum.node.cli;
