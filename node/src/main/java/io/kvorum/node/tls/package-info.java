/**
 * TLS material shared by the inter-node gRPC edge and the HTTP edge: certificate, key and trusted
 * CA read from PEM files and reloaded when they change on disk.
 */
package io.kvorum.node.tls;
