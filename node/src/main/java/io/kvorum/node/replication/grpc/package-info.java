/** The gRPC {@link io.kvorum.node.replication.PeerTransport} and the server peers call. */
package io.kvorum.node.replication.grpc;
