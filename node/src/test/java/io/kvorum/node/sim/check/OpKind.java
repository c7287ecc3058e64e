package io.kvorum.node.sim.check;

/** What a client asked for, one kind per request of the HTTP API the simulator issues. */
public enum OpKind {
  /** {@code PUT}: writes a value. */
  PUT,
  /** {@code DELETE}: writes a tombstone. */
  DELETE,
  /** {@code GET}: reads a key at a quorum. */
  GET,
  /** {@code PUT} with {@code If-None-Match: *}: writes a value only if the key is absent. */
  PUT_IF_ABSENT,
  /** {@code PUT} with {@code If-Match}: writes a value only if the key is at a version. */
  PUT_IF_MATCH,
  /** {@code DELETE} with {@code If-Match}: deletes only if the key is at a version. */
  DELETE_IF_MATCH,
  /** {@code GET /v0/entities}: reads a range of keys. */
  RANGE,
  /** {@code GET} with {@code consistency=linearizable}: reads a key through its Paxos acceptors. */
  GET_LINEARIZABLE;

  /** Whether the operation writes (a value or a tombstone), conditionally or not. */
  public boolean isWrite() {
    return this != GET && this != RANGE && this != GET_LINEARIZABLE;
  }

  /** Whether the operation reads one key ({@code GET}, plain or linearizable). */
  public boolean readsKey() {
    return this == GET || this == GET_LINEARIZABLE;
  }

  /** Whether the operation is a compare-and-set (SPEC §10). */
  public boolean isConditional() {
    return this == PUT_IF_ABSENT || this == PUT_IF_MATCH || this == DELETE_IF_MATCH;
  }

  /** Whether the operation writes a tombstone. */
  public boolean deletes() {
    return this == DELETE || this == DELETE_IF_MATCH;
  }

  /** Whether the operation carries a value to write. */
  public boolean writesValue() {
    return isWrite() && !deletes();
  }

  /** Whether the operation names the version it expects ({@code If-Match}). */
  public boolean expectsVersion() {
    return this == PUT_IF_MATCH || this == DELETE_IF_MATCH;
  }
}
