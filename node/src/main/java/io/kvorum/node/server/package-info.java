/**
 * The node assembled from its parts: the only place that names concrete classes, with its start
 * order, readiness and shutdown.
 */
package io.kvorum.node.server;
