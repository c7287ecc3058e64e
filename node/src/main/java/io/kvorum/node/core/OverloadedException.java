package io.kvorum.node.core;

/** A bounded queue is full; the caller should retry later rather than wait here. */
public final class OverloadedException extends KvorumException {
  public OverloadedException(String what) {
    super(what + " is overloaded, retry later", null);
  }
}
