/** Change feeds (SPEC §12): the protocol that reads the replicas' change logs and merges them. */
package io.kvorum.node.changes;
