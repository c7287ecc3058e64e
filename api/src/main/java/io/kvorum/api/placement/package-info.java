/**
 * Which nodes hold a key: the placement algorithm itself, pure and shared, so that the nodes and
 * the placement-aware client compute a key's replicas with the same code.
 */
package io.kvorum.api.placement;
