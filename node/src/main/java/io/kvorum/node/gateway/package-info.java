/** The HTTP edge (Netty): parses client requests, calls the coordinator, writes responses. */
package io.kvorum.node.gateway;
