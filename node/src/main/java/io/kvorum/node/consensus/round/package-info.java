/**
 * Single-decree Paxos per key (CASPaxos) as pure state machines: acceptor transitions and a
 * proposer's round, messages in and messages out, no I/O and no clock.
 */
package io.kvorum.node.consensus.round;
