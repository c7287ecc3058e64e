/**
 * The node's Netty event loops: the threads that run every socket of the HTTP edge and of the
 * inter-node gRPC traffic, owned here so both edges can share them.
 */
package io.kvorum.node.netty;
