package io.kvorum.node.core;

import java.util.Optional;

/** The request itself is wrong: a missing or malformed parameter, an oversized key. */
public final class InvalidRequestException extends KvorumException {
  private final String parameter;

  /**
   * @param parameter the offending request parameter, or null when the fault is not in one
   * @param reason what is wrong, in words a user understands
   */
  public InvalidRequestException(String parameter, String reason) {
    super(reason, null);
    this.parameter = parameter;
  }

  public Optional<String> parameter() {
    return Optional.ofNullable(parameter);
  }
}
