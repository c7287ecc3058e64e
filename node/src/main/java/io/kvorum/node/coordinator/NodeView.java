package io.kvorum.node.coordinator;

import java.util.OptionalLong;

/**
 * One node as this node sees it, for {@code GET /v0/cluster}.
 *
 * @param id the node's id
 * @param address its inter-node address, host:port
 * @param self whether it is this node
 * @param up whether it is reachable from here
 * @param detail the connection or circuit-breaker state behind {@code up}
 * @param hintsPending hints this node holds for it
 * @param clockOffsetMillis its wall clock minus this node's, as last measured (empty for this node
 *     and for a node never measured); positive when it is ahead
 * @param clockUncertaintyMillis half the round trip of that measurement
 * @param repair how anti-entropy with it went; null for this node itself
 * @param storage its records and disk use (this node's own, a peer's as it last reported them);
 *     null when unknown
 */
public record NodeView(
    String id,
    String address,
    boolean self,
    boolean up,
    String detail,
    long hintsPending,
    OptionalLong clockOffsetMillis,
    OptionalLong clockUncertaintyMillis,
    Repair repair,
    Storage storage) {

  /**
   * A node's storage as it reports it.
   *
   * @param records approximate records it stores, tombstones included
   * @param diskBytes bytes of its live data files
   */
  public record Storage(long records, long diskBytes) {}

  /**
   * Anti-entropy with one peer.
   *
   * @param lastRoundFinishedMillis when the last successful exchange with it finished (Unix ms), 0
   *     for never
   * @param recordsRepaired records that exchange moved one way or the other
   * @param recordsRepairedTotal records the exchanges with it moved since this node started
   * @param lastError why the latest exchange failed; null if it did not
   */
  public record Repair(
      long lastRoundFinishedMillis,
      long recordsRepaired,
      long recordsRepairedTotal,
      String lastError) {}
}
