/** The {@link io.kvorum.node.replication.PeerTransport} seam: replica calls to other nodes. */
package io.kvorum.node.replication;
