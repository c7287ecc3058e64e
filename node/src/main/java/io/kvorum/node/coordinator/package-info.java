/** Coordinates client requests over the replicas of a key: quorums, read repair, hints, ranges. */
package io.kvorum.node.coordinator;
