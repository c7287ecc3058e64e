/**
 * {@code kvorum-node load}: streams the records of a snapshot or a stopped node's data directory,
 * read with the node's own storage codec, into a running cluster through its {@code /v0/load}.
 */
package io.kvorum.node.cli.load;
