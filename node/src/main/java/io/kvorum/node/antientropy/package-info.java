/**
 * Anti-entropy: hash trees over the records this node shares with each peer, kept up to date as
 * records change, and the rounds that compare them with the peers and exchange what differs.
 */
package io.kvorum.node.antientropy;
