/**
 * Membership change (SPEC §8): gossip of the cluster state, admission of joining nodes, the
 * streaming of records to their new owners, and the sweep of records a node no longer owns.
 */
package io.kvorum.node.membership;
