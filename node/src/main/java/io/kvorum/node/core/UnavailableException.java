package io.kvorum.node.core;

/** This node cannot serve the request now, e.g. because it is shutting down. */
public final class UnavailableException extends KvorumException {
  public UnavailableException(String reason) {
    super(reason, null);
  }
}
