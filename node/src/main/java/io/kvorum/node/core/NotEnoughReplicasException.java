package io.kvorum.node.core;

/** Fewer than {@code required} replicas answered in time; {@code answered} did. */
public final class NotEnoughReplicasException extends KvorumException {
  private final int required;
  private final int answered;

  public NotEnoughReplicasException(int required, int answered) {
    super(
        "Not Enough Replicas: " + required + " required, " + answered + " answered in time", null);
    this.required = required;
    this.answered = answered;
  }

  public int required() {
    return required;
  }

  public int answered() {
    return answered;
  }
}
