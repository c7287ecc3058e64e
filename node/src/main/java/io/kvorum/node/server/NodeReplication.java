package io.kvorum.node.server;

import io.kvorum.node.antientropy.AntiEntropy;
import io.kvorum.node.consensus.Acceptor;
import io.kvorum.node.consensus.PaxosRepair;
import io.kvorum.node.consensus.PaxosSweeper;
import io.kvorum.node.consensus.Proposers;
import io.kvorum.node.membership.MembershipService;
import io.kvorum.node.replication.HintedHandoff;
import io.kvorum.node.storage.PurgeSweeper;
import io.kvorum.node.storage.StorageEngine;

/**
 * What keeps a node's replicas in step with its peers' ({@link ReplicationBootstrap}).
 *
 * @param storage the records as the node uses them: metered, keeping anti-entropy's hash trees up
 *     to date, and reading from memory first if so switched
 * @param handoff the hints this node holds for its peers, and their delivery
 * @param antiEntropy the rounds that compare and repair the replicas this node shares
 * @param changes membership changes: gossip, joins, decommissions, removals and their streaming
 * @param sweeper the purge of dead records every replica holds
 * @param acceptor this node's Paxos acceptor (conditional writes) over {@code storage}
 * @param paxosSweeper the purge of acceptor states below the ballot floor
 * @param paxosRepair the conditional writes a membership change finishes before it moves on
 * @param proposals the conditional writes peers hand this node's proposer, run by the coordinator
 */
public record NodeReplication(
    StorageEngine storage,
    HintedHandoff handoff,
    AntiEntropy antiEntropy,
    MembershipService changes,
    PurgeSweeper sweeper,
    Acceptor acceptor,
    PaxosSweeper paxosSweeper,
    PaxosRepair paxosRepair,
    Proposers.Served proposals) {}
