/**
 * The {@link io.kvorum.node.transport.PeerTransport} seam: how a node calls other nodes' replicas,
 * and what it serves them ({@link io.kvorum.node.transport.ReplicaService}).
 */
package io.kvorum.node.transport;
