/**
 * How the sub-commands reach a running node: the address, TLS and token options they share, the one
 * {@code KvorumClient} they build from them, the words for a failure, and the exit codes.
 */
package io.kvorum.node.cli.client;
