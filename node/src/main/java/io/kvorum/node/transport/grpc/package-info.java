/** The gRPC {@link io.kvorum.node.transport.PeerTransport} and the server peers call. */
package io.kvorum.node.transport.grpc;
