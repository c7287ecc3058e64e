package io.kvorum.node.cli.client;

/** No answer from the node, or no way to ask; the message is one line for the operator. */
public final class Unreachable extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public Unreachable(String message) {
    super(message, null, false, false);
  }
}
