/**
 * The replica protocol: the records a node keeps for the keys it replicates, read, written and
 * scanned by their coordinators, this node's directly and its peers' through the transport.
 */
package io.kvorum.node.replica;
