package io.kvorum.node.antientropy;

import io.kvorum.node.core.NodeId;
import io.kvorum.node.transport.CursorOperation;
import io.kvorum.node.transport.Deadline;
import io.kvorum.node.transport.Operation;
import io.kvorum.node.transport.PeerHandlers;

/**
 * The anti-entropy protocol (SPEC §7): a node compares the hash tree it shares with a peer level by
 * level, then pulls the peer's records of the segments that differ and pushes its own newer ones
 * (plain replica writes). Its operations and its handler ({@link #serve}); {@link PeerExchange}
 * calls them.
 */
public final class RepairProtocol {
  /**
   * The hashes of some nodes of one level of the tree a peer shares with the asking node, one per
   * position in the same order.
   */
  public static final Operation<Hashes, long[]> TREE_HASHES = Operation.of("tree_hashes");

  /**
   * A peer's records of some hash-tree segments that the asking node should hold too, tombstones
   * included, in key order, sent at the peer's repair rate. Each batch may take long: the peer
   * passes over every record to find those of the segments.
   */
  public static final CursorOperation<Segments> SEGMENTS =
      new CursorOperation<>("segments", Deadline.LONG_BATCH);

  private RepairProtocol() {}

  /** The hashes at {@code positions} of {@code level} of the tree {@code from} shares. */
  public record Hashes(NodeId from, int level, int[] positions) {}

  /** The records of {@code segments} that {@code from} should hold. */
  public record Segments(NodeId from, int[] segments) {}

  /**
   * Answers the peers' exchanges from {@code repair}'s trees: a level, position or peer that does
   * not exist is refused as an invalid request, and so is anything while the trees are being built
   * (unavailable).
   */
  public static void serve(PeerHandlers handlers, AntiEntropy repair) {
    handlers
        .on(TREE_HASHES, ask -> repair.hashes(ask.from(), ask.level(), ask.positions()))
        .on(SEGMENTS, ask -> repair.segments(ask.from(), ask.segments()));
  }
}
